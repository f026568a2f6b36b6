/**
 * The health step, after apply: the `Healthy` condition and the `olmv1_extension_healthy`
 * gauge from the verdicts the drift watches keep on the release's workloads and CRDs
 * (drift/health.ts). It makes no API request: the watches already cache each object's verdict, and
 * a change of one queues the reconcile that brings the condition up to date.
 *
 * Right after an install the new watches have not listed yet: the apply's answers give the
 * verdicts (a new Deployment's status not reported yet: False), and the first lists queue a
 * reconcile only when they tell otherwise (a CRD established meanwhile); Unknown (NotObserved)
 * when a watch has not listed a minute after the apply. Right after an upgrade the caches may
 * still hold the previous objects for a moment; the watch event of the new object queues the
 * reconcile that corrects the condition.
 */
import { HealthConditionType } from '../../shared/api/index.ts';
import type { Step, StepOutcome } from '../../shared/controller/index.ts';
import { healthVerdict, type DriftTracker, type ExtensionHealthGauge } from '../drift/index.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { setCondition } from './status.ts';

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
  const name = state.ce.metadata.name;
  const verdict = healthVerdict(ports.drift.health(name));
  setCondition(state.ce, HealthConditionType.Healthy, verdict.status, verdict.reason, verdict.message);
  ports.gauge.set(name, verdict.status);
  return undefined;
}
