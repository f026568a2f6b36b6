/**
 * `olmv1 console` runs with catalogd's allocator settings (cmd/shared/node-flags.ts, decision
 * 0082): the hub index of a large catalog is built and freed in many threads' arenas, which glibc
 * otherwise keeps resident. GLIBC_TUNABLES is read once, when the process starts, so the command
 * starts itself again with them (once: the child has them set) and passes its exit code on.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { CATALOGD_ENVIRONMENT, CATALOGD_NODE_FLAGS } from '../shared/node-flags.ts';

/** Whether this process should start itself again with the settings: on Linux, when they are not set. */
export function wantsAllocatorSettings(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): boolean {
  return platform === 'linux' && env['GLIBC_TUNABLES'] === undefined;
}

/** Runs this same command line in a child with the settings, stdio shared, SIGINT and SIGTERM passed on; resolves to its exit code. */
export function runWithAllocatorSettings(): Promise<number> {
  const child = spawn(process.execPath, [...process.execArgv, ...CATALOGD_NODE_FLAGS, ...process.argv.slice(1)], {
    env: { ...process.env, ...CATALOGD_ENVIRONMENT },
    stdio: 'inherit',
  });
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  const onInt = forward('SIGINT');
  const onTerm = forward('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return new Promise((resolve) => {
    child.on('error', () => resolve(1));
    child.on('exit', (code, signal) => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolve(code ?? 128 + (signal === null ? 0 : constants.signals[signal]));
    });
  });
}
