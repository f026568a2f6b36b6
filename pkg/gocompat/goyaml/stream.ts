/**
 * apimachinery's `YAMLOrJSONDecoder(r, 4096)` over a whole input, each document decoded into
 * interface{} (as cli-runtime reads bundle manifests), and sigs.k8s.io/yaml's `Unmarshal`:
 * - the first non-space rune within 4096 bytes decides: `{` => a JSON value stream, else YAML;
 * - JSON: a value failing after 0 or 1 decoded values sends the rest (white space up to one
 *   newline skipped) to YAML, and if that fails too the JSON error stands; after 2, it stands;
 * - YAML: documents split on lines starting with `---` (only a comment may follow), CRLF read
 *   as LF; a document of blank lines and comments is null; empty ones are skipped.
 * FBC files take the same route through pkg/shared/fbc's stream-parser.ts.
 */
import { err, ok, type Result } from '../../shared/errors/index.ts';
import { goIsSpace, goTrimSpace } from '../gotext/index.ts';
import { yamlToJsonValue } from './convert.ts';
import { YamlConvertError } from './errors.ts';
import { goBytesToString, validSequenceLength } from './go-format.ts';
import { type DocumentPosition, inFileNumbering } from './file-lines.ts';
import { findOverflowingNumber, isSpace, scanJsonValue } from './json-scan.ts';
import type { JsonValue } from './types.ts';

/** Documents decoded before the stream ended, and the error that ended it (Go's text). */
interface DecodedStream {
  docs: JsonValue[];
  error?: string;
}

/** A decoded stream and the YAML document whose conversion produced `error` (for messages in the file's numbering, file-lines.ts). */
interface LocatedStream extends DecodedStream {
  errorAt?: DocumentPosition;
}

const SNIFF_BYTES = 4096;

/** Decodes a YAML-or-JSON stream; never throws for bad input. The error is Go's text, in go-yaml's per-document line numbering. */
export function decodeYamlOrJson(bytes: Uint8Array): DecodedStream {
  const r = decodeLocated(bytes);
  return r.error === undefined ? { docs: r.docs } : { docs: r.docs, error: r.error };
}

function decodeLocated(bytes: Uint8Array): LocatedStream {
  const docs: JsonValue[] = [];
  if (!sniffJson(bytes)) return decodeYamlDocs(bytes, 0, docs, undefined);
  let pos = 0;
  for (;;) {
    const start = skipJsonSpace(bytes, pos);
    if (start >= bytes.length) return { docs };
    const r = scanJsonValue(bytes, start, bytes.length, true);
    let failure: string;
    if (r.kind === 'complete') {
      const parsed = parseJsonValue(bytes, start, r.end);
      if ('failure' in parsed) failure = parsed.failure;
      else {
        docs.push(parsed.value);
        pos = r.end;
        continue;
      }
    } else if (r.kind === 'error') {
      // Syntax errors: the bare message after 2 values, `json: offset N: ...` before.
      failure = docs.length > 1 ? r.message : `json: offset ${r.index + 1}: ${r.message}`;
    } else {
      failure = 'unexpected EOF';
    }
    if (docs.length > 1) return { docs, error: failure };
    const yamlStart = skipOneLine(bytes, pos);
    if (yamlStart === undefined) return { docs, error: failure };
    return decodeYamlDocs(bytes, yamlStart, docs, failure);
  }
}

/** JSON.parse with encoding/json's interface{} results: U+FFFD for bad UTF-8, float64 range. */
function parseJsonValue(bytes: Uint8Array, start: number, end: number): { value: JsonValue } | { failure: string } {
  const text = utf8Text(bytes, start, end);
  const overflow = findOverflowingNumber(text);
  if (overflow !== undefined) return { failure: `json: cannot unmarshal number ${overflow.literal} into Go value of type float64` };
  return { value: wellFormed(JSON.parse(text) as JsonValue) };
}

// Go replaces lone surrogates from \u escapes with U+FFFD.
function wellFormed(v: JsonValue): JsonValue {
  if (typeof v === 'string') return v.isWellFormed() ? v : v.toWellFormed();
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = wellFormed(v[i] as JsonValue);
    return v;
  }
  for (const k of Object.keys(v)) {
    const item = wellFormed(v[k] as JsonValue);
    if (k.isWellFormed()) v[k] = item;
    else {
      delete v[k];
      Object.defineProperty(v, k.toWellFormed(), { value: item, enumerable: true, writable: true, configurable: true });
    }
  }
  return v;
}

function utf8Text(bytes: Uint8Array, start: number, end: number): string {
  const slice = bytes.subarray(start, end);
  try {
    return FATAL_UTF8.decode(slice);
  } catch {
    return goBytesToString(slice);
  }
}

const FATAL_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function decodeYamlDocs(bytes: Uint8Array, from: number, docs: JsonValue[], jsonError: string | undefined): LocatedStream {
  let pending = jsonError;
  let index = 0;
  for (const doc of splitYamlDocuments(bytes, from)) {
    if ('separatorError' in doc) return { docs, error: pending ?? doc.separatorError };
    index++;
    let value: JsonValue;
    try {
      value = yamlToJsonValue(doc.bytes);
    } catch (e) {
      if (!(e instanceof YamlConvertError)) throw e;
      if (pending !== undefined) return { docs, error: pending };
      return { docs, error: `error converting YAML to JSON: ${e.message}`, errorAt: { index, firstLine: doc.firstLine } };
    }
    pending = undefined;
    docs.push(value);
  }
  return pending === undefined ? { docs } : { docs, error: pending };
}

