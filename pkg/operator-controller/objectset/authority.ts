/**
 * Who a revision is written as (decision 0126). Upstream's controller writes every
 * ClusterObjectSet's objects with its own identity, so whoever may create one writes as
 * operator-controller. Here a revision is written as the installer of the ClusterExtension that
 * made it only when that is proven: the revision's controller owner reference names a
 * ClusterExtension this process knows, with its uid, and the owner-name label names the same
 * extension. Any other revision is a user's: written as the identity the administrator
 * configured for user-made revisions, or not at all. A revision of an extension being deleted
 * writes nothing (its uninstall releases the CRDs and deletes the revisions; a write between the
 * two would give a CRD back an owner the garbage collector follows). Pure.
 */
import { CLUSTER_EXTENSION, OWNER_NAME_LABEL, parseClusterObjectSet, type ClusterObjectSet } from '../../shared/api/index.ts';
import type { Result } from '../../shared/errors/index.ts';
import type { KubeObject, OwnerReference } from '../../shared/kube/index.ts';

/** What the ClusterExtension informer knows of one extension. */
export interface KnownExtension {
  uid: string;
  /** It has a deletionTimestamp. */
  deleting: boolean;
}

/** Who may write a revision's objects. */
type RevisionAuthority =
  /** Made by operator-controller for `extension`: written as its installer. */
  | { kind: 'extension'; extension: string }
  /** Made for `extension`, which is being deleted: nothing is written. */
  | { kind: 'held'; extension: string }
  /** Not proven to be operator-controller's (`why`): a user's revision. */
  | { kind: 'user'; why: string };

const EXTENSION_GROUP = CLUSTER_EXTENSION.apiVersion.split('/')[0] ?? '';

/** A parsed revision with the owner references it was read with (the API schema leaves them out). */
type WithOwners = ClusterObjectSet & { metadata: { ownerReferences?: OwnerReference[] } };

/** parseClusterObjectSet keeping `metadata.ownerReferences`, which revisionAuthority reads. */
export function parseWithOwners(input: unknown): Result<ClusterObjectSet, string> {
  const parsed = parseClusterObjectSet(input);
  const owners = (input as Partial<KubeObject> | undefined)?.metadata?.ownerReferences;
  if (parsed.ok && owners !== undefined) (parsed.value as WithOwners).metadata.ownerReferences = owners;
  return parsed;
}

/** The controller owner reference of `cos` naming a ClusterExtension, if any. */
function extensionController(cos: ClusterObjectSet): { name: string; uid: string } | undefined {
  const ref = ((cos as WithOwners).metadata.ownerReferences ?? []).find((r) => r.controller === true);
  if (ref === undefined || ref.kind !== CLUSTER_EXTENSION.kind || ref.apiVersion.split('/')[0] !== EXTENSION_GROUP) return undefined;
  return { name: ref.name, uid: ref.uid };
}

/**
 * True when `other` has the same ClusterExtension controller (name and uid) as `cos`, or neither
 * has one: only such revisions are siblings, whatever their owner-name labels claim.
 */
export function sameExtensionController(cos: ClusterObjectSet, other: ClusterObjectSet): boolean {
  const a = extensionController(cos);
  const b = extensionController(other);
  return a === undefined || b === undefined ? a === b : a.name === b.name && a.uid === b.uid;
}

/** Decides who writes `cos`; `extensionOf` reads the ClusterExtension informer's cache. */
export function revisionAuthority(cos: ClusterObjectSet, extensionOf: (name: string) => KnownExtension | undefined): RevisionAuthority {
  const label = cos.metadata.labels?.[OWNER_NAME_LABEL];
  const controller = extensionController(cos);
  if (controller === undefined) return { kind: 'user', why: 'it has no controller owner reference to a ClusterExtension' };
  const known = extensionOf(controller.name);
  if (known === undefined || known.uid !== controller.uid) {
    return {
      kind: 'user',
      why: `its controller owner reference names no existing ClusterExtension (${JSON.stringify(controller.name)}, uid ${controller.uid})`,
    };
  }
  if (label !== controller.name) {
    return {
      kind: 'user',
      why: `its label ${OWNER_NAME_LABEL} (${JSON.stringify(label ?? '')}) does not name its controller, ClusterExtension ${JSON.stringify(controller.name)}`,
    };
  }
  return known.deleting ? { kind: 'held', extension: controller.name } : { kind: 'extension', extension: controller.name };
}

/** The flag an administrator sets to have user-made revisions written (cmd/operator-controller). */
const USER_REVISION_FLAG = '--user-revision-service-account';

/** Progressing's message of a user's revision when no identity is configured for them. */
export function userRevisionRefusal(cos: ClusterObjectSet, why: string): string {
  return (
    `ClusterObjectSet ${JSON.stringify(cos.metadata.name)} was not made by operator-controller for a ClusterExtension (${why}), ` +
    `and no identity is configured for revisions users make: nothing of it is applied; start operator-controller with ` +
    `${USER_REVISION_FLAG}=NAMESPACE/NAME to write such revisions as that ServiceAccount, with its permissions only`
  );
}
