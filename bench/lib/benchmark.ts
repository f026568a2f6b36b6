/**
 * The contract between `bench/main.ts` and each benchmark in `bench/benchmarks/`.
 */
import type { Fixtures } from './fixtures.ts';
import type { Measurement } from './report.ts';
import type { Runtime } from './runtime.ts';

/** What a benchmark gets from the runner. */
export interface BenchContext {
  fixtures: Fixtures;
  /** How to start product code in child processes (compiled JavaScript or sources). */
  runtime: Runtime;
  /** A fresh directory for this benchmark, removed with the run's work directory. */
  workDir: string;
  /** Progress line on stderr. */
  log: (line: string) => void;
}

/** What a benchmark returns: judged figures plus the raw data behind them. */
export interface BenchOutcome {
  measurements: Measurement[];
  details: Record<string, unknown>;
  /** Set when this machine cannot run it (e.g. no local node): the reason, printed as a SKIP row. */
  skipped?: string;
}

/** One benchmark. `name` is what `--only` selects. */
export interface Benchmark {
  name: string;
  title: string;
  /** Run only when named (`--only`), not in a run of every benchmark (too long for it). */
  onDemand?: boolean;
  run(ctx: BenchContext): Promise<BenchOutcome>;
}
