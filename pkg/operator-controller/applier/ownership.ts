/**
 * Single ownership (decision 0049): which live objects a ClusterExtension may write. Before any
 * write, each object of the release is classified by its live copy's metadata:
 *
 * - absent: it may be created;
 * - ours: it carries this extension's owner labels, or upstream Helm's ownership metadata for
 *   this extension's release (a cluster moving from upstream), or it is a CustomResourceDefinition
 *   an uninstall of this same package kept (KEPT_FOR_PACKAGE_ANNOTATION), which is taken back;
 * - another extension's (its owner labels name another ClusterExtension) or nobody's we know:
 *   a conflict. The reconcile fails with upstream's message and nothing is written.
 *
 * A person adopts a hand-made object explicitly by giving it the owner labels, as Helm users do
 * with Helm's ownership metadata. The verdicts are pure (`ownershipOf` for an object,
 * `decideOwnership` for a release); `readLiveOwners` is the edge, reading what they need: nothing
 * for objects the caller already knows to be ours (the drift watches' synced caches), otherwise
 * one metadata-only LIST per resource and namespace (by name where only one object of it is
 * asked about). `checkOwnership` is the two, throwing a conflict.
 */
import { HELM_OWNERSHIP, KEPT_FOR_PACKAGE_ANNOTATION, OWNER_KIND_LABEL, OWNER_NAME_LABEL } from '../../shared/api/index.ts';
import { isForbidden, isNoKindMatch, isNotFound, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import type { OwnerReference } from '../../shared/unstructured/index.ts';
import { DRY_RUN_PREFIX } from './apply-error.ts';
import { OWNER_KIND, isCrd, objectIdentity, refOf } from './objects.ts';
import { refersToExtension } from './owner-references.ts';

/** Who is asking to write: the extension, its package and its install namespace. */
export interface Owner {
  extension: string;
  packageName: string;
  installNamespace: string;
}

/** The parts of a live object the verdict reads. */
export interface LiveMetadata {
  name?: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

/** How a live object relates to an extension. */
type Ownership =
  | { kind: 'absent' }
  | { kind: 'ours' }
  /** A CRD an uninstall of the same package kept: ours once its annotation is removed. */
  | { kind: 'kept-crd' }
  | { kind: 'other-extension'; extension: string }
  | { kind: 'unowned' };

/** True when `meta` carries the owner labels of `extension`. */
export function ownedBy(meta: LiveMetadata | undefined, extension: string): boolean {
  const labels = meta?.labels ?? {};
  return labels[OWNER_KIND_LABEL] === OWNER_KIND && labels[OWNER_NAME_LABEL] === extension;
}

/** True when `meta` carries upstream Helm's ownership metadata for the extension's release. */
function helmOwnedBy(meta: LiveMetadata, owner: Owner): boolean {
  const a = meta.annotations ?? {};
  return (
    meta.labels?.[HELM_OWNERSHIP.managedByLabel] === HELM_OWNERSHIP.managedByValue &&
    a[HELM_OWNERSHIP.releaseNameAnnotation] === owner.extension &&
    a[HELM_OWNERSHIP.releaseNamespaceAnnotation] === owner.installNamespace
  );
}

/** The verdict for the live copy `live` (undefined: absent) of `obj`; see the module comment. */
export function ownershipOf(obj: { apiVersion: string; kind: string }, live: LiveMetadata | undefined, owner: Owner): Ownership {
  if (live === undefined) return { kind: 'absent' };
  const kept = live.annotations?.[KEPT_FOR_PACKAGE_ANNOTATION];
  if (kept !== undefined && isCrd(obj)) {
    // Kept by an uninstall: only the same package takes it back, whichever extension it was.
    return kept === owner.packageName ? { kind: 'kept-crd' } : { kind: 'unowned' };
  }
  const named = live.labels?.[OWNER_KIND_LABEL] === OWNER_KIND ? live.labels[OWNER_NAME_LABEL] : undefined;
  if (named === owner.extension || helmOwnedBy(live, owner)) return { kind: 'ours' };
  return named === undefined || named === '' ? { kind: 'unowned' } : { kind: 'other-extension', extension: named };
}

/**
 * Upstream's words for an object it may not manage (decision 0049):
 * `<Kind> '<name>' already exists in namespace '<ns>' and cannot be managed by
 * operator-controller`, with `namespace ''` for cluster-scoped objects.
 */
export function conflictMessage(obj: KubeObject): string {
  return `${obj.kind} '${obj.metadata.name ?? ''}' already exists in namespace '${obj.metadata.namespace ?? ''}' and cannot be managed by operator-controller`;
}

/** An object the release may not write, with its verdict. */
type Conflict = { object: KubeObject; ownership: Ownership };

/** A release that would write objects another extension or nobody we know owns; nothing was written. */
export class OwnershipConflictError extends Error {
  /** Every conflicting object with its verdict, in the release's order. */
  readonly conflicts: Conflict[];

  constructor(conflicts: Conflict[]) {
    const first = conflicts[0];
    // Upstream names the first conflicting object only; the others are in `conflicts` (logged).
    super(DRY_RUN_PREFIX + (first === undefined ? 'ownership conflict' : conflictMessage(first.object)));
    this.name = 'OwnershipConflictError';
    this.conflicts = conflicts;
  }
}

/** The verdict on a release when nothing conflicts. */
export interface OwnershipReport {
  /** Identities (objectIdentity) of the objects that do not exist yet. */
  absent: Set<string>;
  /** Kept CRDs taken back: their KEPT_FOR_PACKAGE_ANNOTATION is removed after the apply. */
  adopted: KubeObject[];
  /**
   * Objects that are ours whose live copy carries an owner reference to this extension
   * (upstream's Helm applier puts one on everything it applies): removed before the first write
   * (owner-references.ts), so the garbage collector never deletes what an uninstall keeps.
   */
  referenced: { object: KubeObject; ownerReferences: OwnerReference[] }[];
}

/** The verdict on writing a release: allowed (with what to do around the write), or its conflicts in the release's order. */
export type OwnershipVerdict = { kind: 'allowed'; report: OwnershipReport } | { kind: 'conflict'; conflicts: Conflict[] };

/**
 * What `readLiveOwners` read, in the order it read them (by resource and namespace): each object
 * it looked up with its live metadata (undefined: absent). Those not in it were not looked up:
 * the caller knows them to be ours.
 */
type LiveOwners = ReadonlyMap<KubeObject, LiveMetadata | undefined>;

/** The verdict on writing `objects` for `owner` from what was read of them (pure; see the module comment). */
export function decideOwnership(objects: readonly KubeObject[], owner: Owner, live: LiveOwners): OwnershipVerdict {
  const report: OwnershipReport = { absent: new Set(), adopted: [], referenced: [] };
  const conflicts: Conflict[] = [];
  for (const [obj, meta] of live) {
    const ownership = ownershipOf(obj, meta, owner);
    if (ownership.kind === 'absent') report.absent.add(objectIdentity(obj));
    else if (ownership.kind === 'kept-crd') report.adopted.push(obj);
    else if (ownership.kind !== 'ours') conflicts.push({ object: obj, ownership });
    const refs = meta?.ownerReferences ?? [];
    if ((ownership.kind === 'ours' || ownership.kind === 'kept-crd') && refs.some((r) => refersToExtension(r, owner.extension))) {
      report.referenced.push({ object: obj, ownerReferences: refs });
    }
  }
  if (conflicts.length === 0) return { kind: 'allowed', report };
  const order = new Map(objects.map((o, i) => [o, i]));
  conflicts.sort((a, b) => (order.get(a.object) ?? 0) - (order.get(b.object) ?? 0));
  return { kind: 'conflict', conflicts };
}

/** Options of `readLiveOwners` and `checkOwnership`. */
interface ReadOwnersOptions {
  /** True for objects already known to carry the owner labels (a synced drift watch holds them): not read. */
  knownOwned?: (obj: KubeObject) => boolean;
  signal?: AbortSignal;
}

/**
 * Reads, as `client` (the extension's ServiceAccount), the live metadata of the objects of
 * `objects` not known to be ours: one metadata-only LIST per resource and namespace; where that
 * LIST is forbidden, a GET per object. A kind the API server does not serve (yet) counts as
 * absent: its CRD is in the release, or the dry run reports it.
 */
async function readLiveOwners(client: KubeClient, objects: readonly KubeObject[], options: ReadOwnersOptions = {}): Promise<LiveOwners> {
  const unknown = objects.filter((obj) => options.knownOwned?.(obj) !== true);
  const groups = Map.groupBy(unknown, (obj) => `${obj.apiVersion}|${obj.kind}|${obj.metadata.namespace ?? ''}`);
  const live = new Map<KubeObject, LiveMetadata | undefined>();
  for (const group of groups.values()) {
    const found = await liveMetadata(client, group, options.signal);
    for (const obj of group) live.set(obj, found.get(obj.metadata.name ?? ''));
  }
  return live;
}

/** `readLiveOwners`, then `decideOwnership`: throws OwnershipConflictError listing the objects that may not be written. */
export async function checkOwnership(
  client: KubeClient,
  objects: readonly KubeObject[],
  owner: Owner,
  options: ReadOwnersOptions = {},
): Promise<OwnershipReport> {
  const verdict = decideOwnership(objects, owner, await readLiveOwners(client, objects, options));
  if (verdict.kind === 'conflict') throw new OwnershipConflictError(verdict.conflicts);
  return verdict.report;
}

/** Most cluster-scoped objects of one kind in a release that are listed by name, one request each. */
const BY_NAME_MAX = 4;

/** Live metadata by name of the objects of one group (same type and namespace). */
async function liveMetadata(client: KubeClient, group: readonly KubeObject[], signal?: AbortSignal): Promise<Map<string, LiveMetadata>> {
  const first = group[0];
  const found = new Map<string, LiveMetadata>();
  if (first === undefined) return found;
  try {
    const ns = first.metadata.namespace;
    const type = { apiVersion: first.apiVersion, kind: first.kind };
    const scope = { ...(ns === undefined ? {} : { namespace: ns }), metadataOnly: true as const, signal };
    const wanted = new Set(group.map((o) => o.metadata.name ?? ''));
    // An object listed by name gives an answer that does not grow with what else the cluster
    // holds (a thousand tenants' ClusterRoles are several pages per upgrade): a lone object of
    // its resource and namespace (the usual upgrade: cluster-scoped objects whose names change
    // with the version), and each of a few cluster-scoped ones, where the kind is shared by
    // every tenant. Same verb; one request per object instead of one or more pages per kind.
    const names = group.length === 1 || (ns === undefined && group.length <= BY_NAME_MAX) ? [...wanted] : undefined;
    const lists =
      names === undefined
        ? [client.listAll(type, scope)]
        : names.map((name) => client.listAll(type, { ...scope, fieldSelector: `metadata.name=${name}` }));
    for (const list of await Promise.all(lists)) {
      for (const item of list.items) if (wanted.has(item.metadata.name ?? '')) found.set(item.metadata.name ?? '', item.metadata);
    }
    return found;
  } catch (err) {
    if (isNoKindMatch(err)) return found;
    if (!isForbidden(err)) throw err;
  }
  // Listing is forbidden (a ServiceAccount granted by hand): read each object.
  for (const obj of group) {
    try {
      found.set(obj.metadata.name ?? '', (await client.get(refOf(obj), { signal })).metadata);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  return found;
}
