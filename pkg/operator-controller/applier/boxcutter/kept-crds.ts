/**
 * CRDs an uninstall kept for a package (KEPT_FOR_PACKAGE_ANNOTATION, ../uninstall.ts), taken
 * back by the next revision of the same package under BoxcutterRuntime, as the Helm applier
 * takes them back (../ownership.ts `kept-crd`). The revision gives exactly those objects
 * `collisionProtection: IfNoController` (revision.ts); once the revision controls them their
 * mark is removed. A CRD kept for another package, an unmarked one or one another controller
 * owns is never taken back: it stays under Prevent, a collision (docs/boxcutter-runtime.md,
 * decision 0150).
 *
 * The CRDs are read and their mark removed with `client`, the client the revision's objects are
 * written with: the extension's installer (ServiceAccount), never operator-controller's own,
 * whose RBAC lists and watches CRDs but neither gets nor patches them (config/rbac). A CRD the
 * installer may not read (403) is nothing to take back: it stays under Prevent, as before; one
 * whose mark it may not remove keeps its mark (the revision controls it all the same).
 */
import { CollisionProtection, KEPT_FOR_PACKAGE_ANNOTATION } from '../../../shared/api/index.ts';
import { errorMessage } from '../../../shared/errors/index.ts';
import { isForbidden, isNotFound, type KubeClient, type KubeObject } from '../../../shared/kube/index.ts';
import { isCrd, refOf } from '../objects.ts';
import type { ObjectSetManifest } from './revision.ts';

const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };

/** True when `live` is a CRD kept for `packageName` that no controller owns: the revision may take it back. */
export function keptForTakeBack(live: KubeObject, packageName: string): boolean {
  return (
    isCrd(live) &&
    packageName !== '' &&
    live.metadata.annotations?.[KEPT_FOR_PACKAGE_ANNOTATION] === packageName &&
    !(live.metadata.ownerReferences ?? []).some((r) => r.controller === true)
  );
}

/** True when `set` takes back some kept CRD (an object of it under IfNoController). */
export function takesBackCrds(set: Pick<ObjectSetManifest, 'spec'>): boolean {
  return set.spec.phases.some((p) => p.objects.some((o) => o.collisionProtection === CollisionProtection.IfNoController));
}

/** The live `obj`; undefined when absent or when `client` may not read it (403). */
async function getOrUndefined(client: KubeClient, obj: KubeObject, signal: AbortSignal): Promise<KubeObject | undefined> {
  try {
    return await client.get(refOf(obj), { signal });
  } catch (err) {
    if (isNotFound(err) || isForbidden(err)) return undefined;
    throw new Error(`reading CustomResourceDefinition ${obj.metadata.name ?? ''}: ${errorMessage(err)}`, { cause: err });
  }
}

/** Names of the CRDs of `manifest` that exist, kept for `packageName` and owned by no controller, as `client` (the installer) reads them. */
export async function keptCrds(client: KubeClient, manifest: readonly KubeObject[], packageName: string, signal: AbortSignal): Promise<Set<string>> {
  const names = new Set<string>();
  if (packageName === '') return names;
  for (const crd of manifest.filter(isCrd)) {
    const live = await getOrUndefined(client, crd, signal);
    if (live !== undefined && keptForTakeBack(live, packageName) && live.metadata.name !== undefined) names.add(live.metadata.name);
  }
  return names;
}

/**
 * Removes the kept mark of `packageName` from the CRDs named `names` (those revision `uid` takes
 * back) that the revision controls; true once none is left waiting for the revision (a CRD another
 * controller took meanwhile is not ours: it keeps its mark, and the revision reports the collision;
 * one `client`, the installer, may not read or patch is left as it is).
 */
export async function unmarkTakenBack(
  client: KubeClient,
  names: ReadonlySet<string>,
  uid: string,
  packageName: string,
  signal: AbortSignal,
): Promise<boolean> {
  let done = true;
  for (const name of names) {
    const live = await getOrUndefined(client, { ...CRD, metadata: { name } }, signal);
    if (live?.metadata.annotations?.[KEPT_FOR_PACKAGE_ANNOTATION] !== packageName) continue;
    const controller = (live.metadata.ownerReferences ?? []).find((r) => r.controller === true);
    if (controller === undefined) done = false;
    if (controller?.uid !== uid) continue;
    try {
      await client.patch(refOf(live), { metadata: { annotations: { [KEPT_FOR_PACKAGE_ANNOTATION]: null } } }, 'merge', { signal });
    } catch (err) {
      if (isForbidden(err)) continue;
      throw new Error(`removing the kept mark of CustomResourceDefinition ${name}: ${errorMessage(err)}`, { cause: err });
    }
  }
  return done;
}
