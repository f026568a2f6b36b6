/**
 * Resolution: the largest package (most bundles) of the 5,000-bundle catalog.
 * - warm: pkg/operator-controller/resolve `resolve(...)` on that package's partition (loaded with pkg/shared/fbc, cut
 *   with `packagePartition`), 30 warm-up runs then 300 timed ones, per scenario;
 * - end to end: pkg/operator-controller/catalogclient `getPackage` against the real `olmv1 catalog serve` in a child
 *   process (two /api/v1/metas queries, gzip, keep-alive), then `resolve`; the result must be
 *   the bundle the warm run chose.
 * The generated catalog's largest package is small (tens of bundles), so the same is reported
 * without targets for a generated single-package catalog of 1,000 bundles (a stress case).
 * Also without a target: how long refusing a 20 KB hostile version range takes (the parser is
 * regex-based; the unit test checks only that it is refused).
 *
 * Targets: <= 5 ms warm; <= 50 ms including the
 * load from a running catalog server.
 */
import { join } from 'node:path';
import { type CatalogClient, createCatalogClient } from '../../pkg/operator-controller/catalogclient/index.ts';
import { type DeclarativeConfig, loadFS } from '../../pkg/shared/fbc/index.ts';
import { type ResolveInput, checkVersionRange, packagePartition, resolve } from '../../pkg/operator-controller/resolve/index.ts';
import { generateCatalog } from '../../test/fixtures/generate/catalog.ts';
import { checkOver, withDependencies } from './resolution-dependencies.ts';
import { RequirementCache } from '../../pkg/operator-controller/dependencies/index.ts';
import type { Benchmark, BenchContext, BenchOutcome } from '../lib/benchmark.ts';
import { startCatalogServe } from '../lib/catalog-server.ts';
import { atMost, measure, type Measurement } from '../lib/report.ts';
import { round, roundSummary, summarize } from '../lib/stats.ts';

const WARMUP = 30;
const RUNS = 300;
const E2E_WARMUP = 5;
const E2E_RUNS = 40;

type Scenario = Omit<ResolveInput, 'packageName' | 'catalogs'>;

/** Time per call of `fn`, after warm-up. */
function timeRuns(fn: () => void, warmup: number, runs: number): number[] {
  for (let i = 0; i < warmup; i++) fn();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    out.push(performance.now() - start);
  }
  return out;
}

