/**
 * Health of a deployed release, judged from its objects' own status (pure: data in, data out).
 * Deployments, StatefulSets and DaemonSets are judged as their controllers report them,
 * CustomResourceDefinitions by `Established`, and cert-manager's Certificates and Issuers (the
 * certificate provider's objects) by `Ready`, the conditions upstream's progression probes
 * assert; every other kind is not judged, so a Certificate cert-manager cannot issue is named
 * with cert-manager's own reason and message. The drift
 * watches keep each judged object's verdict in its fingerprint (drift/targets.ts), and the
 * health step turns the verdicts of a release into the `Healthy` condition (steps-health.ts).
 */
import { HealthReason, type ConditionStatus } from '../../shared/api/index.ts';
import type { KubeObject, TypeRef } from '../../shared/kube/index.ts';

/** One object's verdict: available, or why not (`Available=False MinimumReplicasUnavailable: ...`). */
export type ObjectHealth = { ready: true } | { ready: false; why: string };

/** What the drift watches know of a release's judged objects (DriftTracker.health). */
export type ReleaseHealth =
  /** A watch of a judged kind has not listed yet (starting, or its ServiceAccount may not list). */
  | { observed: false }
  /** Each judged object of the release (`Kind ns/name`) and its verdict; a missing one is not ready. */
  | { observed: true; objects: readonly { object: string; health: ObjectHealth }[] };

/** The Healthy condition's status, reason and message. */
interface HealthVerdict {
  status: ConditionStatus;
  reason: string;
  message: string;
}

/** Objects named in an Unhealthy message; the rest are counted. */
const NAMED_AT_MOST = 3;

const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);
const CERT_MANAGER_KINDS = new Set(['Certificate', 'Issuer']);

/** True for the kinds whose status is judged. */
export function judged(type: TypeRef): boolean {
  if (type.apiVersion === 'apps/v1') return WORKLOAD_KINDS.has(type.kind);
  if (type.apiVersion === 'cert-manager.io/v1') return CERT_MANAGER_KINDS.has(type.kind);
  return type.apiVersion === 'apiextensions.k8s.io/v1' && type.kind === 'CustomResourceDefinition';
}

/** The verdict of an object of the release that its watch does not see (deleted, relabelled). */
export const MISSING: ObjectHealth = { ready: false, why: 'not found' };

const READY: ObjectHealth = { ready: true };

interface StatusCondition {
  type?: unknown;
  status?: unknown;
  reason?: unknown;
  message?: unknown;
}

type Fields = Record<string, unknown>;

function fieldsOf(value: unknown): Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : {};
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function conditionOf(status: Fields, type: string): StatusCondition | undefined {
  const list = Array.isArray(status['conditions']) ? (status['conditions'] as unknown[]) : [];
  return list.map(fieldsOf).find((c) => c['type'] === type) as StatusCondition | undefined;
}

/**
 * Longest condition reason or message kept: every watched object's verdict stays in memory, and
 * whoever writes an object's status decides its text.
 */
const TEXT_AT_MOST = 256;

/** `Type=Status Reason: message`, the parts a condition has. */
function describeCondition(type: string, c: StatusCondition | undefined): string {
  if (c === undefined) return `no ${type} condition yet`;
  const text = (v: unknown): string => (typeof v !== 'string' ? '' : v.length <= TEXT_AT_MOST ? v : `${v.slice(0, TEXT_AT_MOST)}...`);
  const reason = text(c.reason) === '' ? '' : ` ${text(c.reason)}`;
  const message = text(c.message) === '' ? '' : `: ${text(c.message)}`;
  return `${type}=${text(c.status) || 'Unknown'}${reason}${message}`;
}

/** Why the controller has not reported on the current spec yet, or undefined when it has. */
function notObserved(obj: KubeObject, status: Fields): string | undefined {
  const generation = obj.metadata.generation;
  const observed = status['observedGeneration'];
  if (generation === undefined || (typeof observed === 'number' && observed >= generation)) return undefined;
  return typeof observed === 'number' ? `generation ${generation} not observed yet (observed ${observed})` : 'status not reported yet';
}

