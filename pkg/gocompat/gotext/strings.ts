/**
 * Go's string semantics where they differ from JavaScript's: byte-wise (UTF-8) ordering as
 * `sort.Strings` uses it, `fs.WalkDir`'s path order, `unicode.IsSpace`/`strings.TrimSpace`, and `len` in UTF-8 bytes.
 */

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

/**
 * Compares '/'-separated paths in the order Go's `fs.WalkDir` visits them: component by
 * component, each compared byte-wise, so `a/b` comes before `a-b` (whose first component is
 * greater than `a`) although `-` sorts before `/` in a plain comparison.
 */
export function compareWalkOrder(a: string, b: string): number {
  const x = a.split('/');
  const y = b.split('/');
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const c = compareUtf8(x[i] as string, y[i] as string);
    if (c !== 0) return c;
  }
  return x.length - y.length;
}
/** A sorted copy of `items` in Go's byte order. */
export function goSorted(items: Iterable<string>): string[] {
  return [...items].sort(compareUtf8);
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

// unicode.IsSpace: ASCII/Latin-1 white space plus the Unicode White_Space property.
const GO_SPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a,
  0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
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
