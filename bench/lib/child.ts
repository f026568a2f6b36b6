/**
 * Benchmark child processes: a measured workload runs in a process of its own so that its
 * memory figures start from a clean baseline and the load generator does not share its event
 * loop. Parent and child talk over the IPC channel with `{ type, ...data }` messages.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';

/** A message on the IPC channel. */
export interface ChildMessage {
  type: string;
  [key: string]: unknown;
}

/** A running child process (see {@link forkChild} and {@link spawnChild}). */
export interface BenchChild {
  readonly pid: number;
  /** The next message of `type` (earlier ones are queued); rejects when the child exits first. */
  next<T extends ChildMessage>(type: string, timeoutMs?: number): Promise<T>;
  /** Sends a message to a forked child. */
  send(msg: ChildMessage): void;
  /** Everything the child wrote on stderr so far (last 64 KiB). */
  stderr(): string;
  /** Resolves on the first stderr line matching `re` (its match); rejects if the child exits first. */
  waitForStderr(re: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Sends SIGTERM (SIGKILL after 10 s) and waits for the exit. Idempotent. */
  stop(): Promise<void>;
  /** Resolves when the child has exited, with how (`child exited (code C, signal S)`). */
  exited(): Promise<string>;
}

const STDERR_KEEP = 64 * 1024;

/** Forks `script` (a .js or .ts file, see runtime.ts) with an IPC channel. */
export function forkChild(
  script: string,
  options: { args?: string[]; execArgv?: string[]; env?: Readonly<Record<string, string>> } = {},
): BenchChild {
  const child = fork(script, options.args ?? [], {
    execArgv: options.execArgv ?? [],
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  return wrap(child);
}

/**
 * Spawns `node <args>` (e.g. the olmv1 CLI) without IPC; stdout is discarded, or written to the
 * open file descriptor `stdout` (e.g. its log, to read afterwards). `wrap` turns the
 * command into the one started (e.g. joining a memory cgroup first, memory-limit.ts); it must
 * exec the command so that the child's PID is node's.
 */
export function spawnChild(
  args: string[],
  options: {
    cwd?: string;
    execArgv?: string[];
    env?: Readonly<Record<string, string>>;
    wrap?: (command: string[]) => string[];
    stdout?: number;
  } = {},
): BenchChild {
  const command = [process.execPath, ...(options.execArgv ?? []), ...args];
  const [program = process.execPath, ...rest] = options.wrap?.(command) ?? command;
  const child = spawn(program, rest, {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', options.stdout ?? 'ignore', 'pipe'],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  return wrap(child);
}

function wrap(child: ChildProcess): BenchChild {
  const queue: ChildMessage[] = [];
  const waiters = new Set<() => void>();
  let stderr = '';
  let exited: string | undefined;
  const notify = (): void => {
    for (const w of [...waiters]) w();
  };
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEEP);
    notify();
  });
  child.on('message', (msg: ChildMessage) => {
    queue.push(msg);
    notify();
  });
  const exitPromise = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = `child exited (code ${code}, signal ${signal})`;
      notify();
      resolve();
    });
  });

  function waitFor<T>(check: () => T | undefined, what: string, timeoutMs: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => finish(() => reject(new Error(`timed out waiting for ${what}; stderr: ${stderr.slice(-2000)}`))), timeoutMs);
      const finish = (fn: () => void): void => {
        clearTimeout(timer);
        waiters.delete(poll);
        fn();
      };
      const poll = (): void => {
        let found: T | undefined;
        try {
          found = check();
        } catch (err) {
          finish(() => reject(err as Error));
          return;
        }
        if (found !== undefined) finish(() => resolve(found));
        else if (exited !== undefined) finish(() => reject(new Error(`${exited} while waiting for ${what}; stderr: ${stderr.slice(-2000)}`)));
      };
      waiters.add(poll);
      poll();
    });
  }

  let stopping: Promise<void> | undefined;
  return {
    pid: child.pid ?? -1,
    next: <T extends ChildMessage>(type: string, timeoutMs = 120_000) =>
      waitFor<T>(
        () => {
          const i = queue.findIndex((m) => m.type === type);
          if (i < 0) {
            const failed = queue.find((m) => m.type === 'error');
            if (failed !== undefined) throw new Error(`child failed: ${String(failed.message)}`);
            return undefined;
          }
          return queue.splice(i, 1)[0] as T;
        },
        `message ${type}`,
        timeoutMs,
      ),
    send: (msg) => {
      child.send(msg);
    },
    stderr: () => stderr,
    waitForStderr: (re, timeoutMs = 120_000) => waitFor(() => re.exec(stderr) ?? undefined, `stderr ${re}`, timeoutMs),
    exited: () => exitPromise.then(() => exited ?? 'child exited'),
    stop: () => {
      stopping ??= (async () => {
        if (exited !== undefined) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exitPromise;
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
}

/** Child side: sends a message to the parent. */
export function toParent(msg: ChildMessage): void {
  process.send?.(msg);
}

/** Child side: the next message of `type` from the parent. */
export function fromParent<T extends ChildMessage>(type: string): Promise<T> {
  return new Promise<T>((resolve) => {
    const on = (msg: ChildMessage): void => {
      if (msg.type !== type) return;
      process.off('message', on);
      resolve(msg as T);
    };
    process.on('message', on);
  });
}

/** Child side: runs `main`, reports a failure as an `error` message, then lets the process end. */
export function runChild(main: () => Promise<void>): void {
  main().then(
    () => process.disconnect?.(),
    (err: unknown) => {
      toParent({ type: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      process.exitCode = 1;
      process.disconnect?.();
    },
  );
}
