#!/usr/bin/env node
/**
 * `olmv1`: the command line users and scripts drive. This file is the CLI's composition root:
 * it reads argv/env, builds each command's dependencies and dispatches. Commands live in the
 * files next to it and are loaded on demand, so `olmv1 resolve` never loads the HTTP server.
 */
import { commands, usage } from './commands.ts';
import { EXIT } from './io.ts';

async function main(argv: string[]): Promise<number> {
  const io = { stdout: process.stdout, stderr: process.stderr };
  for (let words = 2; words >= 1; words--) {
    const key = argv.slice(0, words).join(' ');
    const entry = commands.get(key);
    if (entry !== undefined) return (await entry.load())(argv.slice(words), io);
  }
  const wantsHelp = argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h';
  io[wantsHelp ? 'stdout' : 'stderr'].write(usage());
  if (!wantsHelp) io.stderr.write(`\nunknown command: ${argv.join(' ')}\n`);
  return wantsHelp ? EXIT.ok : EXIT.usage;
}

process.exitCode = await main(process.argv.slice(2)).catch((err: unknown) => {
  // Commands report expected failures themselves; reaching here is a bug or an I/O failure.
  process.stderr.write(`olmv1: ${err instanceof Error ? err.message : String(err)}\n`);
  return EXIT.failed;
});
