/**
 * Summary statistics for benchmark samples. Percentiles use the nearest-rank method on the
 * sorted samples, so every reported value is one that was actually observed.
 */

/** Distribution of a sample set (same unit as the samples). */
export interface Summary {
  n: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** The `p`-th percentile (0 < p <= 100) of ascending `sorted`, or NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

/** Summarises `values` (not modified). */
export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const sum = sorted.reduce((n, v) => n + v, 0);
  return {
    n: sorted.length,
    min: sorted[0] ?? Number.NaN,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean: sorted.length === 0 ? Number.NaN : sum / sorted.length,
  };
}

/** Median of `values`. */
export function median(values: readonly number[]): number {
  return summarize(values).p50;
}

/** Bytes to MB (10^6 bytes, the unit the targets are stated in), rounded to 0.1. */
export function mb(bytes: number): number {
  return Math.round((bytes / 1e6) * 10) / 10;
}

/** Rounds to `digits` decimals (for display and JSON). */
export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** `s` with every figure rounded to 0.01 (for the JSON details). */
export function roundSummary(s: Summary): Record<string, number> {
  return { n: s.n, p50: round(s.p50), p90: round(s.p90), p99: round(s.p99), max: round(s.max), mean: round(s.mean) };
}
