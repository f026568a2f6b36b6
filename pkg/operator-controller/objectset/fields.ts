/**
 * Reading decoded JSON the way apimachinery's unstructured helpers do (NestedFieldNoCopy): a
 * path of map keys, no list indexing; a missing key or a null on the way is "not found"; a
 * non-map on the way is an accessor error with Go's wording. Pure.
 */

/** What a nested lookup found. */
type NestedField = { ok: true; found: false } | { ok: true; found: true; value: unknown } | { ok: false; error: string };

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Go's `%T` of a decoded JSON value (integers decode to int64, other numbers to float64). */
function goTypeName(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  if (isMap(v)) return 'map[string]interface {}';
  return '<nil>';
}

/**
 * Go's `%v` (or `%s`, verb 's') of a decoded JSON value: strings bare, lists as `[a b]`, maps
 * as `map[k:v]` with sorted keys; nil is `<nil>` (`%!s(<nil>)` under `%s`).
 */
export function goValue(v: unknown, verb: 'v' | 's' = 'v'): string {
  if (v === null || v === undefined) return verb === 's' ? '%!s(<nil>)' : '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return verb === 's' ? `%!s(${goTypeName(v)}=${String(v)})` : String(v);
  if (Array.isArray(v)) return `[${v.map((x) => goValue(x, verb)).join(' ')}]`;
  const m = v as Record<string, unknown>;
  return `map[${Object.keys(m)
    .sort()
    .map((k) => `${k}:${goValue(m[k], verb)}`)
    .join(' ')}]`;
}

/** The value at `fields` of `obj`; see the module comment. */
export function nestedField(obj: unknown, fields: readonly string[]): NestedField {
  let val: unknown = obj;
  for (const [i, field] of fields.entries()) {
    if (val === null || val === undefined) return { ok: true, found: false };
    if (!isMap(val)) {
      const path = `.${fields.slice(0, i + 1).join('.')}`;
      return { ok: false, error: `${path} accessor error: ${goValue(val)} is of the type ${goTypeName(val)}, expected map[string]interface{}` };
    }
    if (!Object.hasOwn(val, field)) return { ok: true, found: false };
    val = val[field];
  }
  return { ok: true, found: true, value: val };
}

/** Equality of decoded JSON values (apimachinery's semantic DeepEqual on them). */
export function deepEqualJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqualJson(x, b[i]));
  }
  if (!isMap(a) || !isMap(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.hasOwn(b, k) && deepEqualJson(a[k], b[k]));
}
