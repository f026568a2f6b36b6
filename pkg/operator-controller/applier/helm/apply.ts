/**
 * Install, upgrade and uninstall as Helm-like releases, as upstream's Helm applier runs them but
 * with server-side apply instead of Helm's patches (decisions 0045, 0074):
 *
 * - every write is preceded by the ownership check (ownership.ts, decision 0049): an object of
 *   another extension or of nobody we know refuses the release, nothing written or recorded;
 * - the desired objects equal the deployed revision's: nothing is recorded, and the objects the
 *   drift watches do not vouch for (`inSync`: live as the last apply left them) are applied
 *   again (idempotent; puts back objects that were changed or deleted);
 * - otherwise the new or changed objects are dry-run on the server first (a refusal records a
 *   `failed` revision with nothing applied), a new revision is recorded
 *   `pending-install`/`pending-upgrade`, the objects are applied (but those the deployed
 *   revision applied as they are and that are `inSync`, when no revision was recorded since the
 *   deployed one: an upgrade sends only what it changes), objects of earlier revisions
 *   that the new one does not contain and that are still this extension's are deleted (except
 *   CRDs, kept and noted; delete.ts), and the revision becomes `deployed` and its predecessor
 *   `superseded` ("Downgrade complete" for a lower version);
 * - a failed apply leaves the revision `failed` with the API server's message (no rollback, as
 *   upstream) and the error is rethrown for the caller to retry with backoff.
 *
 * Crash safety (a SIGKILL between any two writes, test/e2e/operator-controller-crash): the
 * pending record is written before any object, so whatever a crash leaves applied belongs to a
 * recorded revision. A revision left `pending-*` by a crash, or a `failed` one retried with the
 * same content, is taken over (same number) instead of piling up new ones: upstream's Helm
 * refuses to touch a pending release, and records a new revision per retry, which with backoff
 * retries pushes every useful revision out of the bounded history. The objects a revision
 * deletes include those of the pending or failed revisions since the deployed one (a crash may
 * have created them), and a re-apply finishes superseding what a crash left `deployed` twice.
 * Release records are written with the controller's identity; the objects with `client`, the
 * extension's ServiceAccount.
 */
import { KEPT_FOR_PACKAGE_ANNOTATION } from '../../../shared/api/index.ts';
import { jsonEqual } from '../../../shared/controller/index.ts';
import { errorMessage } from '../../../shared/errors/index.ts';
import { compareSemver, parseSemver } from '../../../shared/semver/index.ts';
import type { KubeClient, KubeObject } from '../../../shared/kube/index.ts';
import { ReleaseStatus, deployedRelease, manifestLine, type Release, type ReleaseStore } from '../../release/index.ts';
import { applyObjects, dryRunObjects, refuseUnservedKinds } from '../apply.ts';
import { deleteOwnedObjects, type DeleteOutcome } from '../delete.ts';
import { objectIdentity, refOf } from '../objects.ts';
import { ownerReferenceError, releaseOwnerReferences } from '../owner-references.ts';
import { checkOwnership, type Owner, type OwnershipReport } from '../ownership.ts';
import { objectsToDelete, type DesiredRevision } from '../revision.ts';
import { notIn } from '../uninstall.ts';

/** Outcome of `applyRelease`. */
interface AppliedRelease {
  /** The deployed revision after the call. */
  release: Release;
  /** True when a new revision was recorded (install or upgrade), false when it was re-applied. */
  changed: boolean;
}

/** Dependencies of the release operations. */
interface ReleaseDeps {
  /** Acts as the extension's ServiceAccount. */
  client: KubeClient;
  store: ReleaseStore;
  now?: () => Date;
  signal?: AbortSignal;
  /**
   * The live uid of objects known to carry the extension's owner labels (synced drift watches),
   * undefined for others: known ones are not read again, by the ownership check or before a delete.
   */
  knownUid?: (obj: KubeObject) => string | undefined;
  /**
   * True for objects whose live copy is what the extension's last apply of them left (synced
   * drift watches): a re-apply of the unchanged release skips them, with their checks.
   */
  inSync?: (obj: KubeObject) => boolean;
  /** Called with the API server's answer to each apply (the object as stored). */
  onApplied?: (answer: KubeObject) => void;
}

/** True when `desired` would be recorded exactly as release record `release` already is. */
export function sameRecordContent(release: Release, desired: DesiredRevision): boolean {
  return (
    jsonEqual(release.bundle, desired.bundle) &&
    jsonEqual(release.config, desired.config) &&
    release.manifest.equals(desired.manifest, (a, b) => jsonEqual(a, b))
  );
}

