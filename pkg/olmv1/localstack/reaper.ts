/**
 * A watchdog that cleans up after us if we die without stopping our servers (they run in process
 * groups of their own, so a Ctrl-C aimed at vitest does not kill them before teardown): a
 * detached Node process reading "track/untrack" lines from us; when the pipe closes it kills
 * every process group, runs every cleanup script (node-cleanup.ts) and deletes every directory
 * still tracked, then exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';

// Kept as plain JavaScript so the reaper runs on whatever Node executes the parent (vitest
// may run on a Node without type stripping). Protocol: one command per line,
// `+group PID`, `-group PID`, `+script PATH`, `-script PATH`, `+dir PATH`, `-dir PATH`.
const REAPER_SCRIPT = `
const fs = require('node:fs');
const { spawnSync } = require('node:child_process');
const groups = new Set();
const scripts = new Set();
const dirs = new Set();
let buffered = '';
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => {});
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  let nl;
  while ((nl = buffered.indexOf('\\n')) >= 0) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    const space = line.indexOf(' ');
    const verb = line.slice(0, space);
    const arg = line.slice(space + 1);
    if (verb === '+group') groups.add(Number(arg));
    if (verb === '-group') groups.delete(Number(arg));
    if (verb === '+script') scripts.add(arg);
    if (verb === '-script') scripts.delete(arg);
    if (verb === '+dir') dirs.add(arg);
    if (verb === '-dir') dirs.delete(arg);
  }
});
function signalAll(sig) {
  let alive = 0;
  for (const pgid of groups) {
    try { process.kill(-pgid, sig); alive++; } catch { groups.delete(pgid); }
  }
  return alive;
}
function finish() {
  signalAll('SIGTERM');
  const deadline = Date.now() + 5000;
  const timer = setInterval(() => {
    if (signalAll(0) === 0 || Date.now() > deadline) {
      clearInterval(timer);
      signalAll('SIGKILL');
      for (const script of [...scripts].reverse()) { try { spawnSync('/bin/sh', [script], { stdio: 'ignore', timeout: 120000 }); } catch {} }
      for (const dir of dirs) { try { fs.rmSync(dir, { recursive: true, force: true }); } catch {} }
      process.exit(0);
    }
  }, 100);
}
process.stdin.on('end', finish);
process.stdin.on('error', finish);
`;

/** What a reaper cleans up: process groups, cleanup scripts, directories. */
type TrackedKind = 'group' | 'script' | 'dir';

/**
 * Parent-side handle of a reaper. Track a process group or directory as soon as it exists and
 * untrack it once it was cleaned up normally; `close()` after a clean shutdown lets the
 * reaper exit with nothing left to do.
 */
export class Reaper {
  readonly #child: ChildProcess;
  readonly #pipe: Writable;
  #closed = false;

  private constructor(child: ChildProcess, pipe: Writable) {
    this.#child = child;
    this.#pipe = pipe;
  }

  /**
   * Starts a reaper with `nodePath` (default: the Node running us). It neither keeps our event
   * loop alive nor receives terminal signals meant for us.
   */
  static start(nodePath: string = process.execPath): Reaper {
    const child = spawn(nodePath, ['-e', REAPER_SCRIPT], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    const pipe = child.stdin;
    if (pipe === null) throw new Error('reaper has no stdin pipe');
    // Errors surface when the reaper died; there is nothing better to do than carry on.
    pipe.on('error', () => {});
    child.on('error', () => {});
    child.unref();
    (pipe as Writable & { unref?: () => void }).unref?.();
    return new Reaper(child, pipe);
  }

  /** Pid of the reaper process (tests use it to prove the reaper works). */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /**
   * If we die: kill process group `what` (`group`), run the shell script at path `what`
   * (`script`: after the process groups are killed, before the directories are deleted, so it
   * may live in one of them), or delete directory `what` recursively (`dir`).
   */
  track(kind: TrackedKind, what: number | string): void {
    this.#send(`+${kind} ${what}`);
  }

  /** Forgets what `track` was given (it was cleaned up normally). */
  untrack(kind: TrackedKind, what: number | string): void {
    this.#send(`-${kind} ${what}`);
  }

  /** Closes the pipe: the reaper cleans whatever is still tracked and exits. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pipe.end();
  }

  #send(line: string): void {
    if (this.#closed) return;
    if (line.includes('\n')) throw new Error(`reaper command must be one line: ${JSON.stringify(line)}`);
    this.#pipe.write(line + '\n');
  }
}
