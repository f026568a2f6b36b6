/**
 * The Applier port's `authorize`, one for both runtimes: what the installer lacks to move from
 * the deployed release of `request.history` to `desired`, checked as the installer (nothing
 * written), in upstream's words with the advice that fixes it.
 */
import { deployedRelease, identityOf } from '../release/index.ts';
import type { KubeObject, ScopedClientFactory } from '../../shared/kube/index.ts';
import { staticKindScopes } from '../render/index.ts';
import type { ApplyRequest, Authorization } from './port.ts';
import { formatMissingPermissions, missingPermissionsAdvice, preAuthorize } from './preauthorize.ts';
import { objectsToDelete, type DesiredRevision } from './revision.ts';

/** Kinds whose objects pre-authorization reads whole: kinds' scopes, rules, bindings' roles (by kind alone, as it does). */
const READ_WHOLE = new Set(['CustomResourceDefinition', 'Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);

/** What pre-authorization reads of an object: CRDs and RBAC objects whole, any other its identity alone. */
function forAuthorization(obj: KubeObject): KubeObject {
  return READ_WHOLE.has(obj.kind) ? obj : identityOf(obj);
}

export async function authorizeMove(
  scoped: Pick<ScopedClientFactory, 'forServiceAccount'>,
  request: ApplyRequest,
  desired: DesiredRevision,
  fix: { bundleImage: string; watchNamespace?: string },
): Promise<Authorization> {
  const sa = request.installer;
  const installed = deployedRelease(request.history);
  // The old revision's CRDs only, its other objects never parsed (decision 0098).
  const oldCrds = installed === undefined ? [] : installed.manifest.where((o) => o.kind === 'CustomResourceDefinition');
  // Of the new objects, what the rules are made of: each object's identity, the RBAC objects and
  // CRDs whole (their rules, bindings' roles, kinds' scopes); one parsed at a time (decision 0098).
  const objects = desired.manifest.map(forAuthorization);
  const mapper = staticKindScopes([...oldCrds, ...objects.filter((o) => o.kind === 'CustomResourceDefinition')]);
  const missing = await preAuthorize(
    scoped.forServiceAccount(sa.namespace, sa.name),
    {
      objects,
      dropped: objectsToDelete(request.history, desired),
      installNamespace: desired.installNamespace,
      serviceAccountName: sa.name,
      bundleName: desired.bundle.name,
      mapper,
    },
    request.signal,
  );
  if (missing.length === 0) return {};
  const advice = missingPermissionsAdvice(missing, { ...fix, objects, installNamespace: desired.installNamespace, serviceAccountName: sa.name });
  return { missing: { message: formatMissingPermissions(missing), count: missing.length, advice } };
}
