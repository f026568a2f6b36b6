/**
 * The temp directory and server processes of a control plane or registry, cleaned up however
 * the test process ends: by `stop()`, by an exit hook if Node exits without it, by the reaper if
 * the process is killed.
 */
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signalGroup, type ManagedProcess } from './process.ts';
import { Reaper } from './reaper.ts';

/** See the module comment. */
export interface Workspace {
  readonly dir: string;
  readonly reaper: Reaper;
  /** True once `stop` was called. */
  readonly stopped: boolean;
  /** Adds a process to stop; the getter is read at stop time, so a replaced process is covered. */
  track(current: () => ManagedProcess | undefined): void;
  /**
   * Adds a cleanup step that runs after the tracked processes stopped and before the directory
   * is removed (later steps first). A step that throws does not stop the others; the first
   * error is rethrown by `stop` once the directory is gone.
   */
  addCleanup(step: () => Promise<void>): void;
  /** Stops tracked processes in reverse order, runs the cleanups and removes the directory; idempotent. */
  stop(): Promise<void>;
}

/** Creates `<tmpRoot>/<prefix>XXXXXX` and starts its reaper. */
export async function createWorkspace(prefix: string, tmpRoot: string = tmpdir()): Promise<Workspace> {
  const dir = await mkdtemp(join(tmpRoot, prefix));
  const reaper = Reaper.start();
  reaper.track('dir', dir);
  const processes: Array<() => ManagedProcess | undefined> = [];
  const cleanups: Array<() => Promise<void>> = [];
  const onExit = (): void => {
    // Synchronous last resort when Node exits without stop() (e.g. process.exit()).
    for (const get of processes) {
      const proc = get();
      if (proc !== undefined && proc.exitStatus() === undefined) signalGroup(proc.pid, 'SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  let stopped = false;
  return {
    dir,
    reaper,
    get stopped() {
      return stopped;
    },
    track: (current) => processes.push(current),
    addCleanup: (step) => cleanups.push(step),
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const get of [...processes].reverse()) await get()?.stop();
      let failure: unknown;
      for (const step of [...cleanups].reverse()) {
        try {
          await step();
        } catch (err) {
          failure ??= err;
        }
      }
      await rm(dir, { recursive: true, force: true });
      reaper.untrack('dir', dir);
      reaper.close();
      process.removeListener('exit', onExit);
      if (failure !== undefined) throw failure;
    },
  };
}
