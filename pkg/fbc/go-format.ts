/**
 * Go `fmt`/`strconv` renderings that upstream error messages embed: `%q` (strconv.Quote),
 * `%v` of decoded JSON values, the `%!t(type=value)` bad-verb form, shortest-`'g'` float
 * formatting and `unicode.IsSpace`. Users compare our messages with upstream's, so these
 * follow Go's output byte for byte for the values FBC documents can hold.
 */

// unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/**
 * Go's `strconv.Quote` (the `%q` verb) of a string. Lone UTF-16 surrogates cannot occur in a
 * Go string; they are rendered as U+FFFD, which is what Go's decoders would have produced.
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s.toWellFormed()) {
    const r = ch.codePointAt(0) ?? 0;
    switch (r) {
      case 0x07: out += '\\a'; continue;
      case 0x08: out += '\\b'; continue;
      case 0x0c: out += '\\f'; continue;
      case 0x0a: out += '\\n'; continue;
      case 0x0d: out += '\\r'; continue;
      case 0x09: out += '\\t'; continue;
      case 0x0b: out += '\\v'; continue;
      case 0x5c: out += '\\\\'; continue;
      case 0x22: out += '\\"'; continue;
    }
    if (PRINTABLE.test(ch)) {
      out += ch;
    } else if (r < 0x20 || r === 0x7f) {
      out += `\\x${r.toString(16).padStart(2, '0')}`;
    } else if (r < 0x10000) {
      out += `\\u${r.toString(16).padStart(4, '0')}`;
    } else {
      out += `\\U${r.toString(16).padStart(8, '0')}`;
    }
  }
  return `${out}"`;
}

/** Go's `%q` of a string list printed with `%v`: `[a b c]` (no quoting), as `fmt` prints []string. */
export function goList(items: readonly string[]): string {
  return `[${items.join(' ')}]`;
}

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

/** Compares strings by their UTF-8 bytes, the order Go's sort.Strings and map-key sorting use. */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // UTF-16 order equals UTF-8 order except that surrogates (astral characters) sort after
    // U+E000..U+FFFF in UTF-8.
    if (x >= 0xd800 && y >= 0xd800) {
      const xs = x < 0xe000 ? 1 : 0;
      const ys = y < 0xe000 ? 1 : 0;
      if (xs !== ys) return xs - ys;
    }
    return x - y;
  }
  return a.length - b.length;
}

// unicode.IsSpace: ASCII/Latin-1 white space plus the Unicode White_Space property.
const GO_SPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005,
  0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

/** Go's `unicode.IsSpace` for one code point. */
export function goIsSpace(codePoint: number): boolean {
  return GO_SPACE.has(codePoint);
}

/** Go's `strings.TrimSpace`: trims `unicode.IsSpace` code points (not U+FEFF, unlike JS trim). */
export function goTrimSpace(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && GO_SPACE.has(s.charCodeAt(start))) start++;
  while (end > start && GO_SPACE.has(s.charCodeAt(end - 1))) end--;
  return s.slice(start, end);
}
