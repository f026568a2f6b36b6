/**
 * Memory of a product process read from outside, and a forced collection in it without
 * `--expose-gc` or IPC: the child is started with `--inspect-port=127.0.0.1:PORT` (which does
 * nothing by itself), SIGUSR1 then activates Node's inspector on that port and the DevTools
 * protocol's `HeapProfiler.collectGarbage` runs full collections. The inspector costs a few MB
 * once active, so floors measured beside such a process get the same treatment.
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
  error?: { message: string };
}

/**
 * Activates the inspector of `pid` (listening on `port`, see the module comment) and runs
 * `rounds` full collections through it; waits `settleMs` afterwards. Throws when the
 * inspector does not answer.
 */
export async function forceGc(pid: number, port: number, rounds = 3, settleMs = 2_000): Promise<void> {
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
  try {
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener('open', () => resolve(), { once: true });
      ws.addEventListener('error', () => reject(new Error(`inspector connection to process ${pid} failed`)), { once: true });
    });
    for (let id = 1; id <= rounds; id++) {
      const reply = new Promise<CdpReply>((resolve) => {
        const on = (ev: MessageEvent): void => {
          const msg = JSON.parse(String(ev.data)) as CdpReply;
          if (msg.id !== id) return;
          ws.removeEventListener('message', on);
          resolve(msg);
        };
        ws.addEventListener('message', on);
      });
      ws.send(JSON.stringify({ id, method: 'HeapProfiler.collectGarbage' }));
      const msg = await reply;
      if (msg.error !== undefined) throw new Error(`HeapProfiler.collectGarbage: ${msg.error.message}`);
    }
  } finally {
    ws.close();
  }
  await sleep(settleMs);
}
