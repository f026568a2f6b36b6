/**
 * Who controls an object, and what a revision may do with it (boxcutter's ObjectEngine with
 * native owner handling, v0.14.0): the decision tables of reconcile and teardown, and the object
 * a revision applies. Pure.
 *
 * An object a revision manages carries a controller owner reference to its ClusterObjectSet and
 * the annotation `olm.operatorframework.io/revision` with its revision number; a later revision
 * of the same extension (a sibling) takes it over by rewriting both, and an archived revision
 * tells from them whether an object is still its own.
 */
import {
  CLUSTER_OBJECT_SET,
  CollisionProtection,
  GROUP,
  KEPT_FOR_PACKAGE_ANNOTATION,
  OWNER_NAME_LABEL,
  PACKAGE_NAME_ANNOTATION,
  type ClusterObjectSet,
} from '../../shared/api/index.ts';
import type { KubeObject, OwnerReference } from '../../shared/kube/index.ts';

/** Field manager, revision-annotation prefix and managed-by value of the ClusterObjectSet controller (upstream's `fieldOwnerPrefix`). */
export const OBJECT_SET_FIELD_MANAGER = GROUP;

/** Annotation holding the revision number that last wrote an object. */
export const REVISION_ANNOTATION = `${GROUP}/revision`;

/** Label naming the manager of every object a revision writes. */
const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';

/** The label selector of every object a revision writes. */
export const MANAGED_BY_SELECTOR = `${MANAGED_BY_LABEL}=${OBJECT_SET_FIELD_MANAGER}`;

/** Who is the controller of an object, seen from one revision. */
export type ControlSituation = 'IsController' | 'SiblingIsController' | 'UnknownController' | 'NoController';

/** What a revision does with one object it declares. */
export type ObjectAction =
  /** Ours: apply the desired state (forcing our fields back). */
  | 'apply'
  /** Take it over: keep its other owners as non-controllers, become controller, apply with force. */
  | 'adopt'
  /** Refuse: collision protection forbids touching it. */
  | 'collision'
  /** A later sibling revision controls it: nothing to do, it counts as progressed. */
  | 'progressed';

