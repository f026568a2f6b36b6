/**
 * The Installed pages' data (pure): each ClusterExtension's row with its conditions at a glance,
 * the detail of one (every condition, its Events, its release history), the objects of its
 * deployed release with their health as operator-controller's health step judges them, and what
 * uninstalling it deletes and keeps.
 */
import type { DeletionPreview } from '../crd-deletion/index.ts';
import { healthVerdict, objectHealth, type ObjectHealth } from '../../operator-controller/drift/index.ts';
import type { Release } from '../../operator-controller/release/index.ts';
import { installed, objectSetView, type ObjectSetView, type Revision } from '../../operator-controller/revisions/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';

/** One ClusterExtension as the Installed page shows it. */
export interface ExtensionRow {
  name: string;
  namespace: string;
  package: string;
  version: string;
  /** Condition statuses ("True", "False", "Unknown", or "" when absent) with their messages. */
  installed: ConditionView;
  progressing: ConditionView;
  healthy: ConditionView;
  /** operator-controller's UpgradeAvailable condition (True while an upgrade waits for approval). */
  upgradeAvailable: ConditionView;
}

interface ConditionView {
  status: string;
  reason: string;
  message: string;
}

/** One status condition of a ClusterExtension. */
interface ConditionDetail extends ConditionView {
  type: string;
  lastTransitionTime: string;
}

/** One Event about a ClusterExtension. */
interface EventRow {
  type: string;
  reason: string;
  message: string;
  count: number;
  /** When it was last seen (RFC 3339), '' when the Event says nothing. */
  lastSeen: string;
}

/** One revision of a release, as `olmv1 release history` prints it. */
interface ReleaseRow {
  revision: number;
  status: string;
  bundle: string;
  version: string;
  description: string;
  /** Last (else first) deployed, RFC 3339; '' when the record has neither. */
  updated: string;
  objects: number;
  /** Its ClusterObjectSet when the revisions are ClusterObjectSets (BoxcutterRuntime): name, lifecycle state, Available, Progressing. */
  objectSet?: ObjectSetView;
}

/** Where an install stands, as `olmv1 install` reports it while it waits. */
export interface InstallProgress {
  /** `retrying`: operator-controller's last attempt failed (Progressing Retrying) and it tries again. */
  state: 'installed' | 'waiting' | 'failed' | 'retrying';
  /** The Progressing reason and message of the current generation, or that operator-controller has not seen it yet. */
  progress: string;
}

/** The detail page of one ClusterExtension; the parts the user may not read are in `problems`. */
export interface ExtensionDetail {
  row: ExtensionRow;
  progress: InstallProgress;
  uid: string;
  serviceAccount: string;
  /** Set while the ClusterExtension is being deleted. */
  deleting: boolean;
  conditions: ConditionDetail[];
  events: EventRow[];
  releases: ReleaseRow[];
  problems: string[];
  /** How many Nodes are Ready, when the user may list them (none: no Pod runs, so the health is explained). */
  readyNodes?: number;
}

/** What uninstalling a ClusterExtension deletes and what it keeps. */
export interface UninstallPreview {
  name: string;
  /** The ClusterExtension's uid: the deletion is preconditioned on it. */
  uid: string;
  /** `Kind namespace/name` of what goes: the ClusterExtension, then the objects of its release operator-controller removes. */
  deleted: string[];
  /** CRDs kept, with their custom resources per namespace. */
  keptCrds: { name: string; customResources: { namespace: string; count: number }[]; note: string }[];
  /** Other objects kept (the installer's ServiceAccount and RBAC, the namespace). */
  kept: string[];
  problems: string[];
}

/** The row of one ClusterExtension object as the API server returned it. */
export function extensionRow(obj: unknown): ExtensionRow {
  const o = rec(obj);
  const spec = rec(o.spec);
  const status = rec(o.status);
  const conds = conditionsOf(obj);
  const cond = (type: string): ConditionView => {
    const c = conds.find((x) => x.type === type);
    return { status: c?.status ?? '', reason: c?.reason ?? '', message: c?.message ?? '' };
  };
  return {
    name: s(rec(o.metadata).name),
    namespace: s(spec.namespace),
    package: s(rec(rec(spec.source).catalog).packageName),
    version: s(rec(rec(status.install).bundle).version),
    installed: cond('Installed'),
    progressing: cond('Progressing'),
    healthy: cond('Healthy'),
    upgradeAvailable: cond('UpgradeAvailable'),
  };
}

