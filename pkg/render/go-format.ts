/**
 * Go `fmt` renderings that appear verbatim in upstream error messages: `%q` of a string and
 * `%v` of a string slice.
 */

/**
 * Go's `%q` (strconv.Quote) of an ASCII-or-printable string: double quotes, backslash
 * escapes for `"` and `\`, the C escapes `\a \b \f \n \r \t \v`, and `\xNN` for other
 * control characters and DEL. Printable non-ASCII characters are kept as is.
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0) as number;
    const simple = SIMPLE_ESCAPES[ch];
    if (simple !== undefined) out += simple;
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};

/** Go's `%v` of a `[]string`: `[a b c]` (an empty string element prints as nothing). */
export function goList(items: readonly string[]): string {
  return `[${items.join(' ')}]`;
}

/** Byte-wise (Go `sort.Strings`) order of two strings. */
export function goStringCompare(a: string, b: string): number {
  if (a === b) return 0;
  // UTF-16 order equals UTF-8 byte order except around surrogates; compare code points.
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const cx = (x[i] as string).codePointAt(0) as number;
    const cy = (y[i] as string).codePointAt(0) as number;
    if (cx !== cy) return cx - cy;
  }
  return x.length - y.length;
}

/** Sorted copy of `items` in Go byte order. */
export function goSorted(items: Iterable<string>): string[] {
  return [...items].sort(goStringCompare);
}
