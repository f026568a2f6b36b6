/** Finalizer bookkeeping on a reconciler's working copy (reconcileParsedWithStatus persists it). */

/**
 * What the helpers need of an object: its finalizers and deletion timestamp. Both KubeObject
 * and the API module's parsed objects (e.g. ClusterCatalog) fit.
 */
export interface Finalizable {
  metadata: { finalizers?: string[] | undefined; deletionTimestamp?: string | null | undefined };
}

/** True while the object is being deleted. */
export function isDeleting(obj: Finalizable): boolean {
  return obj.metadata.deletionTimestamp !== undefined && obj.metadata.deletionTimestamp !== null;
}

/**
 * Adds each of `names` that `obj` lacks, in order; returns true when any was added. Only for live
 * objects: Kubernetes refuses new finalizers on one being deleted.
 */
export function addFinalizers(obj: Finalizable, names: readonly string[]): boolean {
  const current = obj.metadata.finalizers ?? [];
  const missing = names.filter((n) => !current.includes(n));
  if (missing.length === 0) return false;
  obj.metadata.finalizers = [...current, ...missing];
  return true;
}

/** True when `obj` carries the finalizer `name`. */
export function hasFinalizer(obj: Finalizable, name: string): boolean {
  return (obj.metadata.finalizers ?? []).includes(name);
}

/** Removes the finalizer `name` (the list is dropped when it becomes empty); returns true when it was there. */
export function removeFinalizer(obj: Finalizable, name: string): boolean {
  const current = obj.metadata.finalizers ?? [];
  if (!current.includes(name)) return false;
  const rest = current.filter((f) => f !== name);
  if (rest.length > 0) obj.metadata.finalizers = rest;
  else delete obj.metadata.finalizers;
  return true;
}