function largestPackage(cfg: DeclarativeConfig): string {
  const counts = new Map<string, number>();
  for (const b of cfg.bundles) counts.set(b.package, (counts.get(b.package) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? '';
}

/** Scenarios: no filter; the default channel; an upgrade from a bundle in the middle of it. */
function scenarios(partition: DeclarativeConfig): Array<[string, Scenario]> {
  const pkg = partition.packages[0];
  const channel = partition.channels.find((c) => c.name === pkg?.defaultChannel) ?? partition.channels[0];
  const entry = channel?.entries[Math.floor((channel.entries.length - 1) / 2)];
  const bundle = partition.bundles.find((b) => b.name === entry?.name);
  const version = bundle?.properties.find((p) => p.type === 'olm.package');
  const installedVersion = (version?.value as { version?: string } | undefined)?.version;
  const out: Array<[string, Scenario]> = [['no filters', {}]];
  if (channel !== undefined) out.push(['default channel', { channels: [channel.name] }]);
  if (bundle !== undefined && installedVersion !== undefined) {
    out.push(['upgrade from mid-channel', { installed: { name: bundle.name, version: installedVersion } }]);
  }
  return out;
}

/** getPackage + resolve through the server; throws when the outcome differs from `expected`. */
async function endToEnd(client: CatalogClient, base: string, packageName: string, expected: ReturnType<typeof resolve>, runs: number) {
  const input = (fbc: DeclarativeConfig): ResolveInput => ({ packageName, catalogs: [{ name: 'served', priority: 0, package: fbc }] });
  const fetchMs: number[] = [];
  const totalMs: number[] = [];
  for (let i = 0; i < E2E_WARMUP + runs; i++) {
    const start = performance.now();
    const fbc = await client.getPackage(base, packageName);
    const fetched = performance.now();
    const r = resolve(input(fbc));
    const done = performance.now();
    const same = r.ok && expected.ok ? r.value.bundle.name === expected.value.bundle.name : !r.ok && !expected.ok && r.error === expected.error;
    if (!same) throw new Error(`end-to-end resolution differs from the in-memory one: ${r.ok ? r.value.bundle.name : r.error}`);
    if (i < E2E_WARMUP) continue;
    fetchMs.push(fetched - start);
    totalMs.push(done - start);
  }
  return { total: summarize(totalMs), fetch: summarize(fetchMs) };
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const catalog = await ctx.fixtures.catalog();
  const cfg = await loadFS(catalog.dir);
  const packageName = largestPackage(cfg);
  const partition = packagePartition(cfg, packageName);
  const input = (s: Scenario, fbc: DeclarativeConfig): ResolveInput => ({
    packageName,
    catalogs: [{ name: 'operatorhub', priority: 0, package: fbc }],
    ...s,
  });
  const measurements: Measurement[] = [];
  const details: Record<string, unknown> = { package: packageName, bundles: partition.bundles.length, channels: partition.channels.length };
  const outcomes: Record<string, string> = {};

  for (const [label, s] of scenarios(partition)) {
    const r = resolve(input(s, partition));
    outcomes[label] = r.ok ? r.value.bundle.name : `error: ${r.error}`;
    const t = summarize(timeRuns(() => resolve(input(s, partition)), WARMUP, RUNS));
    measurements.push(measure(`warm, ${label}: median`, t.p50, 'ms', atMost(5), `p99 ${round(t.p99, 2)} ms`));
    details[`warm: ${label}`] = roundSummary(t);
  }
  details['outcomes'] = outcomes;

  // Dependencies (decision 0104): the same resolution with every bundle declaring requirements
  // that installed extensions and a served API meet; the winner must be the same bundle.
  const deps = withDependencies(cfg, partition);
  const plain = summarize(timeRuns(() => resolve(input({}, partition)), WARMUP, RUNS));
  const cache = new RequirementCache();
  const checked = () => resolve({ ...input({}, deps.partition), dependencies: checkOver(deps.candidates, cache) });
  const withDeps = checked();
  if (!withDeps.ok || withDeps.value.bundle.name !== outcomes['no filters'] || withDeps.value.passedOver.length > 0) {
    throw new Error(`resolution with dependencies chose ${withDeps.ok ? withDeps.value.bundle.name : withDeps.error}`);
  }
  const depT = summarize(timeRuns(checked, WARMUP, RUNS));
  // Cold: a fresh cache each time, so every declaration is parsed and its CEL rule compiled and run.
  const cold = summarize(
    timeRuns(() => resolve({ ...input({}, deps.partition), dependencies: checkOver(deps.candidates, new RequirementCache()) }), WARMUP, RUNS),
  );
  measurements.push(
    measure('warm, no filters, with dependencies met: median', depT.p50, 'ms', undefined, `p99 ${round(depT.p99, 2)} ms`),
    measure('  with dependencies / without (medians)', depT.p50 / plain.p50, 'x', atMost(2), `without: ${round(plain.p50, 3)} ms`),
    measure('  cold (declarations parsed, CEL compiled): median', cold.p50, 'ms', undefined, `p99 ${round(cold.p99, 2)} ms`),
  );
  details['warm: with dependencies'] = {
    ...roundSummary(depT),
    without: roundSummary(plain),
    cold: roundSummary(cold),
    installed: deps.candidates.length - 1,
  };
  details['scenarios'] = Object.fromEntries(scenarios(partition));

  // The version range parser is regex-based: a long hostile range (whitespace runs, then a
  // character no range allows) must be refused in time linear in its length.
  const hostile = `${'1   '.repeat(5000)}!`;
  if (checkVersionRange(hostile).ok) throw new Error('the hostile version range was accepted');
  const scan = summarize(timeRuns(() => checkVersionRange(hostile), 3, 30));
  measurements.push(measure('refusing a 20 KB hostile version range: median', scan.p50, 'ms', undefined, `p99 ${round(scan.p99, 2)} ms`));
  details['hostile version range'] = roundSummary(scan);

  ctx.log('generating a 1,000-bundle single-package catalog');
  const bigDir = join(ctx.workDir, 'big-package');
  await generateCatalog(bigDir, { seed: 3, bundles: 1000, packages: 1 });
  const bigCfg = await loadFS(bigDir);
  const bigName = largestPackage(bigCfg);
  const big = packagePartition(bigCfg, bigName);
  const bigInput = (s: Scenario, fbc: DeclarativeConfig): ResolveInput => ({
    packageName: bigName,
    catalogs: [{ name: 'served', priority: 0, package: fbc }],
    ...s,
  });
  for (const [label, s] of scenarios(big)) {
    const t = summarize(timeRuns(() => resolve(bigInput(s, big)), WARMUP, RUNS / 3));
    measurements.push(measure(`1,000 bundles, warm, ${label}: median`, t.p50, 'ms', undefined, `p99 ${round(t.p99, 2)} ms`));
    details[`1000 bundles warm: ${label}`] = roundSummary(t);
  }

  ctx.log('end to end through pkg/operator-controller/catalogclient and olmv1 catalog serve');
  const server = await startCatalogServe(ctx.runtime, { operatorhub: catalog.dir, big: bigDir });
  const client = createCatalogClient();
  try {
    const e2e = await endToEnd(client, server.baseURL('operatorhub'), packageName, resolve(input({}, partition)), E2E_RUNS);
    measurements.push(
      measure('load package from server + resolve: median', e2e.total.p50, 'ms', atMost(50), `p99 ${round(e2e.total.p99, 1)} ms`),
      measure('  of which getPackage (2 metas queries, decode, load)', e2e.fetch.p50, 'ms', undefined, `p99 ${round(e2e.fetch.p99, 1)} ms`),
    );
    const e2eBig = await endToEnd(client, server.baseURL('big'), bigName, resolve(bigInput({}, big)), E2E_RUNS / 4);
    measurements.push(
      measure('1,000 bundles: load from server + resolve: median', e2eBig.total.p50, 'ms', undefined, `getPackage ${round(e2eBig.fetch.p50, 0)} ms`),
    );
    details['endToEnd'] = { total: roundSummary(e2e.total), getPackage: roundSummary(e2e.fetch) };
    details['endToEnd1000'] = { total: roundSummary(e2eBig.total), getPackage: roundSummary(e2eBig.fetch), bundles: big.bundles.length };
  } finally {
    client.close();
    await server.stop();
  }
  return { measurements, details };
}

/** The resolution benchmark. */
export const resolutionBenchmark: Benchmark = { name: 'resolution', title: 'resolution of the largest package, warm and end to end', run };