/**
 * Makes the cluster hold `desired` (see the module comment). `history` is the extension's
 * records, newest first, as read at the start of the reconcile.
 */
export async function applyRelease(deps: ReleaseDeps, history: readonly Release[], desired: DesiredRevision): Promise<AppliedRelease> {
  const { client, store, signal } = deps;
  const now = (): string => (deps.now?.() ?? new Date()).toISOString();
  const deployed = deployedRelease(history);
  const latest = history[0];
  const onApplied = deps.onApplied;
  const applying = { signal, ...(onApplied === undefined ? {} : { onApplied: (_: KubeObject, answer: KubeObject) => onApplied(answer) }) };
  const owner: Owner = { extension: desired.extension, packageName: desired.bundle.package, installNamespace: desired.installNamespace };
  const knownUid = deps.knownUid;
  const ownership = { signal, ...(knownUid === undefined ? {} : { knownOwned: (obj: KubeObject) => knownUid(obj) !== undefined }) };
  // The objects one at a time: identities for the ownership check, each whole when it is sent.
  const identities = desired.manifest.identities();
  const objects = desired.manifest.sequence();
  // Kinds the cluster does not serve refuse the release before anything else, as upstream's dry run does.
  await refuseUnservedKinds(client, objects, signal);
  // Before the first write: objects of others refuse the release with nothing recorded (as
  // upstream's dry run). A drift repair too: an object put back must still be absent or ours (a
  // user may have made one); one in sync is known to be ours, not read.
  const report = await checkOwnership(client, identities, owner, ownership);
  if (deployed !== undefined && latest === deployed && sameRecordContent(deployed, desired)) {
    // Drift repair of what is not as the last apply left it.
    await releaseReferenced(client, report, desired.extension, signal);
    await applyObjects(client, objects, { ...applying, ...(deps.inSync === undefined ? {} : { skip: deps.inSync }) });
    await releaseAdopted(client, report, signal);
    // A crash between marking a revision deployed and superseding its predecessor leaves both deployed.
    await supersedeOthers(store, history, deployed.revision, signal);
    return { release: deployed, changed: false };
  }

  // A revision left pending by a crash, or a failed one retried with the same content, is
  // taken over: retries with backoff must not fill the bounded history with copies.
  const pending = latest?.status === ReleaseStatus.PendingInstall || latest?.status === ReleaseStatus.PendingUpgrade;
  const retried = latest?.status === ReleaseStatus.Failed && sameRecordContent(latest, desired);
  const resuming = latest !== undefined && (pending || retried);
  const upgrade = deployed !== undefined;
  const record: Release = {
    extension: desired.extension,
    extensionUID: desired.extensionUID,
    revision: resuming ? latest.revision : (latest?.revision ?? 0) + 1,
    status: upgrade ? ReleaseStatus.PendingUpgrade : ReleaseStatus.PendingInstall,
    // Helm's release namespace: upstream's Helm stamps it on the objects when it takes over.
    namespace: desired.installNamespace,
    bundle: desired.bundle,
    properties: desired.properties,
    ...(desired.config === undefined ? {} : { config: desired.config }),
    notes: desired.droppedFields === undefined || desired.droppedFields.length === 0 ? {} : { droppedFields: desired.droppedFields },
    description: upgrade ? 'Upgrade underway' : 'Initial install underway',
    manifest: desired.manifest,
  };
  // A failed revision carries when it was tried, as Helm's does (its last_deployed is set
  // when the action starts): `olmv1 release history` and `helm history` show it.
  const failed = (err: unknown): Release => ({
    ...record,
    status: ReleaseStatus.Failed,
    description: `${upgrade ? 'Upgrade' : 'Release'} "${desired.extension}" failed: ${errorMessage(err)}`,
    lastDeployed: now(),
    firstDeployed: deployed?.firstDeployed ?? now(),
  });
  // The API server's refusals of the whole release in apply order are recorded as a failed
  // revision with nothing applied.
  const unchanged = sameAsIn(deployed);
  try {
    await dryRunObjects(client, objects, report.absent, signal, unchanged);
  } catch (err) {
    await (resuming ? store.update(failed(err), signal) : store.create(failed(err), signal)).catch(() => undefined);
    throw err;
  }
  await releaseReferenced(client, report, desired.extension, signal);
  // Decided before the record is rewritten: a taken-over revision's own objects count.
  const stale = objectsToDelete(history, desired);
  if (resuming) await store.update(record, signal);
  else await store.create(record, signal);

  // An object the upgrade leaves as it is, in sync, is not sent again (nor read: in sync is known ours).
  const skip = deps.inSync === undefined ? undefined : untouched(history, deps.inSync);
  try {
    await applyObjects(client, objects, { ...applying, ...(skip === undefined ? {} : { skip }) });
    await releaseAdopted(client, report, signal);
    const outcome = await deleteOwnedObjects(client, stale, desired.extension, { signal, tolerant: notIn(deployed), knownUid });
    record.notes = { ...record.notes, ...deleteNotes(outcome) };
  } catch (err) {
    await store.update(failed(err), signal).catch(() => undefined);
    throw err;
  }
  record.status = ReleaseStatus.Deployed;
  record.description = !upgrade
    ? 'Install complete'
    : isDowngrade(deployed.bundle.version, desired.bundle.version)
      ? 'Downgrade complete'
      : 'Upgrade complete';
  record.lastDeployed = now();
  record.firstDeployed = deployed?.firstDeployed ?? record.lastDeployed;
  await store.update(record, signal);
  await supersedeOthers(store, history, record.revision, signal);
  return { release: record, changed: true };
}

