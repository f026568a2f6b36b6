/**
 * The health step, after apply: the `Healthy` condition and the `olmv1_extension_healthy`
 * gauge from the verdicts the drift watches keep on the release's workloads and CRDs
 * (health.ts). It makes no API request: the watches already cache each object's verdict, and
 * a change of one queues the reconcile that brings the condition up to date.
 *
 * Right after an install the new watches have not listed yet (Unknown, NotObserved); their
 * first list queues the next reconcile, which names the workloads whose controllers have not
 * reported on them yet (False), until their status says they are available. Right after an
 * upgrade the caches may still hold the previous objects for a moment; the watch event of the
 * new object queues the reconcile that corrects the condition.
 */
import type { Registry } from 'prom-client';
import { HealthConditionType, type ConditionStatus } from '../../shared/api/index.ts';
import type { Step, StepOutcome } from '../../shared/controller/index.ts';
import { gaugeOn } from '../../shared/kube/index.ts';
import type { DriftTracker } from './drift-watches.ts';
import { healthVerdict } from './health.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { setCondition } from './status.ts';

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

/** What the health step uses. */
export interface HealthPorts {
  drift: Pick<DriftTracker, 'health'>;
  gauge: Pick<ExtensionHealthGauge, 'set'>;
}

/** Sets Healthy (and the gauge) from the drift watches' verdicts on the deployed release. */
export function healthStep(ports: HealthPorts): Step<ExtensionState> {
  // Always: a reconcile that stops early (waiting for permissions, a failed resolution or pull,
  // a refused upgrade) still reports the health of what is deployed.
  return { name: 'health', always: true, run: (state) => reportHealth(ports, state) };
}

function reportHealth(ports: HealthPorts, state: ExtensionState): StepOutcome {
  // Nothing deployed (status.install follows the deployed revision), or being deleted: no health to report.
  if (state.ce.status?.install === undefined || state.ce.metadata.deletionTimestamp !== undefined) return undefined;
  const verdict = healthVerdict(ports.drift.health(state.name));
  setCondition(state.ce, HealthConditionType.Healthy, verdict.status, verdict.reason, verdict.message);
  ports.gauge.set(state.name, verdict.status);
  return undefined;
}
