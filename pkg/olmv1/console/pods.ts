/**
 * The operator's Pods on an extension's page (issue 71, OperatorHub's links to the operator's
 * Pods and logs): the Pods the Deployments of the installed release select, as rows. Pure: the
 * Deployments and Pods come in as the API server returned them.
 */

/** One Pod as the page shows it. */
export interface PodRow {
  namespace: string;
  name: string;
  /** The Deployment that selects it. */
  deployment: string;
  phase: string;
  /** Why it is not running, when a container says so (e.g. CrashLoopBackOff, ImagePullBackOff, Unschedulable). */
  reason: string;
  ready: string;
  restarts: number;
  node: string;
  containers: string[];
}

const rec = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The label selector (`k=v,...`) of a Deployment's `spec.selector.matchLabels`; undefined when it has none (no Pods are listed for it). */
export function deploymentSelector(deployment: unknown): string | undefined {
  const labels = rec(rec(rec(rec(deployment).spec).selector).matchLabels);
  const pairs = Object.entries(labels).filter((e): e is [string, string] => typeof e[1] === 'string');
  return pairs.length === 0 ? undefined : pairs.map(([k, v]) => `${k}=${v}`).join(',');
}

/** The row of `pod`, which Deployment `deployment` selects. */
export function podRow(pod: unknown, deployment: string): PodRow {
  const p = rec(pod);
  const meta = rec(p.metadata);
  const spec = rec(p.spec);
  const status = rec(p.status);
  const statuses = arr(status.containerStatuses).map(rec);
  const waiting = statuses.map((s) => str(rec(rec(s.state).waiting).reason)).find((r) => r !== '');
  const unscheduled = arr(status.conditions)
    .map(rec)
    .find((c) => c.type === 'PodScheduled' && c.status === 'False');
  return {
    namespace: str(meta.namespace),
    name: str(meta.name),
    deployment,
    phase: str(status.phase) || 'Unknown',
    reason: waiting ?? str(unscheduled?.reason),
    ready: `${statuses.filter((s) => s.ready === true).length}/${arr(spec.containers).length}`,
    restarts: statuses.reduce((n, s) => n + (typeof s.restartCount === 'number' ? s.restartCount : 0), 0),
    node: str(spec.nodeName),
    containers: arr(spec.containers)
      .map((c) => str(rec(c).name))
      .filter((n) => n !== ''),
  };
}
