/**
 * HTTP measurement for the serving benchmarks with Node's http client: one timed GET (headers,
 * first body byte, last byte) and an open-loop load generator. The closed loop, which saturates
 * the server, has a leaner client of its own (closed-loop.ts).
 *
 * Bodies are counted, not decoded: the figures are the server's, not a client's JSON parsing.
 */
import http, { type IncomingMessage } from 'node:http';

/** Timing of one request, milliseconds from the request start. */
export interface Timing {
  status: number;
  headersMs: number;
  firstByteMs: number;
  totalMs: number;
  bytes: number;
  contentEncoding: string;
}

/** Options of {@link timedGet}. */
export interface TimedGetOptions {
  agent: http.Agent;
  headers?: Record<string, string>;
  /** Called with the response once headers arrived (e.g. to pause reading). */
  onResponse?: (res: IncomingMessage) => void | Promise<void>;
}

/** GETs `url`, reading and counting the whole body. Rejects on transport errors. */
export function timedGet(url: URL, opts: TimedGetOptions): Promise<Timing> {
  const start = performance.now();
  return new Promise<Timing>((resolve, reject) => {
    const req = http.get(url, { agent: opts.agent, headers: opts.headers ?? {} }, (res) => {
      const headersMs = performance.now() - start;
      let firstByteMs = Number.NaN;
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        if (bytes === 0) firstByteMs = performance.now() - start;
        bytes += chunk.length;
      });
      res.once('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headersMs,
          firstByteMs,
          totalMs: performance.now() - start,
          bytes,
          contentEncoding: String(res.headers['content-encoding'] ?? 'identity'),
        }),
      );
      res.once('error', reject);
      void opts.onResponse?.(res);
    });
    req.once('error', reject);
  });
}

/** What a load run recorded (recorded phase only). */
export interface LoadResult {
  /** Latency of every recorded request (request start to last body byte), ms. */
  latencies: number[];
  requests: number;
  bytes: number;
  errors: number;
  /** Responses with a status other than 200. */
  non200: number;
  elapsedMs: number;
  /** Share of recorded responses that came gzip-encoded. */
  gzipShare: number;
}

/** Options of {@link openLoop}. */
export interface OpenLoopOptions {
  /** Requests started per second, independent of how fast responses come back. */
  ratePerSecond: number;
  warmupMs: number;
  durationMs: number;
  nextUrl: () => URL;
  agent: http.Agent;
  headers?: Record<string, string>;
}

/**
 * Starts requests on a fixed schedule (open loop), as many independent users would. Latency
 * is counted from each request's scheduled start, so a server that falls behind is charged for
 * the queueing it causes (no coordinated omission).
 */
export async function openLoop(opts: OpenLoopOptions): Promise<LoadResult> {
  const start = performance.now();
  const interval = 1000 / opts.ratePerSecond;
  const total = Math.floor(((opts.warmupMs + opts.durationMs) / 1000) * opts.ratePerSecond);
  const recordFrom = Math.floor((opts.warmupMs / 1000) * opts.ratePerSecond);
  const result: LoadResult = { latencies: [], requests: 0, bytes: 0, errors: 0, non200: 0, elapsedMs: opts.durationMs, gzipShare: 0 };
  let gzip = 0;
  const pending: Promise<void>[] = [];
  const fire = (i: number): void => {
    const due = start + i * interval;
    const record = i >= recordFrom;
    const request = timedGet(opts.nextUrl(), { agent: opts.agent, ...(opts.headers === undefined ? {} : { headers: opts.headers }) });
    pending.push(
      request.then(
        (t) => {
          if (!record) return;
          result.latencies.push(performance.now() - due);
          result.requests++;
          result.bytes += t.bytes;
          if (t.status !== 200) result.non200++;
          if (t.contentEncoding === 'gzip') gzip++;
        },
        () => {
          if (record) result.errors++;
        },
      ),
    );
  };
  // Fire every request that is due (never early), then sleep until the next one is.
  for (let i = 0; i < total;) {
    const now = performance.now();
    while (i < total && start + i * interval <= now) fire(i++);
    if (i < total) await sleep(Math.max(1, start + i * interval - performance.now()));
  }
  await Promise.all(pending);
  result.gzipShare = result.requests === 0 ? 0 : gzip / result.requests;
  return result;
}

/** A small seeded PRNG (mulberry32) so every run requests the same package sequence. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Sleeps `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
