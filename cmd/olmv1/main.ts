#!/usr/bin/env node
/**
 * `olmv1`, the CLI's composition root: reads argv/env and dispatches to commands loaded on
 * demand (commands.ts), so `olmv1 resolve` never loads the HTTP server.
 */
import { commands, usage } from './commands.ts';
import { EXIT } from './io.ts';

// A reader that goes away (`olmv1 ... | head`) ends the command quietly, not with an EPIPE stack
// trace: one listening for SIGINT stops as on Ctrl-C and cleans up, any other exits 0 at once.
let readerGone = false;
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  if (readerGone) return;
  readerGone = true;
  if (process.listenerCount('SIGINT') > 0) process.emit('SIGINT', 'SIGINT');
  else process.exit(EXIT.ok);
});
process.stderr.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
});

async function main(argv: string[]): Promise<number> {
  const io = { stdout: process.stdout, stderr: process.stderr };
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === 'version')) {
    const { packageVersion } = await import('../shared/version.ts');
    io.stdout.write(`olmv1 ${await packageVersion()}\n`);
    return EXIT.ok;
  }
  // The console serves a large catalog's index with catalogd's allocator settings, read by glibc at start only.
  if (argv[0] === 'console') {
    const processes = await import('./console-process.ts');
    if (processes.wantsAllocatorSettings(process.platform, process.env)) return processes.runWithAllocatorSettings();
  }
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
