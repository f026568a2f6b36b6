/**
 * Get-or-create helpers for prom-client metrics on an injected Registry: components (every
 * informer, every workqueue) share one family per name, which prom-client registers only once.
 */
import { Counter, Gauge, Histogram, type Registry } from '../metrics/index.ts';

/** The Counter named `name` on `registry`, created with `labelNames` when absent. */
export function counterOn<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[]): Counter<L> {
  const existing = registry.getSingleMetric(name);
  if (existing instanceof Counter) return existing as Counter<L>;
  if (existing !== undefined) throw new Error(`metric ${name} is already registered with another type`);
  return new Counter<L>({ name, help, labelNames, registers: [registry] });
}

/** The Gauge named `name` on `registry`, created with `labelNames` when absent. */
export function gaugeOn<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[]): Gauge<L> {
  const existing = registry.getSingleMetric(name);
  if (existing instanceof Gauge) return existing as Gauge<L>;
  if (existing !== undefined) throw new Error(`metric ${name} is already registered with another type`);
  return new Gauge<L>({ name, help, labelNames, registers: [registry] });
}

/** The Histogram named `name` on `registry`, created with `labelNames`/`buckets` when absent. */
export function histogramOn<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
  buckets: number[],
): Histogram<L> {
  const existing = registry.getSingleMetric(name);
  if (existing instanceof Histogram) return existing as Histogram<L>;
  if (existing !== undefined) throw new Error(`metric ${name} is already registered with another type`);
  return new Histogram<L>({ name, help, labelNames, buckets, registers: [registry] });
}

/** `count` buckets starting at `start`, each `factor` times the previous (Prometheus ExponentialBuckets). */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  const out: number[] = [];
  for (let i = 0, v = start; i < count; i++, v *= factor) out.push(v);
  return out;
}

/**
 * A gauge with at most one sample per object (label `name`): set by a subclass, removed when the
 * object goes, all removed when this replica stops reporting (leadership ended).
 */
export class NamedGauge {
  readonly #gauge: Gauge<'name'>;

  constructor(registry: Registry, metric: string, help: string) {
    this.#gauge = gaugeOn(registry, metric, help, ['name']);
  }

  /** Object `name`'s sample: `value`, or none when undefined. */
  protected sample(name: string, value: number | undefined): void {
    if (value === undefined) this.#gauge.remove({ name });
    else this.#gauge.set({ name }, value);
  }

  /** The object is gone. */
  forget(name: string): void {
    this.#gauge.remove({ name });
  }

  /** Leadership ended: another replica reports from now on. */
  reset(): void {
    this.#gauge.reset();
  }
}
