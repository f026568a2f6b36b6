/**
 * JSON text kept as text, where upstream works on raw JSON rather than decoded values: property
 * values kept as `json.RawMessage` (number spellings and key order must survive a round trip).
 * Spans are indices into the JS string; syntax errors are Go's (`unexpected end of JSON input`,
 * `invalid character 'x' looking for beginning of value`, ...). Scanning is json-scan.ts.
 */
import { err, ok, type Result } from '../../shared/errors/index.ts';
import { goQuoteChar, isSpace, scanJsonValue, type RawJson } from './json-scan.ts';

/**
 * Scans one complete JSON document (surrounding white space allowed) into its value tree, with
 * spans as indices into `text`. Errors are `json.Unmarshal`'s syntax errors.
 */
export function scanJson(text: string): Result<RawJson, string> {
  const buf = Buffer.from(text, 'utf8');
  const r = scanJsonValue(buf, 0, buf.length, true, true);
  if (r.kind === 'incomplete') return err('unexpected end of JSON input');
  if (r.kind === 'error') return err(r.message);
  const trailing = firstNonSpace(buf, r.end);
  if (trailing < buf.length) return err(`invalid character ${goQuoteChar(buf[trailing] as number)} after top-level value`);
  return ok(toStringSpans(text, buf, r.tree as RawJson));
}

/**
 * The JSON text of `node` compacted as Go's `json.Marshal` does for a `json.RawMessage`:
 * insignificant white space removed, string contents kept byte for byte except that `<`, `>`,
 * `&`, U+2028 and U+2029 are written as `\u003c`, `\u003e`, `\u0026`, `\u2028`, `\u2029`.
 */
export function compactRaw(text: string, node: RawJson): string {
  let out = '';
  let inString = false;
  for (let i = node.start; i < node.end; i++) {
    const c = text[i] as string;
    if (inString) {
      if (c === '\\') {
        out += c + (text[i + 1] ?? '');
        i++;
        continue;
      }
      if (c === '"') inString = false;
      out += HTML_ESCAPES[c] ?? c;
      continue;
    }
    if (c === '"') inString = true;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') continue;
    out += c;
  }
  return out;
}

const HTML_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** The type name Go's decoder uses for a JSON value kind in "cannot unmarshal" errors. */
export function goJsonKindName(node: RawJson): string {
  if (node.kind === 'true' || node.kind === 'false') return 'bool';
  return node.kind;
}

function firstNonSpace(buf: Uint8Array, from: number): number {
  let i = from;
  while (i < buf.length && isSpace(buf[i] as number)) i++;
  return i;
}

// Byte offsets to UTF-16 indices (identical for ASCII text).
function toStringSpans(text: string, buf: Uint8Array, tree: RawJson): RawJson {
  if (buf.length === text.length) return tree;
  const index = new Int32Array(buf.length + 1);
  let u = 0;
  for (let b = 0; b < buf.length;) {
    const cp = text.codePointAt(u) as number;
    const bytes = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    for (let k = 0; k < bytes; k++) index[b + k] = u;
    b += bytes;
    u += cp > 0xffff ? 2 : 1;
  }
  index[buf.length] = text.length;
  const map = (node: RawJson): RawJson => {
    const start = index[node.start] as number;
    const end = index[node.end] as number;
    if (node.kind === 'object') return { kind: 'object', start, end, members: node.members.map((m) => ({ key: m.key, value: map(m.value) })) };
    if (node.kind === 'array') return { kind: 'array', start, end, items: node.items.map(map) };
    return { kind: node.kind, start, end };
  };
  return map(tree);
}
