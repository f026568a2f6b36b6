/**
 * What the measured child processes run. catalogd ships as JavaScript emitted by tsc (the
 * container image runs `dist/`), while `node file.ts` pays for Node's type stripping: its
 * WebAssembly transformer adds 15-35 MB of RSS that production never has. So by default the
 * bench emits the sources once per run (tsc, `noCheck`, into its work directory, with
 * node_modules linked and a package.json declaring ES modules, as the image's) and starts
 * children from that JavaScript; `--source` (or a failed
 * emit) runs the TypeScript files directly instead, and the report says which was used.
 * catalogd's and operator-controller's entries are bundled as the image's are
 * (scripts/build-bundles.ts); `OLMV1_BENCH_UNBUNDLED=1` leaves tsc's modules.
 */
import { execFile } from 'node:child_process';
import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildBundles } from '../../scripts/build-bundles.ts';

/** How child processes run the product code. */
export interface Runtime {
  kind: 'compiled' | 'source';
  /** Why `source` was used when compiled output was wanted. */
  note?: string;
  /** Path to run for a repository file given as a `.ts` path relative to the repo root. */
  entry(repoPath: string): string;
}

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** Runs the TypeScript sources directly. */
export function sourceRuntime(note?: string): Runtime {
  return { kind: 'source', ...(note === undefined ? {} : { note }), entry: (p) => join(REPO, p) };
}

/** Emits cmd/, pkg/ and bench/ (and what they import) as JavaScript under `workDir/js`. */
export async function compiledRuntime(workDir: string, log: (line: string) => void): Promise<Runtime> {
  const out = join(workDir, 'js');
  const config = join(workDir, 'tsconfig.bench.json');
  const include = ['cmd', 'pkg', 'bench'].map((d) => join(REPO, d, '**/*.ts'));
  await writeFile(
    config,
    JSON.stringify({
      extends: join(REPO, 'tsconfig.json'),
      compilerOptions: { noEmit: false, noCheck: true, types: [], outDir: out, rootDir: REPO, sourceMap: false },
      include,
      exclude: [join(REPO, '**/*.test.ts')],
    }),
  );
  log('emitting JavaScript for the child processes (tsc, no type check)');
  try {
    await promisify(execFile)(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', config], { maxBuffer: 16 << 20 });
    // Bare imports (pino, prom-client, ...) resolve from the repository's node_modules.
    await symlink(join(REPO, 'node_modules'), join(workDir, 'node_modules'), 'dir');
    // ES modules, as the image's package.json declares for its dist/: without a package type
    // Node would parse each .js file as CommonJS first (syntax detection), which the image never does.
    await writeFile(join(out, 'package.json'), '{ "type": "module" }\n');
    // Each component's entry bundled into one file over tsc's, as the image runs it (decision 0147).
    if (process.env['OLMV1_BENCH_UNBUNDLED'] === undefined) await buildBundles(REPO, out);
  } catch (err) {
    const reason = (err as { stdout?: string }).stdout?.split('\n')[0] || (err as Error).message;
    log(`emit failed, children run the TypeScript sources: ${reason}`);
    return sourceRuntime(`tsc emit failed: ${reason}`);
  }
  return { kind: 'compiled', entry: (p) => join(out, p.replace(/\.ts$/, '.js')) };
}
