/**
 * Reading a decompressed release payload without making it one string: the top-level
 * `manifest` string is cut out of the bytes and its JSON lines are parsed one at a time, so
 * that a large release (tens of MB of manifest) is never held as the payload's text, the
 * document's manifest string and the objects at once (decision 0098). The rest of the
 * document, small, is parsed as usual.
 *
 * A fast path only: whatever it does not recognise as exactly what JSON.parse and parseManifest
 * would make of the same bytes (a manifest that is not one JSON object per line, a key written
 * with escapes or twice, an escaped lone surrogate, malformed JSON) makes it answer undefined,
 * and the caller decodes the text as before (codec.ts).
 */
import type { KubeObject } from '../../shared/kube/index.ts';
import { isKubeObject } from './manifest.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MANIFEST_KEY = Buffer.from('manifest');

/** The document without its manifest (`"manifest":""` in its place) and the manifest's objects. */
interface ScannedPayload {
  rest: string;
  objects: KubeObject[];
}

/** See the module comment. */
export function scanPayload(bytes: Buffer): ScannedPayload | undefined {
  const span = manifestSpan(bytes);
  if (span === undefined) return undefined;
  const objects = manifestObjects(bytes, span.start, span.end);
  if (objects === undefined) return undefined;
  const rest = bytes.toString('utf8', 0, span.start) + bytes.toString('utf8', span.end);
  return { rest, objects };
}

/**
 * Where the top-level `manifest` string's content lies (between its quotes), when the key is
 * there once, written plainly, with a string value; otherwise undefined.
 */
function manifestSpan(b: Buffer): { start: number; end: number } | undefined {
  let depth = 0;
  let expectKey = false;
  let keyStart = -1;
  let lastKey: Buffer | undefined;
  let valueOfManifest = false;
  let span: { start: number; end: number } | undefined;
  for (let i = 0; i < b.length; i++) {
    const c = b[i];
    if (c === QUOTE) {
      const start = i + 1;
      const isKey = depth === 1 && expectKey;
      i = stringEnd(b, start);
      if (i < 0) return undefined;
      if (isKey) {
        keyStart = start;
        lastKey = b.subarray(keyStart, i);
      } else if (valueOfManifest) {
        if (span !== undefined) return undefined;
        span = { start, end: i };
      }
      valueOfManifest = false;
      continue;
    }
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (valueOfManifest) return undefined; // a manifest that is not a string
    if (c === 0x7b || c === 0x5b) {
      depth++;
      expectKey = depth === 1 && c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    } else if (c === 0x2c) {
      if (depth === 1) expectKey = true;
    } else if (c === 0x3a && depth === 1) {
      expectKey = false;
      valueOfManifest = lastKey !== undefined && lastKey.equals(MANIFEST_KEY);
    }
  }
  return span;
}

/** Index of the quote that ends the string whose content starts at `from`; -1 when none does. */
function stringEnd(b: Buffer, from: number): number {
  for (let q = b.indexOf(QUOTE, from); q >= 0; q = b.indexOf(QUOTE, q + 1)) {
    // Escaped when an odd number of backslashes comes right before it.
    let backslashes = 0;
    while (q - 1 - backslashes >= from && b[q - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return q;
  }
  return -1;
}

/**
 * The objects of the escaped manifest in `b[start, end)`, one per line (an escaped "\n" ends a
 * line), as parseManifest's JSON-lines path gives them; undefined where it would not take them.
 */
function manifestObjects(b: Buffer, start: number, end: number): KubeObject[] | undefined {
  const objects: KubeObject[] = [];
  let scratch = Buffer.allocUnsafe(0);
  for (let at = start; at <= end;) {
    const lineEnd = escapedNewline(b, at, end);
    if (scratch.length < lineEnd - at) scratch = Buffer.allocUnsafe(lineEnd - at);
    const n = unescape(b, at, lineEnd, scratch);
    if (n === undefined) return undefined;
    const line = scratch.toString('utf8', 0, n);
    at = lineEnd + 2;
    if (line.trim() === '') continue;
    if (!line.startsWith('{')) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return undefined;
    }
    if (!isKubeObject(value)) return undefined;
    objects.push(value);
  }
  return objects;
}

/** Index of the next escaped newline (its backslash) in `b[from, end)`, or `end`. */
function escapedNewline(b: Buffer, from: number, end: number): number {
  for (let i = b.indexOf(BACKSLASH, from); i >= 0 && i < end; i = b.indexOf(BACKSLASH, i + 2)) {
    if (b[i + 1] === 0x6e) return i;
  }
  return end;
}

/**
 * Writes the UTF-8 of JSON string content `b[from, to)` into `out`; the byte count, or
 * undefined for what JSON.parse refuses (a raw control character, an unknown escape) and for
 * escapes the slow path reads otherwise (a lone surrogate, which has no UTF-8; a newline,
 * which would cut a line there).
 */
function unescape(b: Buffer, from: number, to: number, out: Buffer): number | undefined {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = b[i] as number;
    if (c >= 0x20 && c !== BACKSLASH) {
      out[n++] = c;
      continue;
    }
    if (c < 0x20) return undefined;
    const e = b[++i];
    switch (e) {
      case 0x22:
      case 0x5c:
      case 0x2f:
        out[n++] = e;
        continue;
      case 0x62:
        out[n++] = 0x08;
        continue;
      case 0x66:
        out[n++] = 0x0c;
        continue;
      case 0x6e:
        out[n++] = 0x0a;
        continue;
      case 0x72:
        out[n++] = 0x0d;
        continue;
      case 0x74:
        out[n++] = 0x09;
        continue;
      case 0x75:
        break;
      default:
        return undefined;
    }
    if (i + 4 >= to) return undefined;
    let code = hex4(b, i + 1);
    if (code === undefined) return undefined;
    i += 4;
    if ((code >= 0xdc00 && code <= 0xdfff) || code === 0x0a) return undefined;
    if (code >= 0xd800 && code <= 0xdbff) {
      const low = b[i + 1] === BACKSLASH && b[i + 2] === 0x75 && i + 6 < to ? hex4(b, i + 3) : undefined;
      if (low === undefined || low < 0xdc00 || low > 0xdfff) return undefined;
      code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
      i += 6;
    }
    n += out.write(String.fromCodePoint(code), n, 'utf8');
  }
  return n;
}

function hex4(b: Buffer, at: number): number | undefined {
  const text = b.toString('latin1', at, at + 4);
  return /^[0-9a-fA-F]{4}$/.test(text) ? Number.parseInt(text, 16) : undefined;
}
