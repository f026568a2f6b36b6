/**
 * `/api/v1/all`: time to first byte and total time of full downloads of the 31 MB catalog from
 * the real `olmv1 catalog serve` in a child process, without and with `Accept-Encoding: gzip`
 * (served from the precompressed copy): requests 300 ms apart (independent clients), then back
 * to back (where V8 collecting the previous download's buffers can delay the next response).
 *
 * Streaming is verified from the outside, with a reader that stops for a second after the
 * headers: the verdict is what the server holds by then, the bytes it read (the file) and did
 * not write (to the socket), from the server child's /proc/PID/io. A server that buffers reads
 * the whole body meanwhile and holds all but what the socket buffers between the two took
 * (13 MB or more of the 29 MB body here); a streaming one stops reading when its socket is
 * full and holds a few read chunks. The server child's RSS (its kernel high-water mark, reset before
 * each download, and /proc samples every 5 ms) is context: it rises with buffers already sent
 * that V8 has not collected yet, by how much depends on whether the allocator reuses freed
 * memory (catalogd's settings return it to the system, so each read's buffer counts anew).
 *
 * Target: first byte <= 20 ms, streamed. The identity full download (issue 30: no slower than
 * upstream) is shown as the median of the spaced and of the back-to-back downloads; with
 * OLMV1_BENCH_UPSTREAM_CATALOGD naming upstream's storage server (bench/lib/upstream-catalogd.ts)
 * its downloads of the same catalog run in turn with ours.
 */
import http from 'node:http';
import type { Benchmark, BenchContext, BenchOutcome } from '../lib/benchmark.ts';
import { type CatalogServer, startCatalogServe } from '../lib/catalog-server.ts';
import { type Timing, sleep, timedGet } from '../lib/http-load.ts';
import { RssSampler, procIo, procMemory, resetPeak } from '../lib/proc.ts';
import { atMost, measure, type Measurement } from '../lib/report.ts';
import { mb, median, round, summarize } from '../lib/stats.ts';
import { startUpstreamCatalogd, upstreamCatalogdBinary } from '../lib/upstream-catalogd.ts';

const REPS = 7;
const PAUSE_MS = 1_000;
const GAP_MS = 300;
// What a streaming server may hold for a stalled reader: a few 64 KiB read chunks and the
// stream buffers between file and socket, with a wide margin; buffering holds 13 MB or more.
const HELD_MAX_MB = 4;

interface Download {
  timing: Timing;
  /** Server RSS growth over its RSS just before the request, bytes. */
  rssGrowth: number;
  /** Growth while the reader was paused (only with a pause), bytes. */
  pausedGrowth: number;
  /** Bytes the server had read but not written to the socket at the end of the pause. */
  readAhead: number;
}

/** One download while watching the server's memory; with `pauseMs` the reader stops after the headers. */
async function download(url: URL, pid: number, agent: http.Agent, headers: Record<string, string>, pauseMs = 0): Promise<Download> {
  const before = procMemory(pid)?.rss ?? Number.NaN;
  const reset = resetPeak(pid);
  const sampler = new RssSampler(5, pid);
  const peak = (): number => Math.max(sampler.max, reset ? (procMemory(pid)?.hwm ?? 0) : 0);
  let pausedGrowth = Number.NaN;
  let readAhead = Number.NaN;
  const ioBefore = procIo(pid);
  const timing = await timedGet(url, {
    agent,
    headers,
    onResponse: async (res) => {
      if (pauseMs === 0) return;
      res.pause();
      await sleep(pauseMs);
      sampler.sample();
      pausedGrowth = peak() - before;
      // What the server read (the file) and has not written (to the socket): what it holds.
      const io = procIo(pid);
      if (io !== undefined && ioBefore !== undefined) readAhead = io.read - ioBefore.read - (io.written - ioBefore.written);
      res.resume();
    },
  });
  sampler.stop();
  return { timing, rssGrowth: peak() - before, pausedGrowth, readAhead };
}

/**
 * A server under test: ours; upstream's when OLMV1_BENCH_UPSTREAM_CATALOGD names it; and, for
 * identity downloads, the Node floor (bench/children/bare-all-server.ts).
 */
interface Side {
  name: 'ours' | 'upstream' | 'floor';
  pid: number;
  url: URL;
  agent: http.Agent;
}

/** Spaced and back-to-back downloads of one coding. */
interface Series {
  runs: Download[];
  backToBack: Download[];
}

/**
 * For each side: a warm-up download, then REPS spaced downloads (the sides in turn, GAP_MS
 * before each), then REPS back to back per side.
 */
