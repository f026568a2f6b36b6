/**
 * Memory of a product process read from outside, and a forced collection in it without
 * `--expose-gc` or IPC: the child is started with `--inspect-port=127.0.0.1:PORT` (which does
 * nothing by itself), SIGUSR1 then activates Node's inspector on that port and the DevTools
 * protocol's `HeapProfiler.collectGarbage` runs full collections (and `Profiler` records CPU
 * profiles). The inspector costs a few MB once active, so floors measured beside such a
 * process get the same treatment.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { procMemory } from './proc.ts';

/** /proc/PID/status and /proc/PID/smaps_rollup figures of one process, in bytes. */
export interface RollupMemory {
  rss: number;
  /** RssAnon of status: heaps, malloc arenas, JIT code. */
  anon: number;
  /** RssFile of status: mostly the node binary's pages (shared, reclaimable). */
  file: number;
  /** smaps_rollup `Anonymous` (NaN when unreadable). */
  rollupAnonymous: number;
  /** smaps_rollup `Pss` (NaN when unreadable). */
  pss: number;
}

/** Reads the memory of `pid`; undefined when the process is gone. */
export function rollupMemory(pid: number): RollupMemory | undefined {
  const status = procMemory(pid);
  if (status === undefined) return undefined;
  let text = '';
  try {
    text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  } catch {
    // Not every kernel has smaps_rollup; the status figures still stand.
  }
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? Number.NaN) * 1024;
  return { rss: status.rss, anon: status.anon, file: status.file, rollupAnonymous: kb('Anonymous'), pss: kb('Pss') };
}

/** Waits until the RSS of `pid` stayed within `toleranceBytes` for `windowMs` (at least `minMs`, at most `maxMs`); returns the wait. */
export async function settleRss(pid: number, opts: { minMs: number; maxMs: number; windowMs: number; toleranceBytes: number }): Promise<number> {
  const start = performance.now();
  const readings: Array<[number, number]> = [];
  for (;;) {
    const now = performance.now();
    readings.push([now, procMemory(pid)?.rss ?? 0]);
    const window = readings.filter(([t]) => t >= now - opts.windowMs).map(([, v]) => v);
    const full = now - (readings[0]?.[0] ?? now) >= opts.windowMs;
    const stable = full && Math.max(...window) - Math.min(...window) <= opts.toleranceBytes;
    if ((stable && now - start >= opts.minMs) || now - start >= opts.maxMs) return now - start;
    await sleep(500);
  }
}

interface CdpReply {
  id?: number;
  result?: unknown;
  error?: { message: string };
}

/** A DevTools protocol session with a process's inspector. */
export interface InspectorSession {
  /** Sends `method` and resolves with its result; rejects with the protocol's error. */
  call(method: string, params?: Record<string, unknown>): Promise<unknown>;
  close(): void;
}

/** Activates the inspector of `pid` (listening on `port`, see the module comment) and connects to it. */
export async function connectInspector(pid: number, port: number): Promise<InspectorSession> {
  process.kill(pid, 'SIGUSR1');
  let url: string | undefined;
  const deadline = Date.now() + 10_000;
  while (url === undefined) {
    try {
      const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{ webSocketDebuggerUrl?: string }>;
      url = targets[0]?.webSocketDebuggerUrl;
    } catch {
      // Not listening yet.
    }
    if (url === undefined) {
      if (Date.now() > deadline) throw new Error(`the inspector of process ${pid} did not answer on port ${port}`);
      await sleep(100);
    }
  }
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve(), { once: true });
    ws.addEventListener('error', () => reject(new Error(`inspector connection to process ${pid} failed`)), { once: true });
  });
  let nextId = 1;
  return {
    call: (method, params) => {
      const id = nextId++;
      const reply = new Promise<CdpReply>((resolve) => {
        const on = (ev: MessageEvent): void => {
          const msg = JSON.parse(String(ev.data)) as CdpReply;
          if (msg.id !== id) return;
          ws.removeEventListener('message', on);
          resolve(msg);
        };
        ws.addEventListener('message', on);
      });
      ws.send(JSON.stringify({ id, method, ...(params === undefined ? {} : { params }) }));
      return reply.then((msg) => (msg.error === undefined ? msg.result : Promise.reject(new Error(`${method}: ${msg.error.message}`))));
    },
    close: () => ws.close(),
  };
}

/**
 * Activates the inspector of `pid` and runs `rounds` full collections through it; waits
 * `settleMs` afterwards. Throws when the inspector does not answer.
 */
export async function forceGc(pid: number, port: number, rounds = 3, settleMs = 2_000): Promise<void> {
  const session = await connectInspector(pid, port);
  try {
    for (let i = 0; i < rounds; i++) await session.call('HeapProfiler.collectGarbage');
  } finally {
    session.close();
  }
  await sleep(settleMs);
}

/**
 * Starts V8's CPU profiler in `pid` (sampling every `intervalUs`); the returned function stops
 * it and resolves with the profile (the `.cpuprofile` format DevTools opens).
 */
export async function startCpuProfile(pid: number, port: number, intervalUs = 500): Promise<() => Promise<unknown>> {
  const session = await connectInspector(pid, port);
  await session.call('Profiler.enable');
  await session.call('Profiler.setSamplingInterval', { interval: intervalUs });
  await session.call('Profiler.start');
  return async () => {
    try {
      return ((await session.call('Profiler.stop')) as { profile: unknown }).profile;
    } finally {
      session.close();
    }
  };
}

/**
 * Starts V8's sampling heap profiler in `pid` (one sample per `intervalBytes` allocated on
 * average); the returned function runs full collections first and resolves with what the sampled
 * allocations still alive add up to, by allocation stack (the `.heapprofile` format DevTools
 * opens), and V8's heap figures at that moment.
 */
export async function startHeapSampling(pid: number, port: number, intervalBytes = 65_536): Promise<HeapSampling> {
  const session = await connectInspector(pid, port);
  await session.call('HeapProfiler.enable');
  await session.call('HeapProfiler.startSampling', { samplingInterval: intervalBytes });
  const stop = async (): Promise<{ profile: unknown; usedSize: number; totalSize: number }> => {
    try {
      for (let i = 0; i < 3; i++) await session.call('HeapProfiler.collectGarbage');
      const { profile } = (await session.call('HeapProfiler.stopSampling')) as { profile: unknown };
      const usage = (await session.call('Runtime.getHeapUsage')) as { usedSize: number; totalSize: number };
      return { profile, usedSize: usage.usedSize, totalSize: usage.totalSize };
    } finally {
      session.close();
    }
  };
  // What is sampled and not collected yet, without a collection first: a process about to
  // die of its heap limit has just run its last-resort collections itself.
  stop.current = async (): Promise<unknown> => ((await session.call('HeapProfiler.getSamplingProfile')) as { profile: unknown }).profile;
  return stop;
}

/** Stops heap sampling (see {@link startHeapSampling}); `current` reads the profile so far. */
export interface HeapSampling {
  (): Promise<{ profile: unknown; usedSize: number; totalSize: number }>;
  current(): Promise<unknown>;
}