/** The owner a revision writes: the ClusterObjectSet, as its controller. */
export function controllerReference(cos: ClusterObjectSet): OwnerReference {
  return {
    apiVersion: CLUSTER_OBJECT_SET.apiVersion,
    kind: CLUSTER_OBJECT_SET.kind,
    name: cos.metadata.name,
    uid: cos.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** True when `a` and `b` name the same object (group, kind, name and uid; the version may differ). */
function sameOwner(a: OwnerReference, b: OwnerReference): boolean {
  return groupOf(a.apiVersion) === groupOf(b.apiVersion) && a.kind === b.kind && a.name === b.name && a.uid === b.uid;
}

/** The revision number recorded on `obj` (0 when none or unreadable). */
export function objectRevision(obj: KubeObject): number {
  const n = Number.parseInt(obj.metadata.annotations?.[REVISION_ANNOTATION] ?? '', 10);
  return Number.isFinite(n) ? n : 0;
}

/**
 * True when `actual` is a CRD an uninstall kept for the package `cos` installs (marked
 * KEPT_FOR_PACKAGE_ANNOTATION with that package). Such a CRD may still carry the revision
 * annotation of the uninstalled extension's revision, but is no just-orphaned object: the
 * uninstall released it on purpose and deleted its revisions only after, so the garbage collector
 * has nothing of it to collect (decision 0150).
 */
export function keptForPackageOf(actual: KubeObject, cos: Pick<ClusterObjectSet, 'metadata'>): boolean {
  const kept = actual.metadata.annotations?.[KEPT_FOR_PACKAGE_ANNOTATION];
  const pkg = cos.metadata.annotations?.[PACKAGE_NAME_ANNOTATION];
  return actual.kind === 'CustomResourceDefinition' && kept !== undefined && kept !== '' && kept === pkg;
}

/** The controller owner reference of `obj`, if any. */
function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return (obj.metadata.ownerReferences ?? []).find((r) => r.controller === true);
}

/**
 * The control situation of `actual` for the revision whose owner reference is `owner`;
 * `siblings` are the uids of the other active revisions of the same extension.
 */
export function controlSituation(
  actual: KubeObject,
  owner: OwnerReference,
  siblings: ReadonlySet<string>,
): { situation: ControlSituation; controller?: OwnerReference } {
  const controller = controllerOf(actual);
  if (controller === undefined) return { situation: 'NoController' };
  if (sameOwner(controller, owner)) return { situation: 'IsController', controller };
  if (siblings.has(controller.uid)) return { situation: 'SiblingIsController', controller };
  return { situation: 'UnknownController', controller };
}

/**
 * The decision table of an existing object (boxcutter's objectUpdateHandling):
 *
 * | situation | action |
 * |---|---|
 * | IsController | apply |
 * | UnknownController | collision, unless protection is None: adopt |
 * | NoController | collision under Prevent, or when a revision wrote it before (just orphaned: adopting it would race the garbage collector); else adopt |
 * | SiblingIsController, its revision newer | progressed |
 * | SiblingIsController, its revision older | adopt |
 * | SiblingIsController, same revision | collision (a user or data error) |
 */
export function decideObject(
  situation: ControlSituation,
  protection: CollisionProtection,
  actualRevision: number,
  revision: number,
  wroteBefore: boolean,
): ObjectAction {
  switch (situation) {
    case 'IsController':
      return 'apply';
    case 'UnknownController':
      return protection === CollisionProtection.None ? 'adopt' : 'collision';
    case 'NoController':
      return protection === CollisionProtection.Prevent || wroteBefore ? 'collision' : 'adopt';
    case 'SiblingIsController':
      if (actualRevision > revision) return 'progressed';
      return actualRevision < revision ? 'adopt' : 'collision';
  }
}

/** The effective collision protection: the most specific one set (object > phase > spec), Prevent by default. */
export function effectiveProtection(...levels: readonly (CollisionProtection | undefined)[]): CollisionProtection {
  let cp: CollisionProtection = CollisionProtection.Prevent;
  for (const level of levels) if (level !== undefined) cp = level;
  return cp;
}

/** `refs` with `ref` in place of one naming the same object (group, kind, name), else appended. */
function upsertOwner(refs: readonly OwnerReference[], ref: OwnerReference): OwnerReference[] {
  const same = (r: OwnerReference): boolean => groupOf(r.apiVersion) === groupOf(ref.apiVersion) && r.kind === ref.kind && r.name === ref.name;
  const i = refs.findIndex(same);
  return i < 0 ? [...refs, ref] : refs.map((r, j) => (j === i ? ref : r));
}

/** The manifest as upstream hands it to boxcutter: with the owner-name label of the ClusterObjectSet (empty when it has none). */
export function desiredManifest(cos: ClusterObjectSet, manifest: KubeObject): KubeObject {
  const obj = structuredClone(manifest);
  obj.metadata.labels = { ...obj.metadata.labels, [OWNER_NAME_LABEL]: cos.metadata.labels?.[OWNER_NAME_LABEL] ?? '' };
  return obj;
}

/**
 * The object revision `cos` applies for `manifest` (not modified): the owner-name label copied
 * from the ClusterObjectSet (empty when it has none, as upstream), the managed-by label, the
 * revision annotation and the ClusterObjectSet as controller owner. For an adoption, `adopted`
 * is the live object: its owners stay, none of them controller.
 */
export function desiredObject(cos: ClusterObjectSet, manifest: KubeObject, adopted?: KubeObject): KubeObject {
  const obj = structuredClone(manifest);
  obj.metadata.labels = {
    ...obj.metadata.labels,
    [OWNER_NAME_LABEL]: cos.metadata.labels?.[OWNER_NAME_LABEL] ?? '',
    [MANAGED_BY_LABEL]: OBJECT_SET_FIELD_MANAGER,
  };
  obj.metadata.annotations = { ...obj.metadata.annotations, [REVISION_ANNOTATION]: String(cos.spec.revision) };
  const base =
    adopted === undefined ? (obj.metadata.ownerReferences ?? []) : (adopted.metadata.ownerReferences ?? []).map((r) => ({ ...r, controller: false }));
  obj.metadata.ownerReferences = upsertOwner(base, controllerReference(cos));
  return obj;
}

/** What an archived revision does with an object it declared that still exists. */
type TeardownAction =
  /** Still its own: delete it. */
  | 'delete'
  /** A later revision took it over: drop this revision from its owners (`owners` is the list to write), or nothing when absent. */
  | { release: OwnerReference[] | undefined };

/**
 * The teardown decision (boxcutter's ObjectEngine.Teardown): an object last written by another
 * revision, of which this one is not the controller, is released; any other is deleted.
 */
export function decideTeardown(actual: KubeObject, owner: OwnerReference, revision: number): TeardownAction {
  const controller = controllerOf(actual);
  const isController = controller !== undefined && sameOwner(controller, owner);
  // CRDs are never deleted (the project's promise, reference README item 3): released instead, their custom resources kept.
  if ((objectRevision(actual) === revision || isController) && actual.kind !== 'CustomResourceDefinition') return 'delete';
  const refs = actual.metadata.ownerReferences ?? [];
  const rest = refs.filter((r) => !sameOwner(r, owner));
  return { release: rest.length === refs.length ? undefined : rest };
}