/**
 * True for objects a new revision need neither send nor check: the deployed revision applied
 * them as they are, no revision was recorded since it (a pending or failed one may have applied
 * other content) and `inSync` (the drift watches) holds them as that apply left them.
 */
export function untouched(history: readonly Release[], inSync: (obj: KubeObject) => boolean): (obj: KubeObject) => boolean {
  const deployed = deployedRelease(history);
  if (deployed === undefined || history[0] !== deployed) return () => false;
  const unchanged = sameAsIn(deployed);
  return (obj) => unchanged(obj) && inSync(obj);
}

/** True when `to` is a lower semantic version than `from` (a SelfCertified or pinned move back). */
function isDowngrade(from: string, to: string): boolean {
  const a = parseSemver(from);
  const b = parseSemver(to);
  return a.ok && b.ok && compareSemver(b.value, a.value) < 0;
}

/**
 * True for objects the deployed revision (if any) applied exactly as they are. A record read
 * unparsed keeps each object's line, compared as text first and parsed alone when it differs,
 * so an upgrade never holds the old revision's objects all at once (decision 0098).
 */
function sameAsIn(deployed: Release | undefined): (obj: KubeObject) => boolean {
  const applied = new Map(deployed === undefined ? [] : deployed.manifest.map((o, line) => [objectIdentity(o), line ?? o] as const));
  return (obj) => {
    const old = applied.get(objectIdentity(obj));
    if (old === undefined) return false;
    if (typeof old !== 'string') return jsonEqual(old, obj);
    return `${old}\n` === manifestLine(obj) || jsonEqual(JSON.parse(old) as unknown, obj);
  };
}

/** The release notes of a deletion: kept CRDs and skipped objects, when there are any. */
function deleteNotes(outcome: DeleteOutcome): Pick<NonNullable<Release['notes']>, 'keptObjects' | 'skippedObjects'> {
  return {
    ...(outcome.kept.length === 0 ? {} : { keptObjects: outcome.kept }),
    ...(outcome.skipped.length === 0 ? {} : { skippedObjects: outcome.skipped.map((o) => `${o.object}: ${o.reason}`) }),
  };
}

/**
 * Removes the owner references to the extension from the objects the ownership check found
 * carrying one (upstream's applier puts one on everything; owner-references.ts): before the first
 * write of a takeover, so the garbage collector can never delete what this project keeps.
 */
async function releaseReferenced(client: KubeClient, report: OwnershipReport, extension: string, signal?: AbortSignal): Promise<void> {
  for (const { object, ownerReferences } of report.referenced) {
    try {
      await releaseOwnerReferences(client, object, { ownerReferences }, extension, signal);
    } catch (err) {
      throw ownerReferenceError(object, extension, err);
    }
  }
}

/** Removes the kept-for-package mark from the CRDs the apply took back (they carry our labels now). */
async function releaseAdopted(client: KubeClient, report: OwnershipReport, signal?: AbortSignal): Promise<void> {
  for (const crd of report.adopted) {
    await client.patch(refOf(crd), { metadata: { annotations: { [KEPT_FOR_PACKAGE_ANNOTATION]: null } } }, 'merge', { signal });
  }
}

/** Marks every deployed revision of `history` other than `revision` superseded. */
async function supersedeOthers(store: ReleaseStore, history: readonly Release[], revision: number, signal?: AbortSignal): Promise<void> {
  for (const old of history) {
    if (old.status === ReleaseStatus.Deployed && old.revision !== revision) {
      await store.update({ ...old, status: ReleaseStatus.Superseded, description: 'Superseded' }, signal);
    }
  }
}
