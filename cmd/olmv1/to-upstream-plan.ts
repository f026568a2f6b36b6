/**
 * What `olmv1 migrate to-upstream` changes on each ClusterExtension (pure). Removed, as upstream
 * would never remove them: UNINSTALL_FINALIZER (deletions would hang), ORPHAN_OBJECTS_ANNOTATION
 * (upstream does not keep objects), the Healthy and UpgradeAvailable conditions (they would stay
 * as last written). Kept: upstream's finalizers and the update-policy annotations (a note says
 * upstream ignores them). Refused: an unfinished uninstall or a pending release record.
 */
import {
  APPROVED_BUNDLE_ANNOTATION,
  HealthConditionType,
  ORPHAN_OBJECTS_ANNOTATION,
  UNINSTALL_FINALIZER,
  UPDATE_POLICY_ANNOTATION,
  UpdatePolicy,
  UpgradeConditionType,
} from '../../pkg/shared/api/index.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';

/** Annotations removed from every extension (see the module comment). */
const REMOVED_ANNOTATIONS: readonly string[] = [ORPHAN_OBJECTS_ANNOTATION];

/** Status condition types removed from every extension (see the module comment). */
const REMOVED_CONDITIONS: readonly string[] = [HealthConditionType.Healthy, UpgradeConditionType.UpgradeAvailable];

/** Helm statuses of a revision an apply left unfinished; upstream's Helm refuses to act on such a release. */
const PENDING_STATUSES: ReadonlySet<string> = new Set(['pending-install', 'pending-upgrade', 'pending-rollback']);

/** The latest release record of an extension, as its index Secret's labels say. */
export interface LatestRecord {
  revision: number;
  status: string;
}

/** What to write on one extension; every field absent means nothing to change there. */
export interface ExtensionChange {
  name: string;
  /** The resourceVersion read: each write carries it, so a change made meanwhile is not overwritten. */
  resourceVersion: string;
  /** The whole new finalizer list (a merge patch replaces lists), when a finalizer goes. */
  finalizers?: string[];
  removedFinalizers: string[];
  removedAnnotations: string[];
  /** The whole new condition list, when a condition goes. */
  conditions?: unknown[];
  removedConditions: string[];
}

/** The verdict for one extension. */
export type ExtensionPlan =
  | { kind: 'change'; change: ExtensionChange; notes: string[] }
  | { kind: 'unchanged'; name: string; notes: string[] }
  | { kind: 'blocked'; name: string; reason: string };

/** The plan for `ce`, whose latest release record is `latest` (the module comment says what and why). */
export function planExtension(ce: KubeObject, latest: LatestRecord | undefined): ExtensionPlan {
  const name = ce.metadata.name ?? '';
  const finalizers = ce.metadata.finalizers ?? [];
  const annotations = ce.metadata.annotations ?? {};
  const deleting = (ce.metadata.deletionTimestamp ?? '') !== '';
  if (deleting && finalizers.includes(UNINSTALL_FINALIZER)) {
    return {
      kind: 'blocked',
      name,
      reason:
        `it is being deleted and its uninstall has not finished (finalizer ${UNINSTALL_FINALIZER}); only this project's operator-controller ` +
        `can finish it (upstream's would leave its objects behind): start it again until the extension is gone, stop it, and run this command again`,
    };
  }
  if (latest !== undefined && PENDING_STATUSES.has(latest.status)) {
    return {
      kind: 'blocked',
      name,
      reason:
        `its latest release record (revision ${latest.revision}) is ${latest.status}: operator-controller stopped during an apply, and upstream's ` +
        `refuses such a release ("another operation (install/upgrade/rollback) is in progress"); start this project's operator-controller ` +
        `again until the extension's Progressing condition says "Desired state reached", stop it, and run this command again`,
    };
  }
  const notes = deleting ? [] : [...policyNotes(name, annotations), ...failedNotes(name, latest)];
  const removedFinalizers = finalizers.filter((f) => f === UNINSTALL_FINALIZER);
  // An extension on its way out keeps its annotations and status: they go with it.
  const removedAnnotations = deleting ? [] : REMOVED_ANNOTATIONS.filter((a) => a in annotations);
  const conditions = deleting ? [] : conditionsOf(ce);
  const keptConditions = conditions.filter((c) => !REMOVED_CONDITIONS.includes(conditionType(c)));
  const removedConditions = conditions.filter((c) => REMOVED_CONDITIONS.includes(conditionType(c))).map(conditionType);
  if (removedFinalizers.length === 0 && removedAnnotations.length === 0 && removedConditions.length === 0) return { kind: 'unchanged', name, notes };
  const change: ExtensionChange = {
    name,
    resourceVersion: ce.metadata.resourceVersion ?? '',
    ...(removedFinalizers.length === 0 ? {} : { finalizers: finalizers.filter((f) => f !== UNINSTALL_FINALIZER) }),
    removedFinalizers,
    removedAnnotations,
    ...(removedConditions.length === 0 ? {} : { conditions: keptConditions }),
    removedConditions,
  };
  return { kind: 'change', change, notes };
}

