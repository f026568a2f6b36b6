/**
 * Storage-version migration of a component's own CRDs, as kube-storage-version-migrator does
 * it: for a CRD whose `status.storedVersions` names a version besides its storage version
 * (plan.ts), every object is listed page by page and written back unchanged (an empty merge
 * patch, which the API server applies to the object as stored and writes in the storage
 * version: the grants the components have already, no stale copy sent back; a conflict is
 * retried, a deleted object skipped), then the CRD's status subresource is patched to
 * `storedVersions: [storage]` at the resourceVersion read after the rewrite, so that a
 * storage version changed meanwhile is not trimmed away. Only the CRDs named by the caller
 * (the kinds the component owns) are touched. Never rejects: a CRD that fails is retried with a
 * backoff a few times, then reported; the caller runs it beside its work, not before readiness.
 */
import type { Logger } from 'pino';
import { ApiError, isNotFound, retryOnConflict, sleepUnlessAborted, type KubeClient } from '../kube/index.ts';
import type { KubeObject } from '../unstructured/index.ts';
import { storageMigrationPlan, type MigrationPlan } from './plan.ts';

const CRD_API_VERSION = 'apiextensions.k8s.io/v1';
const CRD_KIND = 'CustomResourceDefinition';

/** What a migration needs: the client (the component's own), its logger, when to stop. */
interface StorageMigrationPorts {
  client: Pick<KubeClient, 'get' | 'list' | 'patch'>;
  log: Logger;
  signal: AbortSignal;
  /** Objects per list page (default 100). */
  pageSize?: number;
  /** Tries per CRD before it is reported failed (default 5). */
  attempts?: number;
  /** The first retry's delay (default 1 s, doubling). */
  retryInitialMs?: number;
}

/** How one CRD ended (`rewritten`: writes made; after a list restart an object is written again). */
type MigrationOutcome =
  | { crd: string; outcome: 'current' }
  | { crd: string; outcome: 'migrated'; from: string[]; to: string; rewritten: number }
  | { crd: string; outcome: 'skipped'; reason: string }
  | { crd: string; outcome: 'failed'; error: unknown };

/** Runs the migration of each named CRD in turn; resolves with each one's outcome (fewer when `signal` aborted). */
export async function migrateStoredVersions(crds: readonly string[], ports: StorageMigrationPorts): Promise<MigrationOutcome[]> {
  const outcomes: MigrationOutcome[] = [];
  for (const crd of crds) {
    if (ports.signal.aborted) break;
    const outcome = await migrateWithRetries(crd, ports);
    if (outcome !== undefined) outcomes.push(outcome);
  }
  return outcomes;
}

async function migrateWithRetries(crd: string, ports: StorageMigrationPorts): Promise<MigrationOutcome | undefined> {
  const attempts = ports.attempts ?? 5;
  let delayMs = ports.retryInitialMs ?? 1000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await migrateOne(crd, ports);
    } catch (error) {
      if (ports.signal.aborted) return undefined;
      if (attempt >= attempts) {
        ports.log.error({ err: error, crd, attempts }, 'storage version migration failed');
        return { crd, outcome: 'failed', error };
      }
      ports.log.warn({ err: error, crd, attempt }, 'storage version migration failed, retrying');
    }
    await sleepUnlessAborted(delayMs, ports.signal);
    delayMs = Math.min(2 * delayMs, 60_000);
    if (ports.signal.aborted) return undefined;
  }
}

/** 410 Gone or Expired: a list's continue token too old. */
const isGone = (err: unknown): boolean => err instanceof ApiError && (err.status === 410 || err.reason === 'Expired');

const crdRef = (name: string) => ({ apiVersion: CRD_API_VERSION, kind: CRD_KIND, name });

async function readCrd(name: string, ports: StorageMigrationPorts): Promise<KubeObject | undefined> {
  return ports.client.get(crdRef(name), { signal: ports.signal }).catch((err: unknown) => {
    if (isNotFound(err)) return undefined;
    throw err;
  });
}

