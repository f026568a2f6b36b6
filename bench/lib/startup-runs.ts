/**
 * Timing one process start from outside: the clock starts just before `spawn` and stops at
 * the first sign, seen by the bench, of what the process was started for (its exit, an HTTP
 * status, a first connection to a relay). Polls are 2 ms apart: the figures are at most that
 * much late, and the bench process polling takes little of the CPU the child starts on.
 */
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { type Server, type Socket, connect, createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { procCpuSeconds } from './proc.ts';

const POLL_MS = 2;

/** A started process: its pid, a promise of its exit, and a graceful stop (SIGTERM, SIGKILL after 10 s). */
export interface Started {
  pid: number;
  /** performance.now() just before spawn. */
  t0: number;
  exited: Promise<number | null>;
  /** The last 8 KiB of stderr. */
  stderr(): string;
  stop(): Promise<void>;
}

/** Spawns `node <execArgv> <args>` with `env` added to this process's environment; stdout is discarded. */
export function startNode(args: readonly string[], opts: { execArgv: readonly string[]; env?: Readonly<Record<string, string>> }): Started {
  return startProcess(process.execPath, [...opts.execArgv, ...args], opts.env);
}

/** Spawns `command <args>` with `env` added to this process's environment; stdout is discarded. */
export function startProcess(command: string, args: readonly string[], env?: Readonly<Record<string, string>>): Started {
  const t0 = performance.now();
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (c: string) => (err = (err + c).slice(-8192)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stopping: Promise<void> | undefined;
  return {
    pid: child.pid ?? -1,
    t0,
    exited,
    stderr: () => err,
    stop: () => {
      stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
}

/** Milliseconds from spawn to the exit of `node <execArgv> <args>`; throws on a non-zero exit. */
export async function timeToExit(
  args: readonly string[],
  opts: { execArgv: readonly string[]; env?: Readonly<Record<string, string>> },
): Promise<number> {
  const p = startNode(args, opts);
  const code = await p.exited;
  const ms = performance.now() - p.t0;
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited with ${code}: ${p.stderr()}`);
  return ms;
}

/** The status of one GET of `url` (TLS certificates not checked), or undefined when no answer came. */
function statusOf(url: URL): Promise<number | undefined> {
  return new Promise((resolve) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { method: 'GET', agent: false, rejectUnauthorized: false }, (res) => {
      resolve(res.statusCode);
      res.destroy();
    });
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

/** The CPU time (user + system) `p` has used so far, in ms (10 ms resolution). */
export function cpuMs(p: Started): number {
  return (procCpuSeconds(p.pid) ?? Number.NaN) * 1000;
}

/**
 * Milliseconds from `p`'s spawn until `url` answers 200 (the response head; the body is not
 * read), and the CPU time `p` had used by then. Throws when the process exits first or after
 * `timeoutMs`.
 */
export async function timeToOk(p: Started, url: string, timeoutMs = 30_000): Promise<{ ms: number; cpuMs: number }> {
  const target = new URL(url);
  let exited = false;
  void p.exited.then(() => (exited = true));
  for (;;) {
    const status = await statusOf(target);
    if (status === 200) return { ms: performance.now() - p.t0, cpuMs: cpuMs(p) };
    if (exited) throw new Error(`process exited before ${url} answered 200; stderr: ${p.stderr()}`);
    if (performance.now() - p.t0 > timeoutMs) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms; stderr: ${p.stderr()}`);
    await sleep(POLL_MS);
  }
}

/**
 * A TCP relay on a loopback port in front of `upstream` (`host:port`) that records when it
 * accepted its first connection since the last `reset()`: catalogd pulling through it shows
 * when its first registry request (the catalog image's manifest) went out.
 */
export interface FirstConnectionRelay {
  /** `127.0.0.1:PORT`. */
  host: string;
  reset(): void;
  /** Resolves performance.now() of the first connection after the last reset. */
  first(timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

export async function startRelay(upstream: string): Promise<FirstConnectionRelay> {
  const [uHost = '127.0.0.1', uPort = '0'] = upstream.split(':');
  let firstAt: number | undefined;
  const sockets = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    firstAt ??= performance.now();
    const outbound = connect(Number(uPort), uHost);
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        inbound.destroy();
        outbound.destroy();
      });
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    host: `127.0.0.1:${port}`,
    reset: () => (firstAt = undefined),
    first: async (timeoutMs = 30_000) => {
      const deadline = performance.now() + timeoutMs;
      while (firstAt === undefined) {
        if (performance.now() > deadline) throw new Error(`no connection to the relay within ${timeoutMs} ms`);
        await sleep(POLL_MS);
      }
      return firstAt;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
