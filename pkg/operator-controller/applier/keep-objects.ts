/**
 * Objects an uninstall leaves in place must survive the ClusterExtension (issue #42): before its
 * last finalizer goes, every owner reference to the extension is removed from what stays
 * (owner-references.ts), because the garbage collector deletes a dependent whose owner is gone.
 *
 * - `releaseCrdReferences`: the extension's CustomResourceDefinitions found by its owner labels
 *   (one metadata-only LIST, which the `olmv1 rbac` grants allow), so CRDs are covered even when
 *   no readable record names them (a corrupt record, an object only upstream's record listed).
 * - `orphanObjects`: the orphan annotation's uninstall: every object the records name that is
 *   still this extension's keeps its place and loses its owner reference; nothing is deleted.
 *
 * CustomResourceDefinitions known to carry a reference that cannot be removed stop the
 * uninstall (their loss takes every custom resource with them): the error names them and the
 * command that removes the reference by hand. An object that cannot be read is not known to
 * carry one (this project removed upstream's at takeover): reported, so that a ServiceAccount
 * without rights never wedges the orphan annotation's way out. For other kinds a failure is
 * reported and skipped.
 */
import { errorMessage } from '../../shared/errors/index.ts';
import { isForbidden, isNoKindMatch, isNotFound, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import { ApplyError } from './apply-error.ts';
import { describeObject, isCrd, ownerSelector, refOf, uniqueObjects } from './objects.ts';
import { refersToExtension, releaseOwnerReferences } from './owner-references.ts';
import { ownedBy } from './ownership.ts';

/** The type of CustomResourceDefinitions, as listed and patched here. */
const CRD_TYPE = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;

/** What was left in place and whose owner reference could not be removed. */
interface KeepOutcome {
  /** `Kind ns/name` of objects whose owner reference to the extension was removed. */
  released: string[];
  /** Objects (not CRDs) whose reference could not be removed: the garbage collector will delete them. */
  unreleased: { object: string; reason: string }[];
}

/** The kubectl command that removes every owner reference of a CRD, for messages. */
function manualRemoval(crd: string): string {
  return `kubectl patch customresourcedefinition ${crd} --type json -p '[{"op":"remove","path":"/metadata/ownerReferences"}]'`;
}

/** Throws the error that stops an uninstall while CRDs still depend on the extension. */
function crdsStillReferenced(extension: string, failures: { name: string; reason: string }[]): never {
  const first = failures[0];
  const named = failures.map((f) => `${f.name} (${f.reason})`).join(', ');
  throw new ApplyError(
    `CustomResourceDefinition ${first?.name ?? ''}`,
    `CustomResourceDefinitions ${named} still carry an owner reference to ClusterExtension ${JSON.stringify(extension)}: ` +
      `the garbage collector would delete them and every custom resource once it is gone; remove the reference ` +
      `(${manualRemoval(first?.name ?? 'NAME')}) or grant the installer patch on them`,
  );
}

/**
 * Removes the owner references to `extension` from its CRDs found by owner labels; see the module
 * comment. A LIST the installer may not make (RBAC granted by hand without it) is skipped: the
 * records' own CRDs are still handled by the uninstall or `orphanObjects`.
 */
export async function releaseCrdReferences(client: KubeClient, extension: string, signal?: AbortSignal): Promise<string[]> {
  let crds: KubeObject[];
  try {
    crds = (await client.listAll(CRD_TYPE, { labelSelector: ownerSelector(extension), metadataOnly: true, signal })).items;
  } catch (err) {
    if (isForbidden(err) || isNoKindMatch(err)) return [];
    throw err;
  }
  const released: string[] = [];
  const failures: { name: string; reason: string }[] = [];
  for (const item of crds) {
    if (!(item.metadata.ownerReferences ?? []).some((r) => refersToExtension(r, extension))) continue;
    const crd: KubeObject = { ...CRD_TYPE, metadata: { name: item.metadata.name ?? '' } };
    try {
      if (await releaseOwnerReferences(client, crd, item.metadata, extension, signal)) released.push(describeObject(crd));
    } catch (err) {
      failures.push({ name: crd.metadata.name ?? '', reason: errorMessage(err) });
    }
  }
  if (failures.length > 0) crdsStillReferenced(extension, failures);
  return released;
}

/**
 * The orphan annotation's uninstall of `objects` (every object the records name, any order):
 * each one still carrying the extension's owner labels loses its owner reference to the
 * extension; nothing is deleted. Reads each object as `client`.
 */
export async function orphanObjects(
  client: KubeClient,
  objects: readonly KubeObject[],
  extension: string,
  signal?: AbortSignal,
): Promise<KeepOutcome> {
  const outcome: KeepOutcome = { released: [], unreleased: [] };
  const crdFailures: { name: string; reason: string }[] = [];
  for (const obj of uniqueObjects(objects)) {
    const what = describeObject(obj);
    let live: KubeObject;
    try {
      live = await client.get(refOf(obj), { signal });
    } catch (err) {
      // Unreadable (the installer lost its rights): not known to carry a reference; reported.
      if (!isNotFound(err) && !isNoKindMatch(err)) outcome.unreleased.push({ object: what, reason: errorMessage(err) });
      continue;
    }
    if (!ownedBy(live.metadata, extension)) continue;
    try {
      if (await releaseOwnerReferences(client, obj, live.metadata, extension, signal)) outcome.released.push(what);
    } catch (err) {
      if (isCrd(obj)) crdFailures.push({ name: obj.metadata.name ?? '', reason: errorMessage(err) });
      else outcome.unreleased.push({ object: what, reason: errorMessage(err) });
    }
  }
  if (crdFailures.length > 0) crdsStillReferenced(extension, crdFailures);
  return outcome;
}
