/**
 * Owner references to the ClusterExtension on the objects it installed (issue #42, decision
 * 0049). Upstream's Helm applier puts one on every object it applies (controller,
 * blockOwnerDeletion), CustomResourceDefinitions included, and leaves uninstall to the garbage
 * collector. This project uninstalls explicitly and keeps CRDs with their custom resources: an
 * owner reference left on an object it keeps would let the garbage collector delete that object,
 * and with a CRD every custom resource, once the ClusterExtension is gone. So a reference to this
 * extension is removed from every object that is ours (taken over from upstream, or kept by an
 * uninstall) before the extension can go.
 *
 * Under the BoxcutterRuntime the objects' controller is the extension's ClusterObjectSet
 * revision (`<extension>-<n>`, which the extension owns): a reference to one of them is the
 * extension's too, and goes the same way from what is kept.
 *
 * The removal is a JSON patch that first tests the references it removes (index and uid), so a
 * list changed in between fails the patch instead of removing someone else's reference; the
 * caller re-reads and tries again.
 */
import { CLUSTER_EXTENSION, CLUSTER_OBJECT_SET } from '../../shared/api/index.ts';
import { isInvalid, isNotFound, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import type { OwnerReference } from '../../shared/unstructured/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import { ApplyError } from './apply-error.ts';
import { describeObject, refOf } from './objects.ts';

/** The API group of ClusterExtensions (`olm.operatorframework.io`). */
const EXTENSION_GROUP = CLUSTER_EXTENSION.apiVersion.split('/')[0] ?? '';

/**
 * True when `ref` names the ClusterExtension `extension`, or one of its ClusterObjectSet
 * revisions (`<extension>-<n>`: no other extension's revision has that name), any version of
 * the API group.
 */
export function refersToExtension(ref: Pick<OwnerReference, 'apiVersion' | 'kind' | 'name'>, extension: string): boolean {
  if (ref.apiVersion.split('/')[0] !== EXTENSION_GROUP) return false;
  if (ref.kind === CLUSTER_EXTENSION.kind) return ref.name === extension;
  return ref.kind === CLUSTER_OBJECT_SET.kind && ref.name.startsWith(`${extension}-`) && /^[1-9][0-9]*$/.test(ref.name.slice(extension.length + 1));
}

/** True when `ref` names any ClusterExtension (the drift caches do not know which extension asks). */
export function refersToAnyExtension(ref: Pick<OwnerReference, 'apiVersion' | 'kind'>): boolean {
  return ref.kind === CLUSTER_EXTENSION.kind && ref.apiVersion.split('/')[0] === EXTENSION_GROUP;
}

/**
 * The JSON patch that removes every owner reference of `refs` naming `extension`, each guarded
 * by a test of its uid at its index; undefined when there is none.
 */
export function ownerReferencesPatch(refs: readonly OwnerReference[] | undefined, extension: string): unknown[] | undefined {
  const indexes = (refs ?? []).flatMap((ref, i) => (refersToExtension(ref, extension) ? [i] : []));
  if (indexes.length === 0) return undefined;
  const tests = indexes.map((i) => ({ op: 'test', path: `/metadata/ownerReferences/${i}/uid`, value: refs?.[i]?.uid }));
  // Highest index first: each removal leaves the lower indexes where the tests found them.
  const removals = [...indexes].reverse().map((i) => ({ op: 'remove', path: `/metadata/ownerReferences/${i}` }));
  return [...tests, ...removals];
}

/** Attempts of {@link releaseOwnerReferences} when the list changes between the read and the patch. */
const ATTEMPTS = 3;

/** The error of an apply or delete that could not remove `obj`'s owner reference to `extension`. */
export function ownerReferenceError(obj: KubeObject, extension: string, err: unknown): ApplyError {
  const what = describeObject(obj);
  const message = `error removing the owner reference to ClusterExtension ${JSON.stringify(extension)} from ${what}: ${errorMessage(err)}`;
  return new ApplyError(what, message, err);
}

/**
 * Removes the owner references naming `extension` from the live object `obj`, whose metadata as
 * last read is `live` (undefined: not read, for example when a drift watch vouched for its uid;
 * then it is read first). Returns true when a patch was sent. A list that changed in between
 * (the patch's test fails, 422) is read again, up to three times. An object that is gone needs
 * nothing. Other errors are thrown.
 */
export async function releaseOwnerReferences(
  client: KubeClient,
  obj: KubeObject,
  live: { ownerReferences?: OwnerReference[] } | undefined,
  extension: string,
  signal?: AbortSignal,
): Promise<boolean> {
  const read = async (): Promise<OwnerReference[] | undefined | false> => {
    try {
      return (await client.get(refOf(obj), { signal })).metadata.ownerReferences;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  };
  let refs = live === undefined ? await read() : live.ownerReferences;
  for (let attempt = 1; ; attempt++) {
    if (refs === false) return false;
    const patch = ownerReferencesPatch(refs, extension);
    if (patch === undefined) return false;
    try {
      await client.patch(refOf(obj), patch, 'json', { signal });
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      if (!isInvalid(err) || attempt >= ATTEMPTS) throw err;
    }
    refs = await read();
  }
}