/** The detail of a ClusterExtension from the object, its Events (core v1) and its revisions (newest first). */
export function extensionDetail(
  obj: unknown,
  progress: InstallProgress,
  events: readonly unknown[],
  revisions: readonly Revision[],
  problems: readonly string[],
): ExtensionDetail {
  const o = rec(obj);
  const meta = rec(o.metadata);
  const row = extensionRow(obj);
  return {
    row,
    // Failing and retrying, whether or not an earlier version stays installed: never "Installing".
    progress: row.progressing.reason === 'Retrying' ? { state: 'retrying', progress: row.progressing.message } : progress,
    uid: s(meta.uid),
    serviceAccount: s(rec(rec(o.spec).serviceAccount).name),
    deleting: s(meta.deletionTimestamp) !== '',
    conditions: conditionsOf(obj),
    // Matched by uid: the Events of a deleted extension of the same name are not this one's.
    events: events
      .filter((e) => s(rec(rec(e).involvedObject).uid) === s(meta.uid))
      .map(eventRow)
      .sort((a, b) => (a.lastSeen < b.lastSeen ? 1 : a.lastSeen > b.lastSeen ? -1 : 0)),
    releases: revisions.map((r) => {
      const set = objectSetView(r);
      return set === undefined ? releaseRow(r.record) : { ...releaseRow(r.record), objectSet: set };
    }),
    problems: [...problems],
  };
}

function releaseRow(r: Release): ReleaseRow {
  return {
    revision: r.revision,
    status: r.status,
    bundle: r.bundle.name,
    version: r.bundle.version,
    description: r.description,
    updated: r.lastDeployed ?? r.firstDeployed ?? '',
    objects: r.manifest.identities().length,
  };
}

/**
 * What uninstalling `obj` does: the ClusterExtension goes, and with it what its release applied
 * except CustomResourceDefinitions (operator-controller removes those objects; CRDs and their
 * custom resources are always kept); the installer ServiceAccount, its RBAC and the namespace stay.
 */
export function uninstallPreview(
  obj: unknown,
  revisions: readonly Revision[],
  crds: DeletionPreview | undefined,
  installerObjects: readonly string[],
  problems: readonly string[],
): UninstallPreview {
  const row = extensionRow(obj);
  const newest = installed(revisions) ?? revisions[0];
  const deleted = [`ClusterExtension ${row.name}`];
  const releaseCrds = new Set<string>();
  for (const id of newest?.objects.identities() ?? []) {
    const name = id.metadata.name ?? '';
    if (id.kind === 'CustomResourceDefinition') releaseCrds.add(name);
    else deleted.push(`${id.kind} ${id.metadata.namespace === undefined ? '' : `${id.metadata.namespace}/`}${name}`);
  }
  const keptCrds: UninstallPreview['keptCrds'] = [];
  for (const c of crds?.crds ?? []) keptCrds.push({ name: c.name, customResources: c.customResources.map((n) => ({ ...n })), note: '' });
  for (const r of crds?.refusals ?? [])
    if (!keptCrds.some((k) => k.name === r.crd)) keptCrds.push({ name: r.crd, customResources: [], note: r.reason });
  for (const name of releaseCrds)
    if (!keptCrds.some((k) => k.name === name)) keptCrds.push({ name, customResources: [], note: 'named by the release' });
  keptCrds.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    name: row.name,
    uid: s(rec(rec(obj).metadata).uid),
    deleted,
    keptCrds,
    kept: [...installerObjects, ...(row.namespace === '' ? [] : [`Namespace ${row.namespace}`])],
    problems: [...problems],
  };
}

/**
 * One object of the deployed release: `Healthy` or `Unhealthy` for the kinds the health step
 * judges (Deployments, StatefulSets, DaemonSets, CRDs, cert-manager Certificates and Issuers),
 * `Present` for the others, `NotFound`, or `Unreadable` with the API server's refusal.
 */