async function migrateOne(crd: string, ports: StorageMigrationPorts): Promise<MigrationOutcome> {
  const found = await readCrd(crd, ports);
  if (found === undefined) return { crd, outcome: 'skipped', reason: 'the CRD is not installed' };
  const plan = storageMigrationPlan(found);
  if (plan === undefined) return { crd, outcome: 'current' };
  if (typeof plan === 'string') {
    ports.log.warn({ crd, reason: plan }, 'storage version migration skipped');
    return { crd, outcome: 'skipped', reason: plan };
  }
  ports.log.info({ crd, from: plan.stale, to: plan.storageVersion }, 'storage version migration started');
  const rewritten = await rewriteAll(plan, ports);
  const trimmed = await trimStoredVersions(plan, ports);
  if (trimmed !== undefined) {
    ports.log.warn({ crd, reason: trimmed }, 'storage version migration skipped');
    return { crd, outcome: 'skipped', reason: trimmed };
  }
  ports.log.info({ crd, from: plan.stale, to: plan.storageVersion, rewritten }, 'storage version migrated');
  return { crd, outcome: 'migrated', from: plan.stale, to: plan.storageVersion, rewritten };
}

/** A list's continue token expired this many times in a row: the CRD's try fails. */
const MAX_LIST_RESTARTS = 3;

/** Every object read in pages at the storage version and written back; resolves with how many were written. */
async function rewriteAll(plan: MigrationPlan, ports: StorageMigrationPorts): Promise<number> {
  const type = { apiVersion: `${plan.group}/${plan.storageVersion}`, kind: plan.kind };
  const limit = ports.pageSize ?? 100;
  let rewritten = 0;
  let restarts = 0;
  let next: string | undefined;
  for (;;) {
    let page;
    try {
      page = await ports.client.list(type, { limit, ...(next === undefined ? {} : { continue: next }), signal: ports.signal });
    } catch (err) {
      // The continue token expired (a long migration): start over; objects written already are written again, harmlessly.
      if (!isGone(err) || ++restarts > MAX_LIST_RESTARTS) throw err;
      ports.log.info({ crd: plan.crd, restarts }, 'storage version migration list restarted');
      next = undefined;
      continue;
    }
    for (const item of page.items) if (await rewriteOne({ ...item, ...type }, ports)) rewritten++;
    next = page.metadata?.continue || undefined;
    ports.log.info({ crd: plan.crd, rewritten, more: next !== undefined }, 'storage version migration progress');
    if (next === undefined) return rewritten;
  }
}

/** A no-op write of `item` (an empty merge patch at the storage version). False when it was deleted meanwhile. */
async function rewriteOne(item: KubeObject, ports: StorageMigrationPorts): Promise<boolean> {
  const ref = { apiVersion: item.apiVersion, kind: item.kind, name: item.metadata.name ?? '', namespace: item.metadata.namespace };
  try {
    await retryOnConflict(() => ports.client.patch(ref, {}, 'merge', { signal: ports.signal }), { attempts: 10, signal: ports.signal });
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

/**
 * `status.storedVersions` set to the storage version, on the CRD as read after the rewrite
 * (retried on a conflict, read again). A reason (not trimmed) when the storage version is no
 * longer the one whose objects were rewritten.
 */
async function trimStoredVersions(plan: MigrationPlan, ports: StorageMigrationPorts): Promise<string | undefined> {
  return retryOnConflict(
    async () => {
      const crd = await readCrd(plan.crd, ports);
      if (crd === undefined) return 'the CRD was deleted during the migration';
      const now = storageMigrationPlan(crd);
      if (now === undefined) return undefined;
      if (typeof now === 'string') return now;
      if (now.storageVersion !== plan.storageVersion)
        return `the storage version changed from ${plan.storageVersion} to ${now.storageVersion} during the migration`;
      // The resourceVersion in the patch is its precondition: a CRD changed since it was read is a conflict, read again.
      const patch = { metadata: { resourceVersion: crd.metadata.resourceVersion }, status: { storedVersions: [plan.storageVersion] } };
      await ports.client.patch(crdRef(plan.crd), patch, 'merge', { subresource: 'status', signal: ports.signal });
      return undefined;
    },
    { attempts: 10, signal: ports.signal },
  );
}
