/**
 * The string formats the API server checks in CRD schemas that this check reproduces exactly;
 * any other format is 'unknown' (reported as not checked, decision 0120).
 */
const UUID = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const BYTE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Whether `v` is a valid `format`, or 'unknown' when this check does not model the format. */
export function checkFormat(format: string, v: string): boolean | 'unknown' {
  switch (format) {
    case 'int32':
    case 'int64':
    case 'float':
    case 'double':
    case 'password':
      return true; // formats the API server accepts without checking strings
    case 'uuid':
      return UUID.test(v);
    case 'byte':
      return BYTE.test(v);
    case 'date': {
      if (!DATE.test(v)) return false;
      const d = new Date(`${v}T00:00:00Z`);
      return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(v);
    }
    default:
      return 'unknown';
  }
}
