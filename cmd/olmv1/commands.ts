/**
 * The command table: words -> a loader that builds the command with its dependencies.
 * Dependencies are composed here, next to main.ts, and nowhere else.
 */
import type { Command } from './io.ts';

interface Entry {
  summary: string;
  load(): Promise<Command>;
}

/** Every `olmv1` command, keyed by its command words. */
export const commands = new Map<string, Entry>([
  [
    'catalog validate',
    {
      summary: 'validate a file-based catalog directory (like opm validate)',
      load: async () => (await import('./catalog-validate.ts')).runCatalogValidate,
    },
  ],
  [
    'catalog serve',
    {
      summary: 'serve catalog directories over the catalogd HTTP API, no cluster needed',
      load: async () => (await import('./catalog-serve.ts')).runCatalogServe,
    },
  ],
  [
    'resolve',
    {
      summary: 'show which bundle a ClusterExtension would get from FBC directories',
      load: async () => {
        const [{ runResolve }, { loadFS }] = await Promise.all([import('./resolve.ts'), import('../../pkg/fbc/index.ts')]);
        return (args, io) => runResolve(args, io, { loadCatalogDir: (dir) => loadFS(dir) });
      },
    },
  ],
]);

/** The help text listing every command. */
export function usage(): string {
  const width = Math.max(...[...commands.keys()].map((k) => k.length));
  const lines = [...commands].map(([k, e]) => `  ${k.padEnd(width)}  ${e.summary}`);
  return `Usage: olmv1 <command> [arguments]\n\nCommands:\n${lines.join('\n')}\n\nRun "olmv1 <command> --help" for a command's arguments.\n`;
}
