/**
 * JSON encoding byte-compatible with Go's `encoding/json`, where upstream's bytes are observable
 * (hashed RBAC names, the merged `olm.properties`): Go escapes `<`, `>`, `&`, U+2028 and U+2029
 * and sorts map keys; number formatting is the same as JSON.stringify's.
 */

const ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** Go's encoding of a string, quotes included. */
export function goJsonString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => ESCAPES[c] ?? c);
}

/** Thrown for values Go cannot encode either (non-finite numbers, functions, ...). */
export class GoJsonUnsupportedValueError extends Error {}

/**
 * Go's `json.Marshal` of a decoded JSON value. With `sortKeys` (Go maps) object keys are
 * written in byte order; without it (Go structs built field by field) insertion order is
 * kept. `undefined` object members are skipped, like omitted struct fields.
 *
 * @throws GoJsonUnsupportedValueError for NaN/Infinity (`json: unsupported value: +Inf`).
 */
export function goJsonMarshal(value: unknown, sortKeys: boolean): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return goJsonString(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) {
        const text = Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf';
        throw new GoJsonUnsupportedValueError(`json: unsupported value: ${text}`);
      }
      return Object.is(value, -0) ? '-0' : String(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map((v) => goJsonMarshal(v, sortKeys)).join(',')}]`;
      const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
      if (sortKeys) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([k, v]) => `${goJsonString(k)}:${goJsonMarshal(v, sortKeys)}`).join(',')}}`;
    }
    default:
      throw new GoJsonUnsupportedValueError(`json: unsupported type: ${typeof value}`);
  }
}
