/**
 * Gate: one evaluation of the cluster-upgrade gate's "deployed" and "verdict" steps
 * (pkg/operator-controller/upgradegate, decision 0046) over 10,000 installed extensions, in
 * process. The gate runs one evaluation per install change of any extension (coalesced by its
 * workqueue), so while thousands install or upgrade it runs several times a second, each time
 * over every extension: its cost per evaluation is what the cluster pays per install change.
 *
 * The extensions are frozen ClusterExtension objects as the informer hands them out, their
 * deployed releases served from memory (no API server: what is measured is the gate's own work;
 * each changed extension costs one release read besides, a LIST of its release Secrets).
 * First evaluation (every history read), then RUNS evaluations each with nothing changed and
 * with one extension's install changed (a new object, as the informer makes for every update).
 * Twice: a tenth of the bundles declaring `olm.maxOpenShiftVersion`, and all of them.
 *
 * Target: <= 5 ms an evaluation with one extension changed, at 10,000 (at ~12 install changes
 * a second, 6 % of a core).
 */
import { Registry } from 'prom-client';
import { pino } from 'pino';
import { parseClusterVersion } from '../../pkg/operator-controller/gating/index.ts';
import type { ReleaseSummary } from '../../pkg/operator-controller/release/index.ts';
import { deployedStep, gateMetrics, verdictStep } from '../../pkg/operator-controller/upgradegate/index.ts';
import { summaryOf } from '../../pkg/operator-controller/revisions/index.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import type { Benchmark, BenchContext, BenchOutcome } from '../lib/benchmark.ts';
import { atMost, measure, type Measurement } from '../lib/report.ts';
import { round, roundSummary, summarize } from '../lib/stats.ts';

const EXTENSIONS = Number(process.env['OLMV1_BENCH_GATE_EXTENSIONS'] ?? 10_000);
const WARMUP = 20;
const RUNS = 200;

/** An installed ClusterExtension as the informer caches it (frozen); `t` its Installed transition time. */
function extension(i: number, t: string): Readonly<KubeObject> {
  const name = `scale-${i}`;
  return Object.freeze({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: Object.freeze({ name, uid: `uid-${i}`, generation: 1 }),
    status: Object.freeze({
      install: { bundle: { name: `${name}.v1.0.0`, version: '1.0.0' } },
      conditions: [
        { type: 'Installed', status: 'True', reason: 'Succeeded', message: `Installed bundle ${name}.v1.0.0 successfully`, lastTransitionTime: t },
        { type: 'Progressing', status: 'True', reason: 'Succeeded', message: 'Desired state reached', lastTransitionTime: t },
        { type: 'Healthy', status: 'True', reason: 'Healthy', message: '', lastTransitionTime: t },
      ],
    }),
  });
}

/** The deployed release summary of extension `i`; every `declareEvery`th declares a maximum. */
function release(i: number, declareEvery: number): ReleaseSummary {
  const name = `scale-${i}`;
  const properties: unknown[] = [
    { type: 'olm.package', value: { packageName: name, version: '1.0.0' } },
    { type: 'olm.gvk', value: { group: `${name}.example.com`, kind: 'Widget', version: 'v1' } },
  ];
  if (i % declareEvery === 0) properties.push({ type: 'olm.maxOpenShiftVersion', value: '4.20' });
  return {
    extension: name,
    extensionUID: `uid-${i}`,
    revision: 1,
    status: 'deployed',
    bundle: { package: name, name: `${name}.v1.0.0`, version: '1.0.0', image: `registry.example/${name}:v1.0.0` },
    properties,
    description: 'Install complete',
  };
}

interface Scenario {
  firstMs: number;
  unchanged: number[];
  oneChanged: number[];
  reads: number;
}

async function scenario(declareEvery: number): Promise<Scenario> {
  const objects = Array.from({ length: EXTENSIONS }, (_, i) => extension(i, '2026-01-01T00:00:00Z'));
  const releases = new Map(objects.map((_, i) => [`scale-${i}`, release(i, declareEvery)]));
  let reads = 0;
  const deployed = deployedStep({
    releases: {
      installed: (name) => {
        reads++;
        const r = releases.get(name);
        return Promise.resolve(r === undefined ? undefined : summaryOf(r));
      },
    },
    extensions: { list: () => [...objects] },
  });
  const verdict = verdictStep({ metrics: gateMetrics(new Registry()) });
  const current = parseClusterVersion('4.18');
  if (!current.ok) throw new Error(current.error);
  const log = pino({ level: 'silent' });
  const evaluate = async (): Promise<number> => {
    const state = { log, signal: AbortSignal.timeout(60_000), current: current.value, deployed: [], extra: [] };
    const start = performance.now();
    await deployed.run(state);
    await verdict.run(state);
    const ms = performance.now() - start;
    if (state.deployed.length !== EXTENSIONS) throw new Error(`the gate saw ${state.deployed.length} of ${EXTENSIONS} deployed releases`);
    return ms;
  };
  const firstMs = await evaluate();
  const timed = async (change: (run: number) => void): Promise<number[]> => {
    const out: number[] = [];
    for (let run = 0; run < WARMUP + RUNS; run++) {
      change(run);
      const ms = await evaluate();
      if (run >= WARMUP) out.push(ms);
    }
    return out;
  };
  const unchanged = await timed(() => undefined);
  const before = reads;
  // Each run one extension's install changes: a new object with a new Installed transition time.
  const oneChanged = await timed((run) => {
    const i = (run * 7919) % EXTENSIONS;
    objects[i] = extension(i, new Date(Date.UTC(2026, 1, 1, 0, 0, run)).toISOString());
  });
  if (reads - before !== WARMUP + RUNS) throw new Error(`expected one release read per changed extension, got ${reads - before}`);
  return { firstMs, unchanged, oneChanged, reads };
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const measurements: Measurement[] = [];
  const details: Record<string, unknown> = { extensions: EXTENSIONS };
  for (const [label, every] of [
    ['a tenth declaring a maximum', 10],
    ['all declaring a maximum', 1],
  ] as const) {
    ctx.log(`${EXTENSIONS} extensions, ${label}`);
    const s = await scenario(every);
    const unchanged = summarize(s.unchanged);
    const changed = summarize(s.oneChanged);
    measurements.push(
      measure(
        `${EXTENSIONS} extensions, ${label}: evaluation with one install changed, median`,
        changed.p50,
        'ms',
        atMost(5),
        `p90 ${round(changed.p90)} ms; nothing changed ${round(unchanged.p50)} ms (p90 ${round(unchanged.p90)}); first evaluation ${round(s.firstMs, 0)} ms (${EXTENSIONS} histories read)`,
      ),
    );
    details[every === 1 ? 'allDeclare' : 'tenthDeclare'] = {
      firstMs: round(s.firstMs),
      unchanged: roundSummary(unchanged),
      oneChanged: roundSummary(changed),
    };
  }
  return { measurements, details };
}

/** The gate benchmark. */
export const gateBenchmark: Benchmark = { name: 'gate', title: 'cluster-upgrade gate: one evaluation over 10,000 extensions', run };