type SplitDoc = { bytes: Uint8Array; firstLine: number } | { separatorError: string };

/** apimachinery's YAMLReader: documents between `---` lines (CRLF read as LF), with the file line each starts on. */
function* splitYamlDocuments(bytes: Uint8Array, from: number): Generator<SplitDoc> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let doc: Buffer[] = [];
  let line = 1;
  for (let i = buf.indexOf(0x0a); i >= 0 && i < from; i = buf.indexOf(0x0a, i + 1)) line++;
  let firstLine = line;
  for (let at = from; at < buf.length; line++) {
    const nl = buf.indexOf(0x0a, at);
    const lineEnd = nl < 0 ? buf.length : nl;
    const next = nl < 0 ? buf.length : nl + 1;
    const contentEnd = nl >= 0 && lineEnd > at && buf[lineEnd - 1] === 0x0d ? lineEnd - 1 : lineEnd;
    if (lineEnd - at >= 3 && buf[at] === 0x2d && buf[at + 1] === 0x2d && buf[at + 2] === 0x2d) {
      const rest = goTrimSpace(buf.toString('utf8', at + 3, contentEnd));
      if (rest !== '' && rest[0] !== '#') {
        yield { separatorError: `invalid Yaml document separator: ${rest}` };
        return;
      }
      if (doc.length > 0) yield { bytes: Buffer.concat(doc), firstLine };
      doc = [];
      firstLine = line + 1;
    } else {
      // The line reader ends every line, the last one included, with "\n".
      doc.push(buf.subarray(at, contentEnd), NEWLINE);
    }
    at = next;
  }
  if (doc.length > 0) yield { bytes: Buffer.concat(doc), firstLine };
}

const NEWLINE = Buffer.from('\n');

// GuessJSONStream: is the first non-space rune of the first 4096 bytes `{`?
function sniffJson(bytes: Uint8Array): boolean {
  const limit = Math.min(bytes.length, SNIFF_BYTES);
  for (let i = 0; i < limit;) {
    const c = bytes[i] as number;
    if (c === 0x7b) return true;
    if (c < 0x80) {
      if (!goIsSpace(c)) return false;
      i++;
      continue;
    }
    const size = validSequenceLength(bytes, i);
    if (size === 0 || i + size > limit) return false;
    const cp = Buffer.from(bytes.subarray(i, i + size))
      .toString('utf8')
      .codePointAt(0) as number;
    if (!goIsSpace(cp)) return false;
    i += size;
  }
  return false;
}

function skipJsonSpace(bytes: Uint8Array, from: number): number {
  let i = from;
  while (i < bytes.length && isSpace(bytes[i] as number)) i++;
  return i;
}

// consumeWhitespace: runes read 4 bytes at a time; fewer than 4 left or an invalid rune keeps
// the JSON error (undefined), else the offset after white space up to and including "\n".
function skipOneLine(bytes: Uint8Array, from: number): number | undefined {
  let i = from;
  for (;;) {
    if (bytes.length - i < 4) return undefined;
    const size = validSequenceLength(bytes, i);
    if (size === 0) return undefined;
    const cp =
      size === 1
        ? (bytes[i] as number)
        : (Buffer.from(bytes.subarray(i, i + size))
            .toString('utf8')
            .codePointAt(0) as number);
    if (!goIsSpace(cp)) return i;
    i += size;
    if (cp === 0x0a) return i;
  }
}

/**
 * Decodes bytes as UTF-8 text (a leading byte-order mark is dropped).
 * Fails with `invalid UTF-8 text` when the bytes are not valid UTF-8.
 */
export function decodeUtf8(bytes: Uint8Array): Result<string, string> {
  try {
    const text = FATAL_UTF8.decode(bytes);
    return ok(text.startsWith('\uFEFF') ? text.slice(1) : text);
  } catch {
    return err('invalid UTF-8 text');
  }
}

/**
 * The non-null documents of a YAML-or-JSON stream, as cli-runtime keeps them. The error is Go's
 * text without `error converting YAML to JSON: `, its line in the file's numbering (file-lines.ts).
 */
export function decodeDocuments(text: string): Result<unknown[], string> {
  const r = decodeLocated(Buffer.from(text, 'utf8'));
  if (r.error !== undefined) {
    const shown = r.errorAt === undefined ? r.error : inFileNumbering(r.error, r.errorAt).text;
    return err(shown.replace(/^error converting YAML to JSON: /, ''));
  }
  return ok(r.docs.filter((d) => d !== null));
}

/**
 * A single-document file (`metadata/*.yaml`, `--config`) as sigs.k8s.io/yaml's Unmarshal reads
 * it: YAML (JSON being YAML), the first document only; an empty file is null. The error is
 * Go's conversion error text.
 */
export function decodeSingleDocument(text: string): Result<JsonValue, string> {
  try {
    return ok(yamlToJsonValue(text));
  } catch (e) {
    if (e instanceof YamlConvertError) return err(e.message);
    throw e;
  }
}
