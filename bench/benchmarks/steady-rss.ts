/**
 * catalogd steady RSS with the ~60 MB three-catalog set: catalogd's content composition (store
 * with worker ingest + catalog server + metrics registry, bench/children/catalogd-content.ts)
 * in a child process ingests the three catalogs, serves a mix of queries, and reports RSS once
 * settled, before and after forced garbage collection (--expose-gc). The control plane
 * (kube client, informers, reconcilers) is not part of this composition; the module-baseline
 * child shows what loading it costs. A second child restarts on the same store (no ingest).
 * Last, the floor: a server built from the same libraries (node:http, pino, prom-client) with
 * no catalogd code, after the same kind of traffic (bench/children/server-floor.ts; decision
 * 0087).
 *
 * Target: <= 70 MB RSS while serving the three catalogs (issue 30: within twice upstream's
 * catalogd, 32-36 MB; upstream's catalogd-memory-usage alert fires at 75 MB).
 */
import http from 'node:http';
import { join } from 'node:path';
import type { Benchmark, BenchContext, BenchOutcome } from '../lib/benchmark.ts';
import { CATALOGD_ENVIRONMENT, CATALOGD_NODE_FLAGS } from '../../cmd/shared/node-flags.ts';
import { type BenchChild, type ChildMessage, forkChild } from '../lib/child.ts';
import type { CatalogFixture } from '../lib/fixtures.ts';
import { seededRandom, timedGet } from '../lib/http-load.ts';
import { settleRss } from '../lib/inspector.ts';
import type { ProcMemory } from '../lib/proc.ts';
import { atMost, measure, type Measurement } from '../lib/report.ts';
import { mb } from '../lib/stats.ts';

const QUERIES_PER_CATALOG = 100;
const GC_SETTLE_MS = 2_000;
// V8 keeps a terminated ingest worker's heap pages pooled for several seconds before its memory
// reducer releases them, so RSS is read only once it has stopped moving.
const SETTLE = { minMs: 15_000, maxMs: 60_000, windowMs: 5_000, toleranceBytes: 1e6 };

interface MemoryReply extends ChildMessage {
  memory: NodeJS.MemoryUsage;
  proc: ProcMemory | undefined;
  gcExposed: boolean;
}

/** Serves a realistic mix: package queries (identity and gzip), the package list, full downloads. */
async function exercise(origin: string, set: CatalogFixture[], names: string[]): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
  const random = seededRandom(7);
  let requests = 0;
  try {
    for (const [i, catalog] of set.entries()) {
      const base = `${origin}/catalogs/${names[i]}/api/v1`;
      const urls: Array<[string, Record<string, string>]> = [];
      for (let q = 0; q < QUERIES_PER_CATALOG; q++) {
        const pkg = catalog.packages[Math.floor(random() * catalog.packages.length)] ?? '';
        urls.push([`${base}/metas?package=${encodeURIComponent(pkg)}`, q % 2 === 0 ? {} : { 'accept-encoding': 'gzip' }]);
      }
      urls.push([`${base}/metas?schema=olm.package`, {}], [`${base}/all`, {}], [`${base}/all`, { 'accept-encoding': 'gzip' }]);
      // Ten at a time, as a handful of clients would.
      for (let k = 0; k < urls.length; k += 10) {
        const batch = urls.slice(k, k + 10).map(([u, headers]) => timedGet(new URL(u), { agent, headers }));
        for (const t of await Promise.all(batch)) {
          if (t.status !== 200) throw new Error(`query answered ${t.status}`);
          requests++;
        }
      }
    }
  } finally {
    agent.destroy();
  }
  return requests;
}

async function memory(child: BenchChild, gc: boolean): Promise<MemoryReply> {
  child.send({ type: 'memory', gc, settleMs: gc ? GC_SETTLE_MS : 0 });
  return child.next<MemoryReply>('memory');
}

interface Phase {
  requests: number;
  settleMs: number;
  settled: MemoryReply;
  afterGc: MemoryReply;
}

async function phase(ctx: BenchContext, root: string, set: CatalogFixture[], names: string[], ingest: boolean): Promise<Phase> {
  const args = [root, ...(ingest ? set.map((c, i) => `${names[i]}=${c.dir}`) : [])];
  const child = forkChild(ctx.runtime.entry('bench/children/catalogd-content.ts'), {
    args,
    execArgv: ['--expose-gc', ...CATALOGD_NODE_FLAGS],
    env: CATALOGD_ENVIRONMENT,
  });
  try {
    const ready = await child.next<ChildMessage & { origin: string }>('ready', 300_000);
    const requests = await exercise(ready.origin, set, names);
    const settleMs = await settleRss(child.pid, SETTLE);
    const settled = await memory(child, false);
    const afterGc = await memory(child, true);
    return { requests, settleMs, settled, afterGc };
  } finally {
    await child.stop();
  }
}

const FLOOR_REQUESTS = 300;

interface FloorReply extends ChildMessage {
  proc: ProcMemory | undefined;
  heapTotal: number;
}

/**
 * The floor under the figure: a server of the same libraries with no catalogd code
 * (bench/children/server-floor.ts), after FLOOR_REQUESTS requests from ten keep-alive clients.
 */
