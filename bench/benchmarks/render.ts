/**
 * Render: a registry+v1 bundle carrying 10 generated large CRDs (~100 KB of JSON each, about
 * 1 MB together; test/fixtures/bundles/large-crds.ts) plus its CSV, as bundle files. pkg/operator-controller/bundle
 * `parseBundle` decodes the files (CRDs as YAML, the usual form, and as indented JSON) and
 * pkg/operator-controller/render `render` turns the bundle into manifests for AllNamespaces. Warm: 3 warm-up runs,
 * then 15 timed; the first (cold) run is reported too.
 *
 * Target (brief): the bundle rendered in <= 100 ms, judged for `render` alone and for parse +
 * render of the YAML files (what a bundle unpack is followed by).
 */
import { dump } from 'js-yaml';
import { type BundleFiles, parseBundle } from '../../pkg/operator-controller/bundle/index.ts';
import { render } from '../../pkg/operator-controller/render/index.ts';
import { installModes, testBundle } from '../../test/fixtures/bundles/builder.ts';
import { largeCrd } from '../../test/fixtures/bundles/large-crds.ts';
import type { Benchmark, BenchContext, BenchOutcome } from '../lib/benchmark.ts';
import { atMost, measure, type Measurement } from '../lib/report.ts';
import { mb, round, roundSummary, summarize } from '../lib/stats.ts';

const CRDS = 10;
const CRD_BYTES = 100_000;
const WARMUP = 3;
const RUNS = 15;

function bundleFiles(format: 'yaml' | 'json'): { files: BundleFiles; bytes: number } {
  const crds = Array.from({ length: CRDS }, (_, i) => largeCrd(i, CRD_BYTES));
  const csv = testBundle({
    packageName: 'large',
    spec: {
      installModes: installModes('AllNamespaces'),
      customresourcedefinitions: { owned: crds.map((c, i) => ({ name: c.metadata.name, kind: `Thing${i}`, version: 'v1' })) },
    },
  }).csv;
  const enc = new TextEncoder();
  const files = new Map<string, Uint8Array>([
    ['metadata/annotations.yaml', enc.encode('annotations:\n  operators.operatorframework.io.bundle.package.v1: large\n')],
    ['manifests/large.clusterserviceversion.yaml', enc.encode(dump(csv))],
  ]);
  for (const [i, c] of crds.entries()) {
    files.set(`manifests/crd${i}.${format}`, enc.encode(format === 'yaml' ? dump(c, { lineWidth: -1 }) : JSON.stringify(c, null, 2)));
  }
  let bytes = 0;
  for (const f of files.values()) bytes += f.length;
  return { files, bytes };
}

interface Times {
  parse: number;
  render: number;
}

function once(files: BundleFiles): Times {
  const start = performance.now();
  const parsed = parseBundle(files);
  const mid = performance.now();
  if (!parsed.ok) throw new Error(`parseBundle: ${parsed.error}`);
  const rendered = render(parsed.value, { installNamespace: 'large-system' });
  const end = performance.now();
  if (!rendered.ok) throw new Error(`render: ${rendered.error.message}`);
  if (rendered.value.filter((o) => o.kind === 'CustomResourceDefinition').length !== CRDS) throw new Error('render lost CRDs');
  return { parse: mid - start, render: end - mid };
}

async function run(_ctx: BenchContext): Promise<BenchOutcome> {
  const measurements: Measurement[] = [];
  const details: Record<string, unknown> = {};
  for (const format of ['yaml', 'json'] as const) {
    const { files, bytes } = bundleFiles(format);
    const cold = once(files);
    for (let i = 1; i < WARMUP; i++) once(files);
    const runs: Times[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(once(files));
    const parse = summarize(runs.map((r) => r.parse));
    const rend = summarize(runs.map((r) => r.render));
    const both = summarize(runs.map((r) => r.parse + r.render));
    const label = format === 'yaml' ? 'CRDs as YAML' : 'CRDs as JSON';
    // The target is judged on the usual form (YAML); JSON is for comparison.
    const target = format === 'yaml' ? atMost(100) : undefined;
    measurements.push(
      measure(`${label}: render, median`, rend.p50, 'ms', target, `p90 ${round(rend.p90, 2)} ms`),
      measure(`${label}: parseBundle, median`, parse.p50, 'ms', undefined, `${mb(bytes)} MB of files`),
      measure(
        `${label}: parse + render, median`,
        both.p50,
        'ms',
        target,
        `p90 ${round(both.p90, 1)} ms; cold first run ${round(cold.parse + cold.render, 0)} ms`,
      ),
    );
    details[format] = {
      bytes,
      parse: roundSummary(parse),
      render: roundSummary(rend),
      total: roundSummary(both),
      cold: { parse: round(cold.parse), render: round(cold.render) },
    };
  }
  return { measurements, details };
}

/** The render benchmark. */
export const renderBenchmark: Benchmark = { name: 'render', title: 'render a bundle with 10 large CRDs (~1 MB)', run };
