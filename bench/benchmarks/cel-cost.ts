/**
 * What a unit of decision 0110's static CEL cost estimate takes in CPU time, so that the limits
 * (1,000,000 units a rule, 10,000,000 a resolution) bound operator-controller's time.
 *
 * Every hostile shape of test/fixtures/cel-shapes.ts on a grid of sizes, compiled as a catalog
 * rule is; each the estimate accepts is run on a 24-property candidate (the estimate taken on
 * that candidate), and its process CPU time (the least of three runs, so the machine's other
 * load does not count) divided by the units it paid. Then the two rules of issue 60: the CPU
 * time compiling them takes before they are refused.
 *
 * Targets: at most 100 ns a unit for the slowest shape (the bound decision 0110 rests on:
 * 1,000,000 units within 100 ms), each attack refused within 50 ms of CPU.
 */
import { parse } from '@bufbuild/cel';
import { CostBudget, DEFAULT_LIMITS, compileRule, estimateRule, measureProperties } from '../../pkg/operator-controller/dependencies/index.ts';
import { ALL_ATTACK, HOSTILE_SHAPES, MAP_ATTACK, SHAPE_PROPERTIES } from '../../test/fixtures/cel-shapes.ts';
import type { Benchmark, BenchOutcome } from '../lib/benchmark.ts';
import { atMost, measure } from '../lib/report.ts';
import { round } from '../lib/stats.ts';

const SIZES = [1, 10, 40, 120, 400];
/** Below this many units a run is mostly fixed set-up, not the rule: not judged per unit. */
const MIN_UNITS = 20_000;

/** The least process CPU time, in milliseconds, of `runs` calls of `f`. */
function cpuMs(f: () => unknown, runs: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const before = process.cpuUsage();
    f();
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

async function run(): Promise<BenchOutcome> {
  const size = measureProperties(SHAPE_PROPERTIES, DEFAULT_LIMITS.maxCandidateValues);
  if (size === undefined) throw new Error('the shapes candidate holds too many values');
  // The parser's and estimator's first uses are compiled by V8: warm them.
  compileRule(HOSTILE_SHAPES[0]?.(250, 20) ?? '', DEFAULT_LIMITS);
  const perShape: Record<string, { units: number; ms: number; nsPerUnit: number }> = {};
  let worst = { shape: -1, nsPerUnit: 0 };
  let runs = 0;
  HOSTILE_SHAPES.forEach((shape, i) => {
    for (const n of SIZES) {
      for (const m of SIZES) {
        const rule = shape(n, m);
        const compiled = compileRule(rule, DEFAULT_LIMITS);
        if (!compiled.ok) continue;
        const estimate = estimateRule(parse(rule).expr ?? fail(), size);
        if (!estimate.ok || estimate.value.cost > DEFAULT_LIMITS.maxRuleCost) continue;
        const units = estimate.value.cost;
        // Verdicts are kept per properties list: a fresh copy each run makes each run evaluate.
        const ms = cpuMs(() => compiled.value.test(SHAPE_PROPERTIES.slice(), new CostBudget(Number.MAX_SAFE_INTEGER)), 3);
        runs++;
        if (units < MIN_UNITS) continue;
        const nsPerUnit = (ms * 1e6) / units;
        perShape[`shape ${i} (${n}, ${m})`] = { units, ms: round(ms, 2), nsPerUnit: round(nsPerUnit, 1) };
        if (nsPerUnit > worst.nsPerUnit) worst = { shape: i, nsPerUnit };
      }
    }
  });
  const allMs = cpuMs(() => compileRule(ALL_ATTACK, DEFAULT_LIMITS), 3);
  const mapMs = cpuMs(() => compileRule(MAP_ATTACK, DEFAULT_LIMITS), 3);
  for (const attack of [ALL_ATTACK, MAP_ATTACK]) if (compileRule(attack, DEFAULT_LIMITS).ok) throw new Error('an attack of issue 60 was accepted');
  return {
    measurements: [
      measure('slowest accepted shape: CPU per unit of estimate', worst.nsPerUnit, 'ns', atMost(100), `shape ${worst.shape}; ${runs} rules run`),
      measure('issue 60 `all` attack refused after', allMs, 'ms CPU', atMost(50)),
      measure('issue 60 `map` attack refused after', mapMs, 'ms CPU', atMost(50)),
    ],
    details: { perShape, attacks: { all: round(allMs, 2), map: round(mapMs, 2) } },
  };
}

function fail(): never {
  throw new Error('unparsable shape');
}

export const celCostBenchmark: Benchmark = { name: 'cel-cost', title: 'CEL rules: CPU per unit of static estimate (decision 0110)', run };
