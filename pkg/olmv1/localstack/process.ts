/**
 * Long-running server processes (etcd, kube-apiserver, registry): each in its own process
 * group, output appended to a log file, tracked by a Reaper, and stopped by signalling the
 * whole group (SIGTERM, then SIGKILL after a grace period).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { tailLines } from './exec.ts';
import type { Reaper } from './reaper.ts';
import { errorMessage, isErrno } from '../../shared/errors/index.ts';

/** How a process ended. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Options of startProcess. */
export interface StartProcessOptions {
  /** Short name for messages, e.g. `kube-apiserver`. */
  name: string;
  command: string;
  args: readonly string[];
  /** File that receives stdout and stderr (appended). */
  logPath: string;
  reaper: Reaper;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** A running server process. */
export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  readonly logPath: string;
  /** Resolves when the process exits (never rejects). */
  readonly exited: Promise<ExitStatus>;
  /** The exit status once it exited, else undefined. */
  exitStatus(): ExitStatus | undefined;
  /** The last `lines` lines of the log (for error messages). */
  logTail(lines?: number): string;
  /**
   * Stops the process group: SIGTERM, SIGKILL after `graceMs` (default 10 s). Resolves when
   * the process exited; safe to call repeatedly or after it exited by itself.
   */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts `command` as the leader of a new process group. Throws when it cannot be spawned
 * (e.g. the binary does not exist); a process that starts and then dies is reported through
 * `exited`.
 */
export async function startProcess(options: StartProcessOptions): Promise<ManagedProcess> {
  const log = openSync(options.logPath, 'a');
  let child: ChildProcess;
  try {
    const spawned = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['ignore', log, log],
    });
    await new Promise<void>((resolve, reject) => {
      spawned.once('spawn', resolve);
      spawned.once('error', reject);
    });
    child = spawned;
  } catch (err) {
    throw new Error(`cannot start ${options.name} (${options.command}): ${errorMessage(err)}`, { cause: err });
  } finally {
    closeSync(log);
  }
  const maybePid = child.pid;
  if (maybePid === undefined) throw new Error(`cannot start ${options.name}: no pid`);
  const pid: number = maybePid;
  options.reaper.track('group', pid);
  let status: ExitStatus | undefined;
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => {
      status = { code, signal };
      resolve(status);
    });
  });
  // Only the process (group) is killed from here on: never let a stray handle keep Node alive.
  child.unref();

  async function stop(graceMs = 10_000): Promise<void> {
    if (status === undefined) {
      // Referenced again while stop() waits: a process slower than the grace period to exit
      // (kubelet or containerd tearing down several Pods) left Node with nothing alive, and it
      // exited in the middle of `olmv1 up`'s stop (issue #46, `up --node --cert-manager`).
      child.ref();
      signalGroup(pid, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    }
    // Children the leader may have left behind share its group.
    signalGroup(pid, 'SIGKILL');
    options.reaper.untrack('group', pid);
  }

  return {
    name: options.name,
    pid,
    logPath: options.logPath,
    exited,
    exitStatus: () => status,
    logTail: (lines = 40) => readTail(options.logPath, lines),
    stop,
  };
}

/**
 * Starts a server (startProcess) and resolves once `ready` (which waits for it, e.g. with
 * waitUntil) resolves; a server that does not get ready is stopped before the error is rethrown.
 */
export async function startServer(options: StartProcessOptions, ready: (proc: ManagedProcess) => Promise<void>): Promise<ManagedProcess> {
  const proc = await startProcess(options);
  try {
    await ready(proc);
    return proc;
  } catch (err) {
    await proc.stop();
    throw err;
  }
}

/** Sends `signal` to process group `pgid`, ignoring a group that no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (err) {
    if (!isErrno(err, 'ESRCH')) throw err;
  }
}

function readTail(path: string, lines: number): string {
  try {
    return tailLines(readFileSync(path, 'utf8'), lines);
  } catch {
    return '(no log)';
  }
}

/** Describes an exit status for messages: `exited with status 1` / `was killed by SIGKILL`. */
export function describeExit(status: ExitStatus): string {
  return status.signal !== null ? `was killed by ${status.signal}` : `exited with status ${status.code}`;
}