async function series(sides: Side[], headers: Record<string, string>): Promise<Series[]> {
  for (const side of sides) await download(side.url, side.pid, side.agent, headers); // warm-up: file cache, JIT, connection
  const out: Series[] = sides.map(() => ({ runs: [], backToBack: [] }));
  for (let i = 0; i < REPS; i++) {
    for (const [k, side] of sides.entries()) {
      await sleep(GAP_MS);
      out[k]?.runs.push(await download(side.url, side.pid, side.agent, headers));
    }
  }
  for (const [k, side] of sides.entries()) {
    for (let i = 0; i < REPS; i++) out[k]?.backToBack.push(await download(side.url, side.pid, side.agent, headers));
  }
  return out;
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const catalog = await ctx.fixtures.catalog();
  ctx.log('starting olmv1 catalog serve');
  const server = await startCatalogServe(ctx.runtime, { operatorhub: catalog.dir });
  const binary = upstreamCatalogdBinary();
  let upstream: CatalogServer | undefined;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const url = new URL(`${server.baseURL('operatorhub')}/api/v1/all`);
  const sides: Side[] = [{ name: 'ours', pid: server.pid, url, agent }];
  const measurements: Measurement[] = [];
  const details: Record<string, unknown> = {};
  let floor: CatalogServer | undefined;
  try {
    ctx.log('starting the Node floor (bench/children/bare-all-server.ts)');
    floor = await startCatalogServe(ctx.runtime, { operatorhub: catalog.dir }, [ctx.runtime.entry('bench/children/bare-all-server.ts')]);
    const floorSide: Side = {
      name: 'floor',
      pid: floor.pid,
      url: new URL(`${floor.baseURL('operatorhub')}/api/v1/all`),
      agent: new http.Agent({ keepAlive: true }),
    };
    if (binary !== undefined) {
      ctx.log('starting upstream catalogd (OLMV1_BENCH_UPSTREAM_CATALOGD)');
      upstream = await startUpstreamCatalogd(binary, ctx.workDir, { operatorhub: catalog.dir });
      sides.push({
        name: 'upstream',
        pid: upstream.pid,
        url: new URL(`${upstream.baseURL('operatorhub')}/api/v1/all`),
        agent: new http.Agent({ keepAlive: true }),
      });
    }
    for (const [label, headers] of [
      ['identity', {}],
      ['gzip', { 'accept-encoding': 'gzip' }],
    ] as const) {
      const withFloor = label === 'identity';
      ctx.log(`${REPS} downloads, ${label}${upstream === undefined ? '' : ', ours and upstream in turn'}${withFloor ? ', and the Node floor' : ''}`);
      const all = await series(withFloor ? [...sides, floorSide] : sides, headers);
      const ours = all[0];
      const theirs = upstream === undefined ? undefined : all[1];
      const bare = withFloor ? all.at(-1) : undefined;
      if (ours === undefined) throw new Error('no downloads');
      const { runs, backToBack } = ours;
      const bytes = runs[0]?.timing.bytes ?? 0;
      if ([...runs, ...backToBack].some((r) => r.timing.status !== 200 || r.timing.bytes !== bytes))
        throw new Error(`${label}: unexpected status or size`);
      const total = median(runs.map((r) => r.timing.totalMs));
      const totalBusy = median(backToBack.map((r) => r.timing.totalMs));
      const ttfb = summarize(runs.map((r) => r.timing.firstByteMs));
      const ttfbBusy = summarize(backToBack.map((r) => r.timing.firstByteMs));
      const growth = [...runs, ...backToBack].map((r) => r.rssGrowth);
      measurements.push(
        measure(`${label}: time to first byte, median`, ttfb.p50, 'ms', atMost(20), `max ${round(ttfb.max, 1)} ms; requests ${GAP_MS} ms apart`),
        measure(
          `${label}: time to first byte, back to back`,
          ttfbBusy.p50,
          'ms',
          undefined,
          `max ${round(ttfbBusy.max, 1)} ms; next request as soon as the last ended`,
        ),
        measure(
          `${label}: full download, median`,
          total,
          'ms',
          undefined,
          `${mb(bytes)} MB, ${round(bytes / total / 1000, 0)} MB/s; requests ${GAP_MS} ms apart; fastest ${round(Math.min(...runs.map((r) => r.timing.totalMs)), 1)} ms`,
        ),
        measure(
          `${label}: full download, back to back, median`,
          totalBusy,
          'ms',
          undefined,
          `fastest ${round(Math.min(...backToBack.map((r) => r.timing.totalMs)), 1)} ms; Node's http client reading, as the spaced row`,
        ),
        // Read buffers already sent stay until V8 collects them, so this varies with GC timing.
        measure(
          `${label}: server RSS growth during a download`,
          mb(median(growth)),
          'MB',
          undefined,
          `median; max ${mb(Math.max(...growth))} MB (unreclaimed buffers)`,
        ),
      );
      if (theirs !== undefined) measurements.push(...upstreamRows(label, ours, theirs));
      if (bare !== undefined) measurements.push(...floorRows(label, ours, bare));
      details[label] = {
        bytes,
        firstByteMs: runs.map((r) => round(r.timing.firstByteMs)),
        firstByteBackToBackMs: backToBack.map((r) => round(r.timing.firstByteMs)),
        totalMs: runs.map((r) => round(r.timing.totalMs)),
        totalBackToBackMs: backToBack.map((r) => round(r.timing.totalMs)),
        rssGrowthMB: growth.map((g) => mb(g)),
        ...(theirs === undefined
          ? {}
          : {
              upstream: {
                totalMs: theirs.runs.map((r) => round(r.timing.totalMs)),
                totalBackToBackMs: theirs.backToBack.map((r) => round(r.timing.totalMs)),
              },
            }),
        ...(bare === undefined
          ? {}
          : {
              floor: {
                totalMs: bare.runs.map((r) => round(r.timing.totalMs)),
                totalBackToBackMs: bare.backToBack.map((r) => round(r.timing.totalMs)),
              },
            }),
      };
    }
    ctx.log(`slow client: pauses ${PAUSE_MS} ms after the headers`);
    const slow = await download(url, server.pid, agent, {}, PAUSE_MS);
    measurements.push(
      measure(
        'paused reader: read by the server, not yet sent',
        mb(slow.readAhead),
        'MB',
        atMost(HELD_MAX_MB),
        `reader paused ${PAUSE_MS} ms after the headers`,
      ),
      measure('  server RSS growth during the pause', mb(slow.pausedGrowth), 'MB', undefined, 'context: sent buffers not collected yet'),
    );
    details['pausedClient'] = {
      bytes: slow.timing.bytes,
      totalMs: round(slow.timing.totalMs),
      readAheadMB: mb(slow.readAhead),
      pausedGrowthMB: mb(slow.pausedGrowth),
      wholeDownloadGrowthMB: mb(slow.rssGrowth),
    };
  } finally {
    for (const side of sides) side.agent.destroy();
    await Promise.all([server.stop(), upstream?.stop(), floor?.stop()]);
  }
  return { measurements, details };
}

