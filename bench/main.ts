/**
 * `npm run bench [-- --only NAME ...] [--json FILE] [--keep]`: runs the benchmark suite
 * against the real product code and prints each figure next to its target. Missed targets are
 * marked MISS but do not fail the run (exit 0); exit 1 means a benchmark could not run,
 * exit 2 a usage error. Progress goes to stderr, the table to stdout. See bench/README.md.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { allBenchmark } from './benchmarks/all.ts';
import { celCostBenchmark } from './benchmarks/cel-cost.ts';
import { consoleBenchmark } from './benchmarks/console.ts';
import { extensionsBenchmark } from './benchmarks/extensions.ts';
import { gateBenchmark } from './benchmarks/gate.ts';
import { hostileBenchmark } from './benchmarks/hostile.ts';
import { inClusterBenchmark } from './benchmarks/in-cluster.ts';
import { ingestBenchmark } from './benchmarks/ingest.ts';
import { metasBenchmark } from './benchmarks/metas.ts';
import { rbacFloorBenchmark } from './benchmarks/rbac-floor.ts';
import { renderBenchmark } from './benchmarks/render.ts';
import { requestsBenchmark } from './benchmarks/requests.ts';
import { burstBenchmark } from './benchmarks/burst.ts';
import { resolutionBenchmark } from './benchmarks/resolution.ts';
import { runtimes1000Benchmark, runtimesBenchmark } from './benchmarks/runtimes.ts';
import { scale1000Benchmark, scale10000Benchmark, scaleBenchmark } from './benchmarks/scale.ts';
import { startupBenchmark } from './benchmarks/startup.ts';
import { steadyRssBenchmark } from './benchmarks/steady-rss.ts';
import { uninstallBenchmark } from './benchmarks/uninstall.ts';
import { watchIdleBenchmark } from './benchmarks/watch-idle.ts';
import { webhookServingBenchmark } from './benchmarks/webhook-serving.ts';
import type { Benchmark } from './lib/benchmark.ts';
import { Fixtures } from './lib/fixtures.ts';
import { loadAverage, machineInfo } from './lib/machine.ts';
import { type BenchReport, type BenchmarkResult, formatReport, writeJsonReport } from './lib/report.ts';
import { type Runtime, compiledRuntime, sourceRuntime } from './lib/runtime.ts';

const BENCHMARKS: readonly Benchmark[] = [
  ingestBenchmark,
  metasBenchmark,
  allBenchmark,
  steadyRssBenchmark,
  resolutionBenchmark,
  celCostBenchmark,
  renderBenchmark,
  extensionsBenchmark,
  hostileBenchmark,
  scaleBenchmark,
  startupBenchmark,
  scale1000Benchmark,
  scale10000Benchmark,
  requestsBenchmark,
  burstBenchmark,
  watchIdleBenchmark,
  inClusterBenchmark,
  webhookServingBenchmark,
  uninstallBenchmark,
  runtimesBenchmark,
  runtimes1000Benchmark,
  rbacFloorBenchmark,
  gateBenchmark,
  consoleBenchmark,
];

const HELP = `Usage: npm run bench -- [--only NAME]... [--json FILE] [--source] [--keep] [--list]

Runs the benchmarks and prints measured values next to their targets (MISS marks a miss;
the exit code stays 0). Benchmarks: ${BENCHMARKS.map((b) => b.name).join(', ')}.

  --only NAME   run only this benchmark (repeatable; the only way to run an on-demand one)
  --json FILE   also write the results as JSON to FILE
  --source      run child processes from the .ts sources instead of tsc-emitted JavaScript
  --keep        keep the work directory (generated catalogs, stores) for inspection
  --list        list the benchmarks and exit
`;

function log(line: string): void {
  process.stderr.write(`[bench] ${line}\n`);
}

async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      options: {
        only: { type: 'string', multiple: true },
        json: { type: 'string' },
        keep: { type: 'boolean' },
        source: { type: 'boolean' },
        list: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (args.help === true) {
    process.stdout.write(HELP);
    return 0;
  }
  if (args.list === true) {
    for (const b of BENCHMARKS) process.stdout.write(`${b.name.padEnd(12)} ${b.title}\n`);
    return 0;
  }
  const only = args.only ?? [];
  const unknown = only.filter((n) => !BENCHMARKS.some((b) => b.name === n));
  if (unknown.length > 0) {
    process.stderr.write(`unknown benchmark(s): ${unknown.join(', ')}\n\n${HELP}`);
    return 2;
  }
  const selected = only.length === 0 ? BENCHMARKS.filter((b) => b.onDemand !== true) : BENCHMARKS.filter((b) => only.includes(b.name));

  const workDir = await mkdtemp(join(tmpdir(), 'olmv1-bench-'));
  const fixtures = new Fixtures({ workDir, env: process.env, log });
  const report: BenchReport = { startedAt: new Date().toISOString(), machine: machineInfo(), runtime: '', loadAverageAtEnd: [], results: [] };
  log(`work directory ${workDir}; load average ${report.machine.loadAverageAtStart.join(' / ')}`);
  try {
    const runtime = args.source === true ? sourceRuntime() : await compiledRuntime(workDir, log);
    report.runtime =
      runtime.kind === 'compiled'
        ? 'JavaScript emitted by tsc (as shipped)'
        : `TypeScript sources via type stripping${runtime.note === undefined ? '' : ` (${runtime.note})`}`;
    for (const b of selected) report.results.push(await runOne(b, fixtures, runtime, workDir));
  } finally {
    await fixtures.close();
    if (args.keep === true) log(`kept ${workDir}`);
    else await rm(workDir, { recursive: true, force: true });
  }
  report.loadAverageAtEnd = loadAverage();
  process.stdout.write(formatReport(report));
  if (args.json !== undefined) {
    await writeJsonReport(args.json, report);
    log(`wrote ${args.json}`);
  }
  return report.results.some((r) => r.status === 'error') ? 1 : 0;
}

async function runOne(b: Benchmark, fixtures: Fixtures, runtime: Runtime, workDir: string): Promise<BenchmarkResult> {
  const before = loadAverage();
  const start = performance.now();
  log(`${b.name}: ${b.title}`);
  const dir = join(workDir, `bench-${b.name}`);
  await mkdir(dir, { recursive: true });
  try {
    const out = await b.run({ fixtures, runtime, workDir: dir, log: (line) => log(`${b.name}: ${line}`) });
    return { name: b.name, title: b.title, status: 'ok', ...out, durationMs: performance.now() - start, load: { before, after: loadAverage() } };
  } catch (err) {
    log(`${b.name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    const message = err instanceof Error ? (err.message.split('\n')[0] ?? err.message) : String(err);
    return {
      name: b.name,
      title: b.title,
      status: 'error',
      error: message,
      measurements: [],
      details: {},
      durationMs: performance.now() - start,
      load: { before, after: loadAverage() },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main(process.argv.slice(2));
