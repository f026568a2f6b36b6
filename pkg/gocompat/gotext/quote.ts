/**
 * Go's `%q` and `%v` renderings of strings, which upstream error messages embed verbatim:
 * users compare our messages with upstream's, so these follow Go's output byte for byte.
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
      case 0x07:
        out += '\\a';
        continue;
      case 0x08:
        out += '\\b';
        continue;
      case 0x0c:
        out += '\\f';
        continue;
      case 0x0a:
        out += '\\n';
        continue;
      case 0x0d:
        out += '\\r';
        continue;
      case 0x09:
        out += '\\t';
        continue;
      case 0x0b:
        out += '\\v';
        continue;
      case 0x5c:
        out += '\\\\';
        continue;
      case 0x22:
        out += '\\"';
        continue;
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
