/**
 * The `olmv1_extension_healthy` gauge: set by the health step (steps-health.ts) from the
 * Healthy condition, and cleared by the finalizers step (uninstall.ts) when the extension goes.
 */
import type { Registry } from 'prom-client';
import type { ConditionStatus } from '../../shared/api/index.ts';
import { NamedGauge } from '../../shared/kube/index.ts';

/** `olmv1_extension_healthy{name}`: 1 Healthy True, 0 False, no sample while Unknown or not installed. */
export class ExtensionHealthGauge extends NamedGauge {
  constructor(registry: Registry) {
    super(
      registry,
      'olmv1_extension_healthy',
      "1 when the ClusterExtension's workloads are available and its CRDs established (Healthy True), 0 when not; absent while unknown.",
    );
  }

  /** Follows the Healthy condition's status. */
  set(extension: string, status: ConditionStatus): void {
    this.sample(extension, status === 'Unknown' ? undefined : status === 'True' ? 1 : 0);
  }
}