async function floor(ctx: BenchContext): Promise<FloorReply> {
  const child = forkChild(ctx.runtime.entry('bench/children/server-floor.ts'), {
    execArgv: ['--expose-gc', ...CATALOGD_NODE_FLAGS],
    env: CATALOGD_ENVIRONMENT,
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
  try {
    const { origin } = await child.next<ChildMessage & { origin: string }>('ready', 60_000);
    const url = new URL(`${origin}/catalogs/floor/api/v1/metas?package=floor`);
    for (let k = 0; k < FLOOR_REQUESTS; k += 10) {
      for (const t of await Promise.all(Array.from({ length: 10 }, () => timedGet(url, { agent })))) {
        if (t.status !== 200) throw new Error(`floor server answered ${t.status}`);
      }
    }
    agent.destroy();
    child.send({ type: 'memory' });
    return await child.next<FloorReply>('memory', 60_000);
  } finally {
    agent.destroy();
    await child.stop();
  }
}

function memoryDetails(r: MemoryReply): Record<string, number> {
  const m = r.memory;
  return {
    rssMB: mb(m.rss),
    rssAnonMB: mb(r.proc?.anon ?? Number.NaN),
    rssFileMB: mb(r.proc?.file ?? Number.NaN),
    heapTotalMB: mb(m.heapTotal),
    heapUsedMB: mb(m.heapUsed),
    externalMB: mb(m.external),
    arrayBuffersMB: mb(m.arrayBuffers),
  };
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const set = await ctx.fixtures.catalogSet();
  const names = set.map((_, i) => `catalog-${i + 1}`);
  const root = join(ctx.workDir, 'store');
  ctx.log('ingesting the three catalogs and serving queries');
  const fresh = await phase(ctx, root, set, names, true);
  ctx.log('restarting on the stored content');
  const restarted = await phase(ctx, root, set, names, false);
  const baselineChild = forkChild(ctx.runtime.entry('bench/children/module-baseline.ts'), {
    execArgv: ['--expose-gc', ...CATALOGD_NODE_FLAGS],
    env: CATALOGD_ENVIRONMENT,
  });
  let baseline: ChildMessage & { empty: ProcMemory | undefined; loaded: ProcMemory | undefined };
  try {
    baseline = await baselineChild.next('result');
  } finally {
    await baselineChild.stop();
  }
  ctx.log('measuring the floor: the same libraries with no catalogd code');
  const floorReply = await floor(ctx);
  const floorNote = (r: FloorReply): string =>
    `after ${FLOOR_REQUESTS.toLocaleString('en-US')} requests and forced GC; anon ${mb(r.proc?.anon ?? Number.NaN)} MB + file-backed ${mb(r.proc?.file ?? Number.NaN)} MB`;
  const gcNote = fresh.afterGc.gcExposed ? 'after forced GC' : 'GC not exposed';
  const anon = (r: MemoryReply): string => `anon ${mb(r.proc?.anon ?? Number.NaN)} MB + file-backed ${mb(r.proc?.file ?? Number.NaN)} MB`;
  const measurements: Measurement[] = [
    measure(
      'steady RSS: 3 catalogs ingested + served (no control plane)',
      mb(fresh.afterGc.memory.rss),
      'MB',
      atMost(70),
      `${gcNote}; ${anon(fresh.afterGc)}`,
    ),
    measure(
      '  same, settled without forced GC',
      mb(fresh.settled.memory.rss),
      'MB',
      undefined,
      `settled after ${Math.round(fresh.settleMs / 1000)} s; heap used ${mb(fresh.settled.memory.heapUsed)} MB`,
    ),
    measure('  after a restart on the stored content', mb(restarted.afterGc.memory.rss), 'MB', undefined, `${gcNote}; ${anon(restarted.afterGc)}`),
    measure(
      'node process, nothing loaded',
      mb(baseline.empty?.rss ?? Number.NaN),
      'MB',
      undefined,
      `file-backed ${mb(baseline.empty?.file ?? Number.NaN)} MB`,
    ),
    measure(
      "catalogd's modules loaded (incl. kube client), idle",
      mb(baseline.loaded?.rss ?? Number.NaN),
      'MB',
      undefined,
      'not in the figure above',
    ),
    measure(
      'floor: node:http + pino + prom-client, fixed answers, no catalogd code',
      mb(floorReply.proc?.rss ?? Number.NaN),
      'MB',
      undefined,
      floorNote(floorReply),
    ),
  ];
  return {
    measurements,
    details: {
      catalogs: set.map((c) => ({ bytes: c.summary.bytes, bundles: c.summary.bundles, packages: c.summary.packages })),
      requestsServed: fresh.requests,
      settleMs: { afterIngest: Math.round(fresh.settleMs), afterRestart: Math.round(restarted.settleMs) },
      afterIngest: { settled: memoryDetails(fresh.settled), afterGc: memoryDetails(fresh.afterGc) },
      afterRestart: { settled: memoryDetails(restarted.settled), afterGc: memoryDetails(restarted.afterGc) },
      moduleBaseline: {
        emptyRssMB: mb(baseline.empty?.rss ?? Number.NaN),
        emptyRssFileMB: mb(baseline.empty?.file ?? Number.NaN),
        loadedRssMB: mb(baseline.loaded?.rss ?? Number.NaN),
        loadedRssAnonMB: mb(baseline.loaded?.anon ?? Number.NaN),
      },
      floor: {
        rssMB: mb(floorReply.proc?.rss ?? Number.NaN),
        rssAnonMB: mb(floorReply.proc?.anon ?? Number.NaN),
        rssFileMB: mb(floorReply.proc?.file ?? Number.NaN),
        heapTotalMB: mb(floorReply.heapTotal),
      },
      controlPlane: 'not included: no kube client, informers, reconcilers or leader election in the measured process',
    },
  };
}

/** The catalogd steady-RSS benchmark. */
export const steadyRssBenchmark: Benchmark = { name: 'steady-rss', title: 'catalogd steady RSS, 3 catalogs (~60 MB)', run };
