/**
 * Hands the fields a create wrote over to server-side apply (client-go's csaupgrade, which
 * boxcutter runs before each apply): the create's `Update` entry of our field manager is merged
 * into its `Apply` entry. Without it a later revision's apply could not remove a field the first
 * one created: the `Update` entry would still own it. Pure: computes the patch.
 */

interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  subresource?: string;
  fieldsV1?: Record<string, unknown>;
  [key: string]: unknown;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The union of two fieldsV1 sets (tries of `f:`/`k:`/`v:`/`i:` keys ending in `{}`). */
function union(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const mine = out[k];
    out[k] = isRecord(mine) && isRecord(v) ? union(mine, v) : v;
  }
  return out;
}

/**
 * The JSON patch moving `manager`'s `Update` entries (main resource) into its `Apply` entry, with
 * the object's resourceVersion as precondition; undefined when there is nothing to move.
 */
export function upgradeManagedFieldsPatch(
  managedFields: readonly unknown[] | undefined,
  manager: string,
  resourceVersion: string,
): unknown[] | undefined {
  const entries = (managedFields ?? []).filter(isRecord) as ManagedFieldsEntry[];
  const ours = (e: ManagedFieldsEntry, op: string): boolean => e.manager === manager && e.operation === op && (e.subresource ?? '') === '';
  const updates = entries.filter((e) => ours(e, 'Update'));
  if (updates.length === 0) return undefined;
  const apply = entries.find((e) => ours(e, 'Apply'));
  let fields: Record<string, unknown> = apply?.fieldsV1 ?? {};
  for (const u of updates) fields = union(fields, u.fieldsV1 ?? {});
  const first = apply ?? updates[0];
  const merged: ManagedFieldsEntry = { ...first, operation: 'Apply', fieldsV1: fields };
  const out: ManagedFieldsEntry[] = [];
  for (const e of entries) {
    if (e === first) out.push(merged);
    else if (e !== apply && !updates.includes(e)) out.push(e);
  }
  return [
    { op: 'replace', path: '/metadata/managedFields', value: out },
    { op: 'replace', path: '/metadata/resourceVersion', value: resourceVersion },
  ];
}