/** The merge patch of the object's metadata for `change`, or undefined when its metadata stays. */
export function metadataPatch(change: ExtensionChange): Record<string, unknown> | undefined {
  if (change.finalizers === undefined && change.removedAnnotations.length === 0) return undefined;
  const annotations = Object.fromEntries(change.removedAnnotations.map((a) => [a, null]));
  return {
    metadata: {
      resourceVersion: change.resourceVersion,
      ...(change.finalizers === undefined ? {} : { finalizers: change.finalizers }),
      ...(change.removedAnnotations.length === 0 ? {} : { annotations }),
    },
  };
}

/** The merge patch of the status subresource for `change` at `resourceVersion`, or undefined when the status stays. */
export function statusPatch(change: ExtensionChange, resourceVersion: string): Record<string, unknown> | undefined {
  if (change.conditions === undefined) return undefined;
  return { metadata: { resourceVersion }, status: { conditions: change.conditions } };
}

/** One line saying what `change` removes. */
export function describeChange(change: ExtensionChange): string {
  const parts: string[] = [];
  for (const f of change.removedFinalizers) parts.push(`finalizer ${f}`);
  for (const a of change.removedAnnotations) parts.push(`annotation ${a}`);
  if (change.removedConditions.length > 0)
    parts.push(`condition${change.removedConditions.length > 1 ? 's' : ''} ${change.removedConditions.join(', ')}`);
  return parts.join('; ');
}

/** The latest release record of each extension, from its index Secrets' labels (upstream's chunked driver's and ours). */
export function latestRecords(indexSecrets: readonly KubeObject[]): Map<string, LatestRecord> {
  const latest = new Map<string, LatestRecord>();
  for (const s of indexSecrets) {
    const labels = s.metadata.labels ?? {};
    const name = labels['name'];
    const revision = Number(labels['version']);
    if (name === undefined || !Number.isInteger(revision)) continue;
    const seen = latest.get(name);
    if (seen === undefined || seen.revision < revision) latest.set(name, { revision, status: labels['status'] ?? '' });
  }
  return latest;
}

/** The Lease as the command reads it. */
interface LeaseView {
  spec?: { holderIdentity?: string | null; renewTime?: string | null; acquireTime?: string | null; leaseDurationSeconds?: number | null };
}

/** The holder of `lease` while its last renewal plus duration is ahead of `nowMs` (a killed holder keeps it until then). */
export function leaseHolder(lease: LeaseView, nowMs: number): string | undefined {
  const spec = lease.spec ?? {};
  const holder = spec.holderIdentity ?? '';
  if (holder === '') return undefined;
  const renewed = Date.parse(spec.renewTime ?? spec.acquireTime ?? '');
  // A holder without a readable renewal time counts as holding: refusing is the safe side.
  if (Number.isNaN(renewed)) return holder;
  return renewed + (spec.leaseDurationSeconds ?? 0) * 1000 > nowMs ? holder : undefined;
}

/** What upstream will do differently with the update-policy annotations of an extension. */
function policyNotes(name: string, annotations: Readonly<Record<string, string>>): string[] {
  const policy = annotations[UPDATE_POLICY_ANNOTATION];
  if (policy === undefined || policy === UpdatePolicy.Automatic) return [];
  const approved = annotations[APPROVED_BUNDLE_ANNOTATION];
  return [
    `${name}: upstream ignores ${UPDATE_POLICY_ANNOTATION}=${policy}${approved === undefined ? '' : ` and ${APPROVED_BUNDLE_ANNOTATION}`} ` +
      `(kept): it installs whatever its resolution picks; to hold the installed version, set spec.source.catalog.version before starting it`,
  ];
}

/**
 * Upstream retries a failed latest revision as an upgrade from the deployed one, and takes over
 * without a check only the objects the deployed revision lists: an object the failed revision
 * created besides carries no Helm ownership metadata, and upstream refuses it.
 */
function failedNotes(name: string, latest: LatestRecord | undefined): string[] {
  if (latest?.status !== 'failed') return [];
  return [
    `${name}: its latest release record (revision ${latest.revision}) is failed; upstream retries it, and refuses an object that revision ` +
      `created and the deployed revision does not list ("already exists ... cannot be managed by operator-controller") until it carries ` +
      `Helm's ownership metadata (see "Migrating from upstream and back" in docs/operations.md)`,
  ];
}

function conditionsOf(ce: KubeObject): unknown[] {
  const status = ce['status'];
  if (typeof status !== 'object' || status === null) return [];
  const conditions = (status as { conditions?: unknown }).conditions;
  return Array.isArray(conditions) ? conditions : [];
}

function conditionType(c: unknown): string {
  return typeof c === 'object' && c !== null && typeof (c as { type?: unknown }).type === 'string' ? (c as { type: string }).type : '';
}
