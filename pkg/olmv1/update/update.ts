/**
 * `olmv1 update NAME` as a service (issue 70, services in pkg/), for the command and the console:
 * what a ClusterExtension asks its catalogs for (spec.source.catalog's version, channels,
 * selector, upgrade constraint policy) changed by one JSON patch of only the fields that change,
 * tested against the resourceVersion read. Not a merge patch: that would merge a new selector's
 * matchLabels into the old ones. Expected failures are values, in the command's words.
 */
import { CLUSTER_EXTENSION, parseClusterExtension } from '../../shared/api/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import { isConflict, isNotFound, type KubeClient } from '../../shared/kube/index.ts';

/** The fields of spec.source.catalog an update sets; null removes one. */
export type CatalogFields = Partial<Record<'version' | 'channels' | 'selector' | 'upgradeConstraintPolicy', unknown>>;

/**
 * The lines an update shows for setting `fields` on `current` (spec.source.catalog as read):
 * `spec.source.catalog.<field>: <old> -> <new>` for each field whose value changes ("unset"
 * for an absent one), and the patch holding only those fields.
 */
export function catalogChanges(current: Record<string, unknown>, fields: CatalogFields): { lines: string[]; patch: CatalogFields } {
  const show = (v: unknown) => (v === undefined || v === null ? 'unset' : JSON.stringify(v));
  const lines: string[] = [];
  const patch: CatalogFields = {};
  for (const [key, value] of Object.entries(fields) as [keyof CatalogFields, unknown][]) {
    const before = current[key];
    if (JSON.stringify(before ?? null) === JSON.stringify(value ?? null)) continue;
    lines.push(`spec.source.catalog.${key}: ${show(before)} -> ${show(value)}`);
    patch[key] = value;
  }
  return { lines, patch };
}

/** The JSON patch setting `fields` (null removes one) under spec.source.catalog, applied only if the object still has `resourceVersion`. */
export function jsonPatch(resourceVersion: string, fields: CatalogFields): object[] {
  const ops: object[] = [{ op: 'test', path: '/metadata/resourceVersion', value: resourceVersion }];
  for (const [key, value] of Object.entries(fields)) {
    const path = `/spec/source/catalog/${key}`;
    ops.push(value === null ? { op: 'remove', path } : { op: 'add', path, value });
  }
  return ops;
}

/** What an update asks for. */
interface UpdateRequest {
  name: string;
  fields: CatalogFields;
  /** Compute the changes; write nothing. */
  dryRun: boolean;
  signal?: AbortSignal;
}

/**
 * What an update did: the changed fields' lines (none: nothing changes), and whether it wrote
 * them; or why not (with the lines it was writing, when the write failed).
 */
export type UpdateResult = { ok: true; lines: string[]; updated: boolean } | { ok: false; error: string; lines?: string[] };

/** Updates the ClusterExtension `r.name` as `client`'s user (see the file comment). */
export async function updateExtension(client: KubeClient, r: UpdateRequest): Promise<UpdateResult> {
  const name = JSON.stringify(r.name);
  let object;
  try {
    object = await client.get({ ...CLUSTER_EXTENSION, name: r.name }, { signal: r.signal });
  } catch (e) {
    if (isNotFound(e)) return { ok: false, error: `ClusterExtension ${name} not found` };
    return { ok: false, error: `error reading ClusterExtension ${name}: ${errorMessage(e)}` };
  }
  const parsed = parseClusterExtension(object);
  if (!parsed.ok) return { ok: false, error: `ClusterExtension ${name} does not parse: ${parsed.error}` };
  const source = parsed.value.spec.source.catalog;
  if (source === undefined) return { ok: false, error: `ClusterExtension ${name} has no spec.source.catalog` };
  const current = ((object.spec as { source?: { catalog?: Record<string, unknown> } } | undefined)?.source?.catalog ?? {}) as Record<string, unknown>;
  const { lines, patch } = catalogChanges(current, r.fields);
  if (lines.length === 0 || r.dryRun) return { ok: true, lines, updated: false };
  try {
    await client.patch({ ...CLUSTER_EXTENSION, name: r.name }, jsonPatch(object.metadata.resourceVersion ?? '', patch), 'json', { signal: r.signal });
  } catch (e) {
    if (isConflict(e)) return { ok: false, lines, error: `ClusterExtension ${name} changed while it was being updated: run the command again` };
    return { ok: false, lines, error: `error updating ClusterExtension ${name}: ${errorMessage(e)}` };
  }
  return { ok: true, lines, updated: true };
}
