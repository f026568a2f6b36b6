/**
 * The results model of `npm run bench` and its two renderings: the text table on stdout and
 * the JSON file written by `--json FILE`. A benchmark never fails the run for a missed target:
 * misses are marked MISS in the table and `"verdict": "MISS"` in the JSON.
 */
import { writeFile } from 'node:fs/promises';
import type { MachineInfo } from './machine.ts';

/** PASS/MISS against a target; INFO for figures reported without one. */
export type Verdict = 'PASS' | 'MISS' | 'INFO';

/** A bound the measured value must satisfy. */
export interface Target {
  op: '<=' | '>=';
  value: number;
}

/** One reported figure. */
export interface Measurement {
  metric: string;
  value: number;
  unit: string;
  target?: Target;
  verdict: Verdict;
  note?: string;
}

/** Everything one benchmark reports. */
export interface BenchmarkResult {
  name: string;
  title: string;
  status: 'ok' | 'error';
  error?: string;
  /** The machine cannot run it (the reason); no measurements. */
  skipped?: string;
  measurements: Measurement[];
  /** Raw figures behind the measurements (distributions, sizes, per-repetition values). */
  details: Record<string, unknown>;
  durationMs: number;
  /** Load average (1, 5, 15 min) when the benchmark started and ended. */
  load: { before: number[]; after: number[] };
}

/** A whole run. */
export interface BenchReport {
  startedAt: string;
  machine: MachineInfo;
  /** What the child processes ran: tsc-emitted JavaScript (as shipped) or the .ts sources. */
  runtime: string;
  loadAverageAtEnd: number[];
  results: BenchmarkResult[];
}

/** A measurement, judged against `target` when one is given. */
export function measure(metric: string, value: number, unit: string, target?: Target, note?: string): Measurement {
  const verdict: Verdict = target === undefined ? 'INFO' : meets(value, target) ? 'PASS' : 'MISS';
  return {
    metric,
    value: roundForDisplay(value),
    unit,
    verdict,
    ...(target === undefined ? {} : { target }),
    ...(note === undefined ? {} : { note }),
  };
}

/** Shorthand for an upper bound. */
export function atMost(value: number): Target {
  return { op: '<=', value };
}

function meets(value: number, t: Target): boolean {
  if (!Number.isFinite(value)) return false;
  return t.op === '<=' ? value <= t.value : value >= t.value;
}

function roundForDisplay(v: number): number {
  if (!Number.isFinite(v)) return v;
  const abs = Math.abs(v);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

/** The report as the text table printed on stdout. */
export function formatReport(report: BenchReport): string {
  const m = report.machine;
  const out: string[] = [
    `olmv1 benchmarks, ${report.startedAt}`,
    `node ${m.node} ${m.platform}, CPU ${m.cpuModel} x ${m.cores}, ${m.totalMemoryMiB} MiB RAM`,
    `load average (1/5/15 min): ${m.loadAverageAtStart.join(' / ')} at start, ${report.loadAverageAtEnd.join(' / ')} at end` +
      // The bench itself loads both cores; only load present before it started is other work.
      ((m.loadAverageAtStart[0] ?? 0) > m.cores * 0.5 ? '  (machine busy at start: figures are pessimistic)' : ''),
    `child processes run: ${report.runtime}`,
    '',
  ];
  const rows: string[][] = [['benchmark', 'metric', 'value', 'target', 'result', 'notes']];
  for (const r of report.results) {
    if (r.status === 'error') {
      rows.push([r.name, 'could not run', '', '', 'ERROR', r.error ?? 'failed']);
      continue;
    }
    if (r.skipped !== undefined) {
      rows.push([r.name, 'skipped', '', '', 'SKIP', r.skipped]);
      continue;
    }
    let first = true;
    for (const x of r.measurements) {
      const target = x.target === undefined ? '' : `${x.target.op} ${x.target.value} ${x.unit}`;
      const result = x.verdict === 'MISS' ? 'MISS <<<' : x.verdict === 'PASS' ? 'PASS' : '';
      rows.push([first ? r.name : '', x.metric, `${x.value} ${x.unit}`, target, result, x.note ?? '']);
      first = false;
    }
    rows.push(['', `(load ${r.load.before[0]} -> ${r.load.after[0]}, ${(r.durationMs / 1000).toFixed(1)} s)`, '', '', '', '']);
  }
  out.push(...table(rows));
  const all = report.results.flatMap((r) => r.measurements);
  const misses = all.filter((x) => x.verdict === 'MISS').length;
  const passes = all.filter((x) => x.verdict === 'PASS').length;
  const errors = report.results.filter((r) => r.status === 'error').length;
  out.push('', `${passes} targets met, ${misses} missed${errors > 0 ? `, ${errors} benchmark(s) failed to run` : ''}.`);
  return `${out.join('\n')}\n`;
}

function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  const fmt = (r: string[]): string =>
    r
      .map((c, i) => (i === 2 ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const [head, ...body] = rows;
  return head === undefined ? [] : [fmt(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(fmt)];
}

/** Writes the report as JSON (what `--json FILE` produces). */
export async function writeJsonReport(path: string, report: BenchReport): Promise<void> {
  await writeFile(path, `${JSON.stringify(report, null, 2)}\n`);
}