function deploymentHealth(obj: KubeObject, status: Fields): ObjectHealth {
  const progressing = conditionOf(status, 'Progressing');
  if (progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded') {
    return { ready: false, why: describeCondition('Progressing', progressing) };
  }
  const available = conditionOf(status, 'Available');
  if (available?.status !== 'True') return { ready: false, why: describeCondition('Available', available) };
  // A rollout still under way is not yet the release's Deployment, whatever the old Pods make
  // of Available (kubectl rollout status's checks, in its words): a crash-looping new Pod beside
  // an old one that still serves is not healthy. Counts a status does not report are not judged.
  const want = replicasOf(obj);
  const updated = status['updatedReplicas'];
  if (typeof updated !== 'number') return READY;
  if (updated < want) return { ready: false, why: `Waiting for rollout to finish: ${updated} out of ${want} new replicas have been updated` };
  const total = status['replicas'];
  if (typeof total === 'number' && total > updated) {
    return { ready: false, why: `Waiting for rollout to finish: ${total - updated} old replicas are pending termination` };
  }
  const availableCount = status['availableReplicas'];
  if (typeof availableCount === 'number' && availableCount < updated) {
    return { ready: false, why: `Waiting for rollout to finish: ${availableCount} of ${updated} updated replicas are available` };
  }
  return READY;
}

function replicasOf(obj: KubeObject): number {
  const replicas = fieldsOf(obj['spec'])['replicas'];
  return typeof replicas === 'number' ? replicas : 1;
}

function statefulSetHealth(obj: KubeObject, status: Fields): ObjectHealth {
  const want = replicasOf(obj);
  const ready = count(status['readyReplicas']);
  const available = count(status['availableReplicas']);
  if (ready >= want && available >= want) return READY;
  return { ready: false, why: `${ready}/${want} replicas ready, ${available}/${want} available` };
}

function daemonSetHealth(status: Fields): ObjectHealth {
  const desired = count(status['desiredNumberScheduled']);
  const available = count(status['numberAvailable']);
  const unavailable = count(status['numberUnavailable']);
  if (unavailable === 0 && available >= desired) return READY;
  return { ready: false, why: `${available}/${desired} scheduled pods available, ${unavailable} unavailable` };
}

/** By the condition `type` alone (a CRD's Established, a cert-manager object's Ready). */
function conditionHealth(status: Fields, type: string): ObjectHealth {
  const c = conditionOf(status, type);
  return c?.status === 'True' ? READY : { ready: false, why: describeCondition(type, c) };
}

/** The verdict on `obj` from its status, or undefined for a kind that is not judged. */
export function objectHealth(obj: KubeObject): ObjectHealth | undefined {
  if (!judged(obj)) return undefined;
  const status = fieldsOf(obj['status']);
  // A workload whose controller has not reported on its current spec is judged by that alone.
  const stale = obj.apiVersion === 'apps/v1' ? notObserved(obj, status) : undefined;
  if (stale !== undefined) return { ready: false, why: stale };
  switch (obj.kind) {
    case 'Deployment':
      return deploymentHealth(obj, status);
    case 'StatefulSet':
      return statefulSetHealth(obj, status);
    case 'DaemonSet':
      return daemonSetHealth(status);
    case 'CustomResourceDefinition':
      return conditionHealth(status, 'Established');
    default:
      return conditionHealth(status, 'Ready');
  }
}

/** `1 Deployment, 2 CustomResourceDefinitions` from `Kind ns/name` descriptions. */
function countByKind(objects: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const o of objects) {
    const kind = o.slice(0, o.indexOf(' '));
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return [...counts].map(([kind, n]) => `${n} ${kind}${n === 1 ? '' : 's'}`).join(', ');
}

/** The Healthy condition for `health`; objects are named in a stable (sorted) order. */
export function healthVerdict(health: ReleaseHealth): HealthVerdict {
  if (!health.observed) {
    return { status: 'Unknown', reason: HealthReason.NotObserved, message: "The release's objects have not been listed yet" };
  }
  const objects = [...health.objects].sort((a, b) => (a.object < b.object ? -1 : a.object > b.object ? 1 : 0));
  const failing = objects.flatMap(({ object, health: h }) => (h.ready ? [] : [`${object}: ${h.why}`]));
  if (failing.length === 0) {
    const message =
      objects.length === 0
        ? 'The release has no Deployments, StatefulSets, DaemonSets, CustomResourceDefinitions or cert-manager objects'
        : `All available: ${countByKind(objects.map((o) => o.object))}`;
    return { status: 'True', reason: HealthReason.Healthy, message };
  }
  const named = failing.slice(0, NAMED_AT_MOST);
  const more = failing.length - named.length;
  const message = more === 0 ? named.join('; ') : `${named.join('; ')}; and ${more} more not available (${failing.length} of ${objects.length})`;
  return { status: 'False', reason: HealthReason.Unhealthy, message };
}
