/**
 * Helpers that render values the way Go's fmt and strconv do, so that messages built here
 * are byte-identical to upstream's (resolver.md §5: users compare them).
 */

const NAMED_ESCAPES: Readonly<Record<string, string>> = {
  '\u0007': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

// Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/**
 * Go's `%q` for a string (strconv.Quote): double quotes, backslash escapes for quotes,
 * backslashes and control characters, `\xNN` for other ASCII controls and `\uNNNN` /
 * `\UNNNNNNNN` for non-printable code points. Printable non-ASCII text is kept as is.
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const named = NAMED_ESCAPES[ch];
    if (named !== undefined) {
      out += named;
      continue;
    }
    if (PRINTABLE.test(ch)) {
      out += ch;
      continue;
    }
    const cp = ch.codePointAt(0) ?? 0;
    if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

/** Go's `%v` of a `[]string`: `[a b c]` (no quotes, single spaces). */
export function goStringSlice(items: readonly string[]): string {
  return `[${items.join(' ')}]`;
}

/** Length of `s` in UTF-8 bytes, which is what Go's `len(string)` counts. */
export function utf8Length(s: string): number {
  let n = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    n += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return n;
}

// Go's unicode.IsSpace set (used by strings.TrimSpace).
const GO_SPACE = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const TRIM_SPACE = new RegExp(`^[${GO_SPACE}]+|[${GO_SPACE}]+$`, 'gu');

/** Go's strings.TrimSpace (its whitespace set differs from String.prototype.trim). */
export function goTrimSpace(s: string): string {
  return s.replace(TRIM_SPACE, '');
}

const UINT64_MAX = 18446744073709551615n;
// BigInts for small values, so the common short numbers need no string-to-BigInt parse.
const SMALL: readonly bigint[] = Array.from({ length: 1024 }, (_, i) => BigInt(i));

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
