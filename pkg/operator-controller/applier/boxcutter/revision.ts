/**
 * The ClusterObjectSet a ClusterExtension's release becomes under BoxcutterRuntime, as
 * upstream's applier builds it (internal/operator-controller/applier/boxcutter.go,
 * `SimpleRevisionGenerator` and `Boxcutter.Apply`). Pure.
 *
 * - Each object: `status` dropped, `metadata` reduced to name, namespace, labels and
 *   annotations (kubectl's last-applied annotation dropped), the owner labels merged over its
 *   labels, and the package name and bundle version added as annotations.
 * - The revision: named `<extension>-<revision>`, revision = the newest one's + 1 (1 first),
 *   `lifecycleState: Active`, `collisionProtection: Prevent` (`None` for the revision migrated
 *   from a Helm record, which adopts the objects the record's release made), upstream's
 *   built-in progression probes, `progressDeadlineMinutes` when the extension sets one; labelled
 *   with the owner kind and name (and `migrated-from-helm: "true"` when migrated); annotated
 *   with the bundle's name, package, version and image reference, its release when it has one,
 *   and its `olm.properties` when it declares any; controlled by the ClusterExtension.
 * - Unchanged content (no new revision): upstream applies the desired revision, its objects
 *   packed into Secrets named after the newest revision, over the newest revision and takes
 *   the API server's "immutable" refusal as "changed". The same, decided without a round trip:
 *   the newest revision is kept when it is Active and its revision number, phases (with the
 *   refs) and collision protection equal the desired ones; its mutable fields (labels,
 *   annotations, probes, deadline) are then applied over it.
 * - Archived revisions beyond the five newest revisions are deleted when a revision is made.
 * - CRDs an uninstall of the same package kept (`kept`, names the applier read live with the
 *   package's kept mark and no controller): `collisionProtection: IfNoController` on those
 *   objects alone, so the revision takes them back (ours; upstream keeps no CRDs); every other
 *   object stays under the revision's Prevent (docs/boxcutter-runtime.md, decision 0150).
 */
import type { Assertion, ClusterObjectSetSpec, ObjectSetObject, ObjectSetPhase, ProgressionProbe } from '../../../shared/api/index.ts';
import {
  CLUSTER_EXTENSION,
  CLUSTER_OBJECT_SET,
  CollisionProtection,
  LifecycleState,
  OWNER_KIND_LABEL,
  OWNER_NAME_LABEL,
  PACKAGE_NAME_ANNOTATION,
} from '../../../shared/api/index.ts';
import { jsonEqual } from '../../../shared/controller/index.ts';
import type { KubeObject, ObjectMeta, OwnerReference } from '../../../shared/kube/index.ts';
import { goJsonMarshal } from '../../bundle/index.ts';
import type { Release } from '../../release/index.ts';
import { sortIntoPhases } from './phases.ts';
import { isCrd, OWNER_KIND } from '../objects.ts';
import type { DesiredRevision } from '../revision.ts';

/** Annotation keys of a revision (upstream's `labels` package; `olm.properties` is the CSV's key). */
export const RevisionAnnotation = {
  bundleName: 'olm.operatorframework.io/bundle-name',
  packageName: PACKAGE_NAME_ANNOTATION,
  bundleVersion: 'olm.operatorframework.io/bundle-version',
  bundleReference: 'olm.operatorframework.io/bundle-reference',
  bundleRelease: 'olm.operatorframework.io/bundle-release',
  properties: 'olm.properties',
  /**
   * Ours (upstream records no digest): `<repository>@<digest>` of the pulled bundle image, what a
   * restart pulls again (the release record's `digestRef`).
   */
  digestReference: 'olm.operatorframework.io/bundle-digest-reference',
} as const;

/** Label of the revision made from a Helm record by the migration (value `"true"`). */
export const MIGRATED_FROM_HELM_LABEL = 'olm.operatorframework.io/migrated-from-helm';

/** Archived revisions kept besides the newer ones (upstream's ClusterObjectSetRetentionLimit). */
const REVISION_RETENTION_LIMIT = 5;

/** kubectl's annotation, never carried into a revision. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** A ClusterObjectSet as written and read here: upstream's spec, any metadata. */
export interface ObjectSetManifest extends KubeObject {
  metadata: ObjectMeta & { name: string };
  spec: ClusterObjectSetSpec;
  status?: {
    conditions?: { type: string; status: string; reason: string; message: string; lastTransitionTime: string; observedGeneration?: number }[];
  };
}

