/**
 * Closed-loop repetitions for the `metas` benchmark, and its large-answer case: 100 clients
 * asking for packages whose `/metas?package=` answer is ~1.1 MB (Fixtures.largePackages),
 * identity, against our server and, when OLMV1_BENCH_UPSTREAM_CATALOGD names upstream's storage
 * server (upstream-catalogd.ts), against upstream's, one repetition of each in turn.
 */
import type { BenchContext } from './benchmark.ts';
import { type CatalogServer, startCatalogServe } from './catalog-server.ts';
import { closedLoop } from './closed-loop.ts';
import { seededRandom, sleep } from './http-load.ts';
import { procCpuSeconds, procMemory } from './proc.ts';
import { type Measurement, type Target, measure } from './report.ts';
import { mb, median, round, roundSummary, summarize, type Summary } from './stats.ts';
import { startUpstreamCatalogd, upstreamCatalogdBinary } from './upstream-catalogd.ts';

/** One closed-loop run. */
export interface Rep {
  s: Summary;
  rps: number;
  mbps: number;
  bodyKiB: number;
  gzipShare: number;
  /** The server's CPU time (user + system) per answer, µs: less sensitive to other load on the machine than latency. */
  cpuUs: number;
}

/** How many clients, how long and how often. */
export interface LoopPlan {
  clients: number;
  /** Warm-up of the first run (connections, JIT, page cache). */
  warmupMs: number;
  /** Warm-up of the later runs (their new connections). */
  repWarmupMs: number;
  durationMs: number;
  reps: number;
}

/**
 * `plan.reps` closed-loop runs against the server `pid` at `origin` (the first after
 * `warmupMs`, the others after `repWarmupMs`); the server's CPU time is read when recording
 * starts and once the run is over. Fails on transport errors or non-200 answers.
 */
export async function closedLoopRuns(
  origin: string,
  pid: number,
  nextPath: () => string,
  headers: Readonly<Record<string, string>>,
  label: string,
  plan: LoopPlan,
): Promise<Rep[]> {
  const reps: Rep[] = [];
  for (let i = 0; i < plan.reps; i++) {
    const warmupMs = i === 0 ? plan.warmupMs : plan.repWarmupMs;
    let cpuAtStart = Number.NaN;
    const recording = setTimeout(() => (cpuAtStart = procCpuSeconds(pid) ?? Number.NaN), warmupMs);
    const r = await closedLoop({ origin, clients: plan.clients, warmupMs, durationMs: plan.durationMs, nextPath, headers: { ...headers } });
    clearTimeout(recording);
    const cpu = (procCpuSeconds(pid) ?? Number.NaN) - cpuAtStart;
    if (r.errors > 0 || r.non200 > 0) throw new Error(`${label}: ${r.errors} transport errors, ${r.non200} non-200 responses`);
    const seconds = r.elapsedMs / 1000;
    reps.push({
      s: summarize(r.latencies),
      rps: r.requests / seconds,
      mbps: r.bytes / seconds / 1e6,
      bodyKiB: r.bytes / r.requests / 1024,
      gzipShare: r.gzipShare,
      cpuUs: (cpu / r.requests) * 1e6,
    });
  }
  return reps;
}

// Issue 30's upstream figures for this case (real community catalog, ~1.1 MB answers, 100
// clients, identity): what ours must at least match when no upstream binary runs beside it.
const UPSTREAM_ANSWERS_PER_S = 1_057;
const UPSTREAM_P99_MS = 312;

/**
 * The large-answer case: `plan.reps` runs against ours, each followed by one against upstream's
 * when its binary is given (both servers up meanwhile, the idle one costing nothing). Rows:
 * answers/s, p50, p99 and server CPU per answer, ours judged against issue 30's upstream
 * figures, upstream's as context with ours / upstream.
 */
