/**
 * Go's number and value renderings used in upstream messages: shortest-`'g'` float formatting,
 * `%v` of decoded JSON values, the `%!t(type=value)` bad-verb form, strconv.ParseUint's
 * results and error texts, strconv.ParseBool's spellings, and time.Duration's String (for durations in messages and flags).
 */
import { goQuote } from './quote.ts';
import { compareUtf8 } from './strings.ts';

/**
 * `strconv.FormatFloat(v, 'g', -1, bits)`: the shortest decimal that round-trips at the given
 * precision, in `%e` form when the exponent is < -4 or >= 6 (two-digit minimum exponent).
 */
export function goFormatFloatG(v: number, bits: 32 | 64 = 64): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  const sign = v < 0 || Object.is(v, -0) ? '-' : '';
  const abs = Math.abs(v);
  if (abs === 0) return `${sign}0`;
  const [digits, exp] = shortestDigits(abs, bits);
  if (exp < -4 || exp >= 6) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp);
    return `${sign}${mant}e${exp < 0 ? '-' : '+'}${e < 10 ? `0${e}` : e}`;
  }
  const dp = exp + 1;
  if (dp <= 0) return `${sign}0.${'0'.repeat(-dp)}${digits}`;
  if (dp >= digits.length) return `${sign}${digits}${'0'.repeat(dp - digits.length)}`;
  return `${sign}${digits.slice(0, dp)}.${digits.slice(dp)}`;
}

// Shortest significant digits (no dot) and the decimal exponent of the first digit.
function shortestDigits(abs: number, bits: 32 | 64): [string, number] {
  let text = abs.toExponential();
  if (bits === 32) {
    const target = Math.fround(abs);
    for (let p = 0; p < 9; p++) {
      const candidate = target.toExponential(p);
      if (Math.fround(Number(candidate)) === target) {
        text = candidate;
        break;
      }
    }
  }
  const [mant = '0', e = '0'] = text.split('e');
  return [mant.replace('.', ''), Number(e)];
}

/**
 * Go's `%v` of a value decoded from JSON into `interface{}`: maps as `map[k:v ...]` with sorted
 * keys, slices as `[a b]`, strings unquoted, nil as `<nil>`, floats in shortest `'g'` form.
 */
export function goValueV(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return goFormatFloatG(v);
  if (Array.isArray(v)) return `[${v.map(goValueV).join(' ')}]`;
  if (typeof v === 'object') {
    const keys = Object.keys(v).sort(compareUtf8);
    const obj = v as Record<string, unknown>;
    return `map[${keys.map((k) => `${k}:${goValueV(obj[k])}`).join(' ')}]`;
  }
  return String(v);
}

/** The Go type name `%T` prints for a value decoded from JSON into `interface{}`. */
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** Go's `%t` of a JSON-decoded value: `true`/`false` for booleans, else `%!t(type=value)`. */
export function goBoolVerb(v: unknown): string {
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v === null || v === undefined) return '%!t(<nil>)';
  return `%!t(${goTypeName(v)}=${goValueV(v)})`;
}

const UINT64_MAX = 18446744073709551615n;
// BigInts for small values, so the common short numbers need no string-to-BigInt parse.
const SMALL: readonly bigint[] = Array.from({ length: 1024 }, (_, i) => BigInt(i));

/** strconv.ParseBool's spellings. */
const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const GO_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Parses a Go boolean (strconv.ParseBool); undefined for anything else. */
export function goBool(v: string): boolean | undefined {
  return GO_TRUE.has(v) ? true : GO_FALSE.has(v) ? false : undefined;
}

/**
 * Go's strconv.ParseUint(s, 10, 64): the value, or Go's exact error text
 * (`strconv.ParseUint: parsing "<s>": invalid syntax` / `value out of range`).
 */
export function parseUint64(s: string): { ok: true; value: bigint } | { ok: false; error: string } {
  if (s.length > 0 && s.length <= 15) {
    // Up to 15 digits fits a double exactly.
    let n = 0;
    for (let i = 0; i < s.length; i++) {
      const d = s.charCodeAt(i) - 48;
      if (d < 0 || d > 9) return { ok: false, error: `strconv.ParseUint: parsing ${goQuote(s)}: invalid syntax` };
      n = n * 10 + d;
    }
    return { ok: true, value: SMALL[n] ?? BigInt(n) };
  }
  if (s === '' || !/^[0-9]+$/.test(s)) {
    return { ok: false, error: `strconv.ParseUint: parsing ${goQuote(s)}: invalid syntax` };
  }
  const value = BigInt(s);
  if (value > UINT64_MAX) {
    return { ok: false, error: `strconv.ParseUint: parsing ${goQuote(s)}: value out of range` };
  }
  return { ok: true, value };
}

/**
 * `time.Duration.String()` of `ms` milliseconds (whole milliseconds and up): `10m0s`, `1h0m0s`,
 * `1.5s`, `250ms`, `0s`.
 */
export function goDuration(ms: number): string {
  const sign = ms < 0 ? '-' : '';
  const abs = Math.round(Math.abs(ms));
  if (abs === 0) return '0s';
  if (abs < 1000) return `${sign}${abs}ms`;
  const h = Math.floor(abs / 3_600_000);
  const m = Math.floor((abs % 3_600_000) / 60_000);
  const rest = abs % 60_000;
  const frac =
    rest % 1000 === 0
      ? ''
      : `.${String(rest % 1000)
          .padStart(3, '0')
          .replace(/0+$/, '')}`;
  const s = `${Math.floor(rest / 1000)}${frac}s`;
  if (h > 0) return `${sign}${h}h${m}m${s}`;
  return m > 0 ? `${sign}${m}m${s}` : `${sign}${s}`;
}
