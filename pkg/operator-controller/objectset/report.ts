/**
 * How upstream's ClusterObjectSet controller words what the engine found (boxcutter's result
 * reports): the object header, a probe failure line of Available's message, and the collision
 * report of Progressing's. Pure.
 */
import type { KubeObject, OwnerReference } from '../../shared/kube/index.ts';
import type { ProbeResult } from './probes.ts';

/** Name of the probe that gates phases (boxcutter's ProgressProbeType). */
const PROGRESS_PROBE = 'Progress';

/** `Object <Kind>.<group/version> <namespace>/<name>` (the namespace empty for cluster-scoped objects). */
function objectHeader(obj: KubeObject): string {
  return `Object ${obj.kind}.${obj.apiVersion} ${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}

/** One line of Available's ProbeFailure message: the object and its probe messages joined by ` and `. */
export function probeFailureLine(obj: KubeObject, probe: ProbeResult): string {
  return `${objectHeader(obj)}: ${probe.messages.join(' and ')}`;
}

/** Go's generated String() of a `*metav1.OwnerReference`. */
function ownerString(ref: OwnerReference | undefined): string {
  if (ref === undefined) return 'nil';
  const ptr = (b: boolean | undefined): string => (b === undefined ? 'nil' : `*${String(b)}`);
  return `&OwnerReference{Kind:${ref.kind},Name:${ref.name},UID:${ref.uid},APIVersion:${ref.apiVersion},Controller:${ptr(ref.controller)},BlockOwnerDeletion:${ptr(ref.blockOwnerDeletion)},}`;
}

/**
 * The report of an object a revision refused to touch: header, action, its probe result and the
 * conflicting owner. Upstream also lists the fields other managers own (its comparator's
 * output); this report leaves that section out.
 */
export function collisionReport(obj: KubeObject, probe: ProbeResult, owner: OwnerReference | undefined): string {
  const verdict = probe.status === 'True' ? 'Succeeded' : probe.status === 'False' ? 'Failed' : 'Unknown';
  const lines = [objectHeader(obj), 'Action: "Collision"', 'Probes:', `- ${PROGRESS_PROBE}: ${verdict}`, ...probe.messages.map((m) => `  - ${m}`)];
  return `${lines.join('\n')}\nConflicting Owner: ${ownerString(owner)}\n`;
}

/** Progressing's message for the collisions of the phase at `index`. */
export function collisionsMessage(index: number, reports: readonly string[]): string {
  return `revision object collisions in phase ${index}\n${reports.join('\n\n')}`;
}