export async function largeAnswers(ctx: BenchContext, plan: LoopPlan): Promise<{ measurements: Measurement[]; details: Record<string, unknown> }> {
  const large = await ctx.fixtures.largePackages();
  const catalogs = { large: large.dir };
  const random = seededRandom(7);
  const nextPath = (): string =>
    `/catalogs/large/api/v1/metas?package=${encodeURIComponent(large.packages[Math.floor(random() * large.packages.length)] ?? '')}`;
  const binary = upstreamCatalogdBinary();
  ctx.log(
    `~1.1 MB answers: ${plan.clients} clients, identity, ${plan.reps} x ${plan.durationMs / 1000} s${binary === undefined ? '' : ', upstream in turn'}`,
  );
  const ours = await startCatalogServe(ctx.runtime, catalogs);
  let upstream: CatalogServer | undefined;
  const runs: { ours: Rep[]; upstream: Rep[] } = { ours: [], upstream: [] };
  const rss = { ours: emptyRss(), upstream: emptyRss() };
  try {
    if (binary !== undefined) upstream = await startUpstreamCatalogd(binary, ctx.workDir, catalogs);
    rss.ours.idle = rssOf(ours.pid);
    rss.upstream.idle = upstream === undefined ? Number.NaN : rssOf(upstream.pid);
    let oursEnded = 0;
    for (let i = 0; i < plan.reps; i++) {
      // Each side's first run gets the long warm-up, the others the short one.
      const one = { ...plan, reps: 1, warmupMs: i === 0 ? plan.warmupMs : plan.repWarmupMs };
      runs.ours.push(...(await closedLoopRuns(ours.origin, ours.pid, nextPath, {}, 'large answers', one)));
      rss.ours.loaded.push(rssOf(ours.pid));
      oursEnded = performance.now();
      if (upstream === undefined) continue;
      runs.upstream.push(...(await closedLoopRuns(upstream.origin, upstream.pid, nextPath, {}, 'upstream large answers', one)));
      rss.upstream.loaded.push(rssOf(upstream.pid));
    }
    // Ours drops the read buffers it keeps 10 s after the last answer (answer-buffers.ts).
    await sleep(Math.max(0, AFTER_LOAD_MS - (performance.now() - oursEnded)));
    rss.ours.after = rssOf(ours.pid);
    rss.upstream.after = upstream === undefined ? Number.NaN : rssOf(upstream.pid);
  } finally {
    await Promise.all([ours.stop(), upstream?.stop()]);
  }
  const measurements = [
    ...rows('~1.1 MB answers, identity', runs.ours, undefined, {
      rps: { op: '>=', value: UPSTREAM_ANSWERS_PER_S },
      p99: { op: '<=', value: UPSTREAM_P99_MS },
    }),
  ];
  measurements.push(rssRow('~1.1 MB answers: server RSS at the end of a run', rss.ours));
  if (runs.upstream.length > 0) {
    measurements.push(...rows('upstream, ~1.1 MB answers, identity', runs.upstream, runs.ours));
    measurements.push(rssRow('upstream, ~1.1 MB answers: server RSS at the end of a run', rss.upstream));
  }
  const detail = (reps: Rep[]): unknown[] =>
    reps.map((x) => ({ ...roundSummary(x.s), requestsPerSecond: round(x.rps), meanBodyKiB: round(x.bodyKiB), serverCpuUsPerAnswer: round(x.cpuUs) }));
  return {
    measurements,
    details: {
      packages: large.packages.length,
      catalogBytes: large.summary.bytes,
      ours: detail(runs.ours),
      upstream: detail(runs.upstream),
      rssMB: { ours: rssDetail(rss.ours), upstream: rssDetail(rss.upstream) },
    },
  };
}

/** A server's RSS, bytes: idle before the runs, at the end of each, and AFTER_LOAD_MS after its last. */
interface RssWatch {
  idle: number;
  loaded: number[];
  after: number;
}

// Read a little after ours drops its kept buffers (10 s after the last lease).
const AFTER_LOAD_MS = 11_000;

function emptyRss(): RssWatch {
  return { idle: Number.NaN, loaded: [], after: Number.NaN };
}

function rssOf(pid: number): number {
  return procMemory(pid)?.rss ?? Number.NaN;
}

function rssRow(label: string, w: RssWatch): Measurement {
  return measure(
    label,
    mb(median(w.loaded)),
    'MB',
    undefined,
    `median; idle before the runs ${mb(w.idle)} MB, ${AFTER_LOAD_MS / 1000} s after the last ${mb(w.after)} MB; no forced GC`,
  );
}

function rssDetail(w: RssWatch): Record<string, unknown> {
  return { idle: mb(w.idle), loaded: w.loaded.map(mb), after: mb(w.after) };
}

function rows(label: string, reps: Rep[], ours?: Rep[], targets: { rps?: Target; p99?: Target } = {}): Measurement[] {
  const med = (list: Rep[], f: (x: Rep) => number): number => median(list.map(f));
  const each = (f: (x: Rep) => number, digits: number): string => reps.map((x) => round(f(x), digits)).join(' / ');
  // Upstream's rows say how ours compares: ours / upstream of the same figure.
  const vs = (f: (x: Rep) => number, digits: number): string =>
    ours === undefined ? '' : `; ours / upstream ${round(med(ours, f) / med(reps, f), digits)}x`;
  const source = targets.rps === undefined ? '' : "; target: issue 30's upstream figure";
  return [
    measure(
      `${label}: answers/s`,
      med(reps, (x) => x.rps),
      'req/s',
      targets.rps,
      `mean body ${round(
        med(reps, (x) => x.bodyKiB),
        0,
      )} KiB, ${round(
        med(reps, (x) => x.mbps),
        0,
      )} MB/s; runs: ${each((x) => x.rps, 0)}${vs((x) => x.rps, 2)}${source}`,
    ),
    measure(
      `${label}: p50`,
      med(reps, (x) => x.s.p50),
      'ms',
      undefined,
      `runs: ${each((x) => x.s.p50, 1)} ms${vs((x) => x.s.p50, 2)}`,
    ),
    measure(
      `${label}: p99`,
      med(reps, (x) => x.s.p99),
      'ms',
      targets.p99,
      `runs: ${each((x) => x.s.p99, 1)} ms${vs((x) => x.s.p99, 2)}${source}`,
    ),
    measure(
      `${label}: server CPU per answer`,
      med(reps, (x) => x.cpuUs),
      'µs',
      undefined,
      `user + system, all threads; runs: ${each((x) => x.cpuUs, 0)}${vs((x) => x.cpuUs, 2)}`,
    ),
  ];
}