/** The ClusterExtension a revision belongs to. */
export interface RevisionOwner {
  name: string;
  uid: string;
  /** `spec.progressDeadlineMinutes`; 0 or undefined sets none. */
  progressDeadlineMinutes?: number | undefined;
}

const conditionEqual = (type: string, status: string): Assertion => ({ type: 'ConditionEqual', conditionEqual: { type, status } });
const byGroupKind = (group: string, kind: string): ProgressionProbe['selector'] => ({ type: 'GroupKind', groupKind: { group, kind } });
const replicasUpdated: Assertion = { type: 'FieldsEqual', fieldsEqual: { fieldA: 'status.updatedReplicas', fieldB: 'status.replicas' } };

/** Upstream's built-in probes, in its order: what makes a phase ready. */
export const DEFAULT_PROGRESSION_PROBES: readonly ProgressionProbe[] = [
  { selector: byGroupKind('apiextensions.k8s.io', 'CustomResourceDefinition'), assertions: [conditionEqual('Established', 'True')] },
  { selector: byGroupKind('cert-manager.io', 'Certificate'), assertions: [conditionEqual('Ready', 'True')] },
  { selector: byGroupKind('cert-manager.io', 'Issuer'), assertions: [conditionEqual('Ready', 'True')] },
  { selector: byGroupKind('', 'Namespace'), assertions: [{ type: 'FieldValue', fieldValue: { fieldPath: 'status.phase', value: 'Active' } }] },
  {
    selector: byGroupKind('', 'PersistentVolumeClaim'),
    assertions: [{ type: 'FieldValue', fieldValue: { fieldPath: 'status.phase', value: 'Bound' } }],
  },
  { selector: byGroupKind('apps', 'StatefulSet'), assertions: [replicasUpdated, conditionEqual('Available', 'True')] },
  { selector: byGroupKind('apps', 'Deployment'), assertions: [replicasUpdated, conditionEqual('Available', 'True')] },
];

/** The owner labels of every revision and every object of one. */
export function ownerLabels(extension: string): Record<string, string> {
  return { [OWNER_KIND_LABEL]: OWNER_KIND, [OWNER_NAME_LABEL]: extension };
}

/** Name of revision `revision` of `extension`. */
function revisionName(extension: string, revision: number): string {
  return `${extension}-${revision}`;
}

/**
 * `obj` as a revision holds it (see the module comment): a new object, `obj` untouched.
 * `labels` are merged over the object's, then `annotations` over its annotations.
 */
export function revisionObject(obj: KubeObject, labels: Record<string, string>, annotations: Record<string, string>): Record<string, unknown> {
  const { status: _status, metadata, ...rest } = obj;
  const meta: Record<string, unknown> = {};
  const own = { ...metadata.annotations };
  delete own[LAST_APPLIED];
  const mergedAnnotations = { ...own, ...annotations };
  const mergedLabels = { ...metadata.labels, ...labels };
  // upstream's allowed metadata, in its order: annotations, labels, name, namespace
  if (Object.keys(mergedAnnotations).length > 0) meta['annotations'] = mergedAnnotations;
  if (Object.keys(mergedLabels).length > 0) meta['labels'] = mergedLabels;
  if (metadata.name !== undefined) meta['name'] = metadata.name;
  if (metadata.namespace !== undefined) meta['namespace'] = metadata.namespace;
  return structuredClone({ ...rest, metadata: meta });
}

/** The revision annotations of a bundle (all four identity keys always; release, properties and digest when present). */
function bundleAnnotations(bundle: Release['bundle'], properties: readonly unknown[]): Record<string, string> {
  return {
    [RevisionAnnotation.bundleName]: bundle.name,
    [RevisionAnnotation.packageName]: bundle.package,
    [RevisionAnnotation.bundleVersion]: bundle.version,
    [RevisionAnnotation.bundleReference]: bundle.image,
    ...(bundle.release === undefined ? {} : { [RevisionAnnotation.bundleRelease]: bundle.release }),
    // Go's encoding of the property list (upstream copies the CSV's merged annotation).
    ...(properties.length === 0 ? {} : { [RevisionAnnotation.properties]: goJsonMarshal(properties, false) }),
    ...(bundle.digestRef === undefined ? {} : { [RevisionAnnotation.digestReference]: bundle.digestRef }),
  };
}