/** Upstream's full downloads beside ours: the spaced and back-to-back medians, with ours / upstream. */
function upstreamRows(label: string, ours: Series, theirs: Series): Measurement[] {
  if (theirs.runs.some((r) => r.timing.status !== 200)) throw new Error(`upstream ${label}: unexpected status`);
  const totals = (s: Series): [number, number] => [median(s.runs.map((r) => r.timing.totalMs)), median(s.backToBack.map((r) => r.timing.totalMs))];
  const [oursSpaced, oursBusy] = totals(ours);
  const [spaced, busy] = totals(theirs);
  return [
    measure(
      `upstream, ${label}: full download, median`,
      spaced,
      'ms',
      undefined,
      `ours / upstream ${round(oursSpaced / spaced, 2)}x; requests in turn with ours`,
    ),
    measure(`upstream, ${label}: full download, back to back, median`, busy, 'ms', undefined, `ours / upstream ${round(oursBusy / busy, 2)}x`),
  ];
}

/**
 * The Node floor's full downloads beside ours (bench/children/bare-all-server.ts: the catalog in
 * memory, one write): what is left of ours' time once its file reads and streaming are gone.
 */
function floorRows(label: string, ours: Series, bare: Series): Measurement[] {
  if ([...bare.runs, ...bare.backToBack].some((r) => r.timing.status !== 200 || r.timing.bytes !== ours.runs[0]?.timing.bytes)) {
    throw new Error(`floor ${label}: unexpected status or size`);
  }
  const totals = (s: Series): [number, number] => [median(s.runs.map((r) => r.timing.totalMs)), median(s.backToBack.map((r) => r.timing.totalMs))];
  const [oursSpaced, oursBusy] = totals(ours);
  const [spaced, busy] = totals(bare);
  return [
    measure(
      `Node floor, ${label}: full download, median`,
      spaced,
      'ms',
      undefined,
      `ours / floor ${round(oursSpaced / spaced, 2)}x; bare node:http, the body in memory, one write; fastest ${round(Math.min(...bare.runs.map((r) => r.timing.totalMs)), 1)} ms`,
    ),
    measure(`Node floor, ${label}: full download, back to back, median`, busy, 'ms', undefined, `ours / floor ${round(oursBusy / busy, 2)}x`),
  ];
}

/** The /api/v1/all benchmark. */
export const allBenchmark: Benchmark = { name: 'all', title: '/api/v1/all full downloads, streamed', run };
