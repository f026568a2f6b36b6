/**
 * The Installed pages' data (pure): each ClusterExtension's row with its conditions at a glance,
 * the detail of one (every condition, its Events, its release history), and what uninstalling it
 * deletes and keeps.
 */
import type { DeletionPreview } from '../crd-deletion/index.ts';
import type { Release } from '../../operator-controller/release/index.ts';

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
}

/** Where an install stands, as `olmv1 install` reports it while it waits. */
export interface InstallProgress {
  state: 'installed' | 'waiting' | 'failed';
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

/** The detail of a ClusterExtension from the object, its Events (core v1) and its release history (newest first). */
export function extensionDetail(
  obj: unknown,
  progress: InstallProgress,
  events: readonly unknown[],
  history: readonly Release[],
  problems: readonly string[],
): ExtensionDetail {
  const o = rec(obj);
  const meta = rec(o.metadata);
  return {
    row: extensionRow(obj),
    progress,
    uid: s(meta.uid),
    serviceAccount: s(rec(rec(o.spec).serviceAccount).name),
    deleting: s(meta.deletionTimestamp) !== '',
    conditions: conditionsOf(obj),
    events: events.map(eventRow).sort((a, b) => (a.lastSeen < b.lastSeen ? 1 : a.lastSeen > b.lastSeen ? -1 : 0)),
    releases: history.map((r) => ({
      revision: r.revision,
      status: r.status,
      bundle: r.bundle.name,
      version: r.bundle.version,
      description: r.description,
      updated: r.lastDeployed ?? r.firstDeployed ?? '',
      objects: r.manifest.identities().length,
    })),
    problems: [...problems],
  };
}

/**
 * What uninstalling `obj` does: the ClusterExtension goes, and with it what its release applied
 * except CustomResourceDefinitions (operator-controller removes those objects; CRDs and their
 * custom resources are always kept); the installer ServiceAccount, its RBAC and the namespace stay.
 */
export function uninstallPreview(
  obj: unknown,
  history: readonly Release[],
  crds: DeletionPreview | undefined,
  installerObjects: readonly string[],
  problems: readonly string[],
): UninstallPreview {
  const row = extensionRow(obj);
  const newest = history.find((r) => r.status === 'deployed') ?? history[0];
  const deleted = [`ClusterExtension ${row.name}`];
  const releaseCrds = new Set<string>();
  for (const id of newest?.manifest.identities() ?? []) {
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