/** The annotations every object of a revision gets: bundle version and package name, when not empty. */
function objectAnnotations(bundle: Release['bundle'], withRelease: boolean): Record<string, string> {
  return {
    ...(bundle.version === '' ? {} : { [RevisionAnnotation.bundleVersion]: bundle.version }),
    ...(withRelease && bundle.release !== undefined ? { [RevisionAnnotation.bundleRelease]: bundle.release } : {}),
    ...(bundle.package === '' ? {} : { [RevisionAnnotation.packageName]: bundle.package }),
  };
}

/** The controller owner reference of a revision: its ClusterExtension. */
function extensionOwnerReference(owner: RevisionOwner): OwnerReference {
  return {
    apiVersion: CLUSTER_EXTENSION.apiVersion,
    kind: CLUSTER_EXTENSION.kind,
    name: owner.name,
    uid: owner.uid,
    blockOwnerDeletion: true,
    controller: true,
  };
}

/** Inputs of {@link buildRevision}. */
interface RevisionParts {
  owner: RevisionOwner;
  revision: number;
  objects: readonly Record<string, unknown>[];
  annotations: Record<string, string>;
  collisionProtection: CollisionProtection;
  labels?: Record<string, string>;
  /** Names of the kept CRDs to take back (IfNoController on those objects). */
  kept?: ReadonlySet<string> | undefined;
}

/** True when `object` is a CRD named in `kept`. */
function takenBack(object: Record<string, unknown>, kept: ReadonlySet<string> | undefined): boolean {
  const obj = object as KubeObject;
  return kept !== undefined && isCrd(obj) && obj.metadata.name !== undefined && kept.has(obj.metadata.name);
}

function buildRevision(parts: RevisionParts): ObjectSetManifest {
  const { owner } = parts;
  const phases: ObjectSetPhase[] = sortIntoPhases(
    parts.objects.map((object): ObjectSetObject =>
      takenBack(object, parts.kept) ? { object, collisionProtection: CollisionProtection.IfNoController } : { object },
    ),
    (entry) => entry.object as KubeObject,
  ).map((p) => ({ name: p.name, objects: p.objects }));
  const deadline = owner.progressDeadlineMinutes;
  return {
    apiVersion: CLUSTER_OBJECT_SET.apiVersion,
    kind: CLUSTER_OBJECT_SET.kind,
    metadata: {
      name: revisionName(owner.name, parts.revision),
      labels: { ...ownerLabels(owner.name), ...parts.labels },
      annotations: parts.annotations,
      ...(owner.uid === '' ? {} : { ownerReferences: [extensionOwnerReference(owner)] }),
    },
    spec: {
      lifecycleState: LifecycleState.Active,
      revision: parts.revision,
      phases,
      ...(deadline !== undefined && deadline > 0 ? { progressDeadlineMinutes: deadline } : {}),
      progressionProbes: structuredClone([...DEFAULT_PROGRESSION_PROBES]),
      collisionProtection: parts.collisionProtection,
    },
  };
}

/**
 * Revision `revision` of `desired` for `owner`, its objects inline (see the module comment);
 * the CRDs named in `kept` taken back.
 */
export function desiredRevision(owner: RevisionOwner, desired: DesiredRevision, revision: number, kept?: ReadonlySet<string>): ObjectSetManifest {
  const labels = ownerLabels(owner.name);
  const annotations = objectAnnotations(desired.bundle, false);
  return buildRevision({
    owner,
    revision,
    objects: desired.manifest.map((obj) => revisionObject(obj, labels, annotations)),
    annotations: bundleAnnotations(desired.bundle, desired.properties),
    collisionProtection: CollisionProtection.Prevent,
    kept,
  });
}

/**
 * Names of the CRDs `set` takes back (its objects under IfNoController), given its objects in
 * phase order (`objects`: a record's manifest, or the inline objects of the same content).
 */
export function keptCrdNames(set: Pick<ObjectSetManifest, 'spec'>, objects: readonly (Record<string, unknown> | undefined)[]): Set<string> {
  const names = new Set<string>();
  set.spec.phases
    .flatMap((phase) => phase.objects)
    .forEach((entry, k) => {
      const object = objects[k] as KubeObject | undefined;
      if (
        entry.collisionProtection === CollisionProtection.IfNoController &&
        object !== undefined &&
        isCrd(object) &&
        object.metadata.name !== undefined
      )
        names.add(object.metadata.name);
    });
  return names;
}