interface ReleaseObjectRow {
  apiVersion: string;
  kind: string;
  /** '' for a cluster-scoped object. */
  namespace: string;
  name: string;
  health: 'Healthy' | 'Unhealthy' | 'Present' | 'NotFound' | 'Unreadable';
  /** Why it is not healthy (the health step's words), or the API server's answer. */
  message: string;
}

/** The objects of an extension's deployed release, read as the user. */
export interface ReleaseObjectsView {
  /** The deployed revision, 0 when there is none. */
  revision: number;
  bundle: string;
  version: string;
  objects: ReleaseObjectRow[];
  /**
   * The Healthy condition the health step would write from these objects; undefined while an
   * object it judges could not be read.
   */
  verdict: { status: string; reason: string; message: string } | undefined;
}

/** How reading one object of the release went: the object, or the API server's error (its status and message). */
type ObjectRead = { object: unknown } | { status: number | undefined; error: string };

/** An object of the release as read: its identity (namespace as it was read) and the outcome. */
export interface ReleaseObjectRead {
  identity: { apiVersion: string; kind: string; name: string; namespace: string };
  read: ObjectRead;
}

/**
 * The objects of `release` with their health, from each one's read; judged as the health step
 * judges them (drift/health.ts), a judged object that is not found being unhealthy.
 */
export function releaseObjectsView(release: Release | undefined, reads: readonly ReleaseObjectRead[]): ReleaseObjectsView {
  const judgedObjects: { object: string; health: ObjectHealth }[] = [];
  let unread = false;
  const objects = reads.map(({ identity: id, read }): ReleaseObjectRow => {
    const base = { apiVersion: id.apiVersion, kind: id.kind, namespace: id.namespace, name: id.name };
    const ref: KubeObject = { apiVersion: id.apiVersion, kind: id.kind, metadata: { name: id.name } };
    // A verdict on the bare identity means the health step judges the kind.
    const judged = objectHealth(ref) !== undefined;
    const described = `${id.kind} ${id.namespace === '' ? '' : `${id.namespace}/`}${id.name}`;
    if ('error' in read) {
      if (read.status !== 404) {
        if (judged) unread = true;
        return { ...base, health: 'Unreadable', message: read.error };
      }
      if (judged) judgedObjects.push({ object: described, health: { ready: false, why: 'not found' } });
      return { ...base, health: 'NotFound', message: judged ? 'not found' : read.error };
    }
    const o = rec(read.object);
    const health = objectHealth({ ...o, apiVersion: id.apiVersion, kind: id.kind, metadata: rec(o.metadata) } as KubeObject);
    if (health === undefined) return { ...base, health: 'Present', message: '' };
    judgedObjects.push({ object: described, health });
    return health.ready ? { ...base, health: 'Healthy', message: '' } : { ...base, health: 'Unhealthy', message: health.why };
  });
  return {
    revision: release?.revision ?? 0,
    bundle: release?.bundle.name ?? '',
    version: release?.bundle.version ?? '',
    objects,
    verdict: release === undefined || unread ? undefined : healthVerdict({ observed: true, objects: judgedObjects }),
  };
}

function conditionsOf(obj: unknown): ConditionDetail[] {
  const status = rec(rec(obj).status);
  const conds = Array.isArray(status.conditions) ? status.conditions.map(rec) : [];
  return conds.map((c) => ({
    type: s(c.type),
    status: s(c.status),
    reason: s(c.reason),
    message: s(c.message),
    lastTransitionTime: s(c.lastTransitionTime),
  }));
}

function eventRow(obj: unknown): EventRow {
  const e = rec(obj);
  const series = rec(e.series);
  const lastSeen = [s(series.lastObservedTime), s(e.lastTimestamp), s(e.eventTime), s(rec(e.metadata).creationTimestamp)].find((t) => t !== '') ?? '';
  const count = typeof series.count === 'number' ? series.count : typeof e.count === 'number' ? e.count : 1;
  return { type: s(e.type), reason: s(e.reason), message: s(e.message) || s(e.note), count, lastSeen };
}

function rec(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function s(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
