/**
 * Runs a short-lived command to completion (go, openssl, version probes) and returns its
 * output; long-running servers use process.ts instead.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { isErrno } from '../../shared/errors/index.ts';

/** Options of runCommand. */
interface RunOptions {
  cwd?: string;
  /** Full environment of the child; the parent's environment when omitted. */
  env?: NodeJS.ProcessEnv;
  /** Written to the child's stdin, which is then closed. */
  input?: string;
  /** Kill the command (SIGKILL) after this long; default never (a Go build must never fail for being slow). */
  timeoutMs?: number;
  /** Receives stderr chunks as they arrive (progress of long builds). */
  onStderr?: (chunk: string) => void;
}

/** Output of a successful command. */
export interface RunResult {
  stdout: string;
  stderr: string;
}

/**
 * Runs `command args` and resolves with its output when it exits 0. Rejects with an Error
 * whose message names the command and carries the tail of stderr when it cannot start
 * (e.g. ENOENT), exits non-zero, is killed by a signal or times out.
 */
export async function runCommand(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr.push(chunk);
    options.onStderr?.(chunk.toString('utf8'));
  });
  // A child that exits before reading stdin makes the write fail with EPIPE; its exit status
  // is the error worth reporting, so the stream error is ignored.
  child.stdin.on('error', () => {});
  child.stdin.end(options.input ?? '');
  const timeoutMs = options.timeoutMs;
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const described = [command, ...args].join(' ');
  try {
    const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (c, s) => resolve({ code: c, signal: s }));
    });
    const out = { stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') };
    if (code === 0) return out;
    const why =
      signal !== null
        ? `was killed by ${signal}${signal === 'SIGKILL' && timeoutMs !== undefined ? ` (timeout ${timeoutMs} ms?)` : ''}`
        : `exited with status ${code}`;
    throw new Error(`command "${described}" ${why}: ${tailLines(out.stderr || out.stdout, 30)}`);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) {
      throw new Error(`cannot run "${command}": not found`, { cause: err });
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** The last `count` non-empty lines of `text`, joined with newlines (for error messages). */
export function tailLines(text: string, count: number): string {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  return lines.slice(-count).join('\n');
}

/** True when `path` exists and this process may execute it. */
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
