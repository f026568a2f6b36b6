/**
 * The `olmv1_extension_healthy` gauge: set by the health step (steps-health.ts) from the
 * Healthy condition, and cleared by the finalizers step (uninstall.ts) when the extension goes.
 */
import type { Registry } from 'prom-client';
import type { ConditionStatus } from '../../shared/api/index.ts';
import { gaugeOn } from '../../shared/kube/index.ts';

/** `olmv1_extension_healthy{name}`: 1 Healthy True, 0 False, no sample while Unknown or not installed. */
export class ExtensionHealthGauge {
  readonly #gauge;

  constructor(registry: Registry) {
    this.#gauge = gaugeOn(
      registry,
      'olmv1_extension_healthy',
      "1 when the ClusterExtension's workloads are available and its CRDs established (Healthy True), 0 when not; absent while unknown.",
      ['name'],
    );
  }

  /** Follows the Healthy condition's status. */
  set(extension: string, status: ConditionStatus): void {
    if (status === 'Unknown') this.#gauge.remove({ name: extension });
    else this.#gauge.set({ name: extension }, status === 'True' ? 1 : 0);
  }

  /** The extension is gone (deleted, or its finalizers ran). */
  forget(extension: string): void {
    this.#gauge.remove({ name: extension });
  }

  /** Leadership ended: another replica reports from now on. */
  reset(): void {
    this.#gauge.reset();
  }
}