/** The objects of `set` held inline, in phase order. */
export function inlineObjects(set: Pick<ObjectSetManifest, 'spec'>): (Record<string, unknown> | undefined)[] {
  return set.spec.phases.flatMap((p) => p.objects.map((o) => o.object));
}

/**
 * Revision 1 made from the deployed Helm record `release` (upstream's
 * GenerateRevisionFromHelmRelease): the record's objects, the bundle release annotated on each
 * object too, collision protection `None` (the objects exist: adopted, not recreated),
 * labelled as migrated.
 */
export function migratedRevision(owner: RevisionOwner, release: Release): ObjectSetManifest {
  const labels = ownerLabels(owner.name);
  const annotations = objectAnnotations(release.bundle, true);
  return buildRevision({
    owner,
    revision: 1,
    objects: release.manifest.map((obj) => revisionObject(obj, labels, annotations)),
    annotations: bundleAnnotations(release.bundle, []),
    collisionProtection: CollisionProtection.None,
    labels: { [MIGRATED_FROM_HELM_LABEL]: 'true' },
  });
}

/** `sets` by revision number, oldest first (a new array). */
export function sortRevisions<T extends { spec: { revision: number } }>(sets: readonly T[]): T[] {
  return [...sets].sort((a, b) => a.spec.revision - b.spec.revision);
}

/** The number of the next revision: the newest one's + 1, 1 when there is none. `sets` oldest first. */
export function nextRevisionNumber(sets: readonly { spec: { revision: number } }[]): number {
  return (sets.at(-1)?.spec.revision ?? 0) + 1;
}

/** Names of the archived revisions beyond the retention limit, to delete before a new one is made. `sets` oldest first. */
export function revisionsToCollect(sets: readonly ObjectSetManifest[]): string[] {
  return sets
    .filter((s, index) => index < sets.length - REVISION_RETENTION_LIMIT && s.spec.lifecycleState === LifecycleState.Archived)
    .map((s) => s.metadata.name);
}

/** What the API server compares of a phase: its name, objects (inline or refs) and protection. */
function phaseContent(phases: readonly ObjectSetPhase[] | undefined): unknown {
  return (phases ?? []).map((p) => ({
    name: p.name,
    collisionProtection: p.collisionProtection,
    objects: p.objects.map((o) => ({ object: o.object, ref: o.ref, collisionProtection: o.collisionProtection })),
  }));
}

/**
 * True when `current` (the newest revision) already is `desired` (packed with `current`'s
 * name): Active, and the same revision number, phases and collision protection, the fields the
 * API server refuses to change.
 */
export function sameRevision(current: Pick<ObjectSetManifest, 'spec'>, desired: Pick<ObjectSetManifest, 'spec'>): boolean {
  return (
    current.spec.lifecycleState === LifecycleState.Active &&
    current.spec.revision === desired.spec.revision &&
    current.spec.collisionProtection === desired.spec.collisionProtection &&
    jsonEqual(phaseContent(current.spec.phases), phaseContent(desired.spec.phases))
  );
}

/** `set` renamed (and renumbered) as `current`, so that its Secrets and refs are packed for it. */
export function asRevision(set: ObjectSetManifest, current: { metadata: { name: string }; spec: { revision: number } }): ObjectSetManifest {
  return { ...set, metadata: { ...set.metadata, name: current.metadata.name }, spec: { ...set.spec, revision: current.spec.revision } };
}

/**
 * True when release record `record` (a revision read back, boxcutter-store.ts) already holds
 * `desired`: the same bundle and the same objects as `desired`'s revision would hold them. What
 * the plan's "unchanged" needs under BoxcutterRuntime, where a record's objects are the
 * revision's (reduced and annotated), never the rendered ones that release-apply's
 * `sameRecordContent` compares. Collision protection is not in a record: the migrated revision (None)
 * counts as holding its content, and the applier still replaces it (as upstream).
 */
export function sameRevisionContent(record: Release, desired: DesiredRevision): boolean {
  if (!jsonEqual(record.bundle, desired.bundle)) return false;
  const want = desiredRevision({ name: desired.extension, uid: desired.extensionUID }, desired, record.revision).spec.phases.flatMap((p) =>
    p.objects.map((o) => o.object),
  );
  return jsonEqual(record.manifest.objects(), want);
}
