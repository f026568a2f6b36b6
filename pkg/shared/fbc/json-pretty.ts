/**
 * Upstream's "pretty" JSON decode errors for a document that is not an object: the Go type
 * error, the byte offset, and the document re-indented (Go's `json.Indent`) with a `<==` marker.
 */

const MARKER = ' <==';

/**
 * Go's `json.Indent(dst, src, "", indent)` over syntactically valid JSON bytes: insignificant
 * white space dropped, one element per line, `": "` after keys, empty `{}`/`[]` kept compact.
 */
function goJsonIndent(src: Uint8Array, indent = '    '): Buffer {
  const out: number[] = [];
  const ind = Buffer.from(indent);
  let depth = 0;
  let needIndent = false;
  let inString = false;
  let escaped = false;
  const newline = (): void => {
    out.push(0x0a);
    for (let d = 0; d < depth; d++) for (const b of ind) out.push(b);
  };
  let i = 0;
  // Leading white space is dropped.
  while (i < src.length && isJsonSpace(src[i] as number)) i++;
  for (; i < src.length; i++) {
    const c = src[i] as number;
    if (inString) {
      out.push(c);
      if (escaped) escaped = false;
      else if (c === 0x5c) escaped = true;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (isJsonSpace(c)) continue;
    if (needIndent && c !== 0x5d && c !== 0x7d) {
      needIndent = false;
      depth++;
      newline();
    }
    switch (c) {
      case 0x22:
        inString = true;
        out.push(c);
        break;
      case 0x7b:
      case 0x5b:
        // Delay the indent so that empty objects and arrays print as {} and [].
        needIndent = true;
        out.push(c);
        break;
      case 0x2c:
        out.push(c);
        newline();
        break;
      case 0x3a:
        out.push(c, 0x20);
        break;
      case 0x7d:
      case 0x5d:
        if (needIndent) {
          needIndent = false;
        } else {
          depth--;
          newline();
        }
        out.push(c);
        break;
      default:
        out.push(c);
    }
  }
  return Buffer.from(out);
}

function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/**
 * operator-registry's `JSONUnmarshalError.Pretty()`: `<err> at offset N (indicated by <==)`
 * followed by the indented document with ` <== ` inserted where byte `offset` of `data` lands.
 * Falls back to the bare error text when the offset is unknown or out of range.
 */
export function prettyJsonError(message: string, data: Uint8Array, offset: number): string {
  if (data.length === 0 || offset < 0 || offset > data.length) return message;
  const head = `${message} at offset ${offset} (indicated by${MARKER})\n`;
  const pretty = goJsonIndent(data);
  if (offset === data.length) return `${head}${pretty.toString('utf8')}${MARKER}`;
  // Walk the original bytes, matching each one in the indented output, to map the offset.
  let p = 0;
  let prettyOffset = 0;
  for (let d = 0; d < data.length; d++) {
    if (d === offset) {
      prettyOffset = p;
      break;
    }
    while (pretty[p] !== data[d]) {
      p++;
      if (p >= pretty.length) return message;
    }
    p++;
  }
  return `${head}${pretty.subarray(0, prettyOffset).toString('utf8')}${MARKER} ${pretty.subarray(prettyOffset).toString('utf8')}`;
}
