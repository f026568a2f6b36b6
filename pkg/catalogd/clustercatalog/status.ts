/** The ClusterCatalog status catalogd writes, with upstream's texts and shapes, onto the typed working copy. */
import {
  CatalogSourceType,
  ClusterCatalogConditionType as Type,
  ClusterCatalogReason as Reason,
  type ClusterCatalog,
  type ClusterCatalogStatus,
  type Condition,
  formatKubeTime,
} from '../../shared/api/index.ts';
import { progressingFromError, setStatusCondition } from '../../shared/controller/index.ts';

const MESSAGES = {
  served: 'Serving desired content from resolved source',
  neverServed: 'No content unpacked yet: see the Progressing condition',
  unpacked: 'Successfully unpacked and stored content from resolved source',
  unavailable: 'Catalog availability mode is set to Unavailable',
} as const;

/** The status object of `cc`, created when absent. */
export function statusOf(cc: ClusterCatalog): ClusterCatalogStatus {
  cc.status ??= {};
  return cc.status;
}

function set(cc: ClusterCatalog, type: string, status: 'True' | 'False' | 'Unknown', reason: string, message: string): void {
  const st = statusOf(cc);
  st.conditions ??= [];
  const input = { type, status, reason, message, ...(cc.metadata.generation === undefined ? {} : { observedGeneration: cc.metadata.generation }) };
  setStatusCondition(st.conditions, input);
}

/** Progressing from an error: True/Retrying, or False with the terminal reason (Blocked). */
export function setProgressingError(cc: ClusterCatalog, err: unknown): void {
  const { status, reason, message } = progressingFromError(err);
  set(cc, Type.Progressing, status, reason, message);
}

/** The status of content that is stored and served. */
export function setServing(cc: ClusterCatalog, served: { digestRef: string; baseURL: string; unpackedAt: Date }): void {
  set(cc, Type.Progressing, 'True', Reason.Succeeded, MESSAGES.unpacked);
  set(cc, Type.Serving, 'True', Reason.Available, MESSAGES.served);
  const st = statusOf(cc);
  st.resolvedSource = { type: CatalogSourceType.Image, image: { ref: served.digestRef } };
  st.urls = { base: served.baseURL };
  st.lastUnpacked = formatKubeTime(served.unpackedAt);
}

/** `availabilityMode: Unavailable` processed. */
export function setUserUnavailable(cc: ClusterCatalog): void {
  set(cc, Type.Progressing, 'True', Reason.Succeeded, MESSAGES.unavailable);
  set(cc, Type.Serving, 'False', Reason.UserSpecifiedUnavailable, MESSAGES.unavailable);
  clearServed(cc);
}

/**
 * Nothing was ever served and a pull or store failed: Serving False/Unavailable, so `kubectl
 * get` shows False rather than an empty column (upstream omits it until the first success).
 */
export function setNeverServed(cc: ClusterCatalog): void {
  const conditions = statusOf(cc).conditions ?? [];
  if (conditions.some((c) => c.type === Type.Serving)) return;
  set(cc, Type.Serving, 'False', Reason.Unavailable, MESSAGES.neverServed);
}

/** Content removed during deletion. */
export function setDeleted(cc: ClusterCatalog): void {
  set(cc, Type.Serving, 'False', Reason.Unavailable, '');
  clearServed(cc);
}

function clearServed(cc: ClusterCatalog): void {
  const st = statusOf(cc);
  delete st.resolvedSource;
  delete st.urls;
  delete st.lastUnpacked;
}

/** Drops conditions of types catalogd does not own (status is rewritten as upstream does). */
export function knownConditionsOnly(conditions: Condition[] | undefined): Condition[] | undefined {
  if (conditions === undefined) return undefined;
  return conditions.filter((c) => c.type === Type.Serving || c.type === Type.Progressing);
}
