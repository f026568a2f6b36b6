/**
 * The order in which a release's objects are applied. Objects are applied one at a time:
 *
 *   1. CustomResourceDefinitions, then a wait until each is Established (custom resources
 *      of the bundle and the workloads using them need the API to exist);
 *   2. Namespaces;
 *   3. ServiceAccounts;
 *   4. Roles and ClusterRoles, then 5. their bindings: a binding applied before its role is
 *      refused by the API server's escalation check with a misleading NotFound (decision 0043
 *      item 2), so RBAC is applied sequentially, roles first;
 *   6. everything else, in render order (Helm's install order).
 *
 * Within a phase the input order is kept.
 */
import type { KubeObject } from '../../shared/kube/index.ts';
import type { ObjectSequence } from '../release/index.ts';
import { isCrd } from './objects.ts';

const RBAC_GROUP = 'rbac.authorization.k8s.io/';

function phaseOf(obj: KubeObject): number {
  if (isCrd(obj)) return 0;
  if (obj.apiVersion === 'v1' && obj.kind === 'Namespace') return 1;
  if (obj.apiVersion === 'v1' && obj.kind === 'ServiceAccount') return 2;
  if (obj.apiVersion.startsWith(RBAC_GROUP) && (obj.kind === 'Role' || obj.kind === 'ClusterRole')) return 3;
  if (obj.apiVersion.startsWith(RBAC_GROUP) && (obj.kind === 'RoleBinding' || obj.kind === 'ClusterRoleBinding')) return 4;
  return 5;
}

/** Number of phases `applyPhasePositions` returns. */
const APPLY_PHASES = 6;

/**
 * The positions of `objects` grouped into the phases above, each in input order: for a
 * sequence whose objects are parsed when read (a manifest's lines), so that the caller then
 * reads, and holds, one object at a time. `visit` sees each object as it is read.
 */
export function applyPhasePositions(objects: ObjectSequence, visit?: (obj: KubeObject) => void): number[][] {
  const phases: number[][] = Array.from({ length: APPLY_PHASES }, () => []);
  for (let i = 0; i < objects.length; i++) {
    const obj = objects.at(i);
    if (obj === undefined) continue;
    phases[phaseOf(obj)]?.push(i);
    visit?.(obj);
  }
  return phases;
}
