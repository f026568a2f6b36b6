/**
 * A large record's manifest read from its decompressed bytes straight into lines (decision
 * 0098 item 17): decoding it whole would hold two to three times a hostile record's size at
 * once. The escaped manifest is cut at its "\n" escapes and each piece unescaped alone into a
 * line sink. Only one JSON object per non-empty line, each followed by "\n" (what we and
 * upstream write), is read so; anything else is left to the whole decode. Likewise a summary
 * read (the upgrade gate's, outside any memory budget) cuts the manifest's text out of the
 * bytes before they become a string.
 */
import type { LineSink } from './manifest.ts';

/** Where a read keeps large manifests: records whose decompressed JSON is longer than `aboveBytes` go to a sink `open()` gives. */
export interface ManifestSpill {
  aboveBytes: number;
  open: () => LineSink;
}

const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const NEWLINE_ESCAPE = Buffer.from('\\n');
const ESCAPED_NEWLINES = [Buffer.from('\\u000a'), Buffer.from('\\u000A')];

/**
 * The lines of the manifest whose escaped contents are `json` from `range.start` to before
 * `range.end`, pushed one at a time into `open()`'s sink; undefined, with no sink opened, when
 * the manifest is not of the shape above. Throws when a piece does not unescape (the record is
 * then corrupt, and the whole decode says how) or the sink does.
 */
export function manifestLinesFromBytes<S extends LineSink>(json: Buffer, range: { start: number; end: number }, open: () => S): S | undefined {
  for (const escaped of ESCAPED_NEWLINES) {
    const at = json.indexOf(escaped, range.start);
    if (at >= 0 && at < range.end) return undefined;
  }
  const ends = pieceEnds(json, range.start, range.end);
  if (ends === undefined) return undefined;
  const sink = open();
  let piece = range.start;
  for (const end of ends) {
    sink.push(JSON.parse(`"${json.toString('utf8', piece, end)}"`) as string);
    piece = end + NEWLINE_ESCAPE.length;
  }
  return sink;
}

/**
 * Where each piece between the "\n" escapes of json[start, end) ends, when every piece is
 * non-empty, starts with "{", ends with "}" and the last one is followed by "\n" right at
 * `end`; undefined otherwise. A backslash and "n" preceded by an odd run of backslashes is an
 * escaped backslash and the letter n, not a line's end.
 */
function pieceEnds(json: Buffer, start: number, end: number): number[] | undefined {
  const ends: number[] = [];
  let piece = start;
  let at = start;
  while (piece < end) {
    const n = json.indexOf(NEWLINE_ESCAPE, at);
    if (n < 0 || n + NEWLINE_ESCAPE.length > end) return undefined;
    let backslashes = 0;
    for (let k = n - 1; k >= piece && json[k] === BACKSLASH; k--) backslashes++;
    if (backslashes % 2 === 1) {
      at = n + 1;
      continue;
    }
    if (n === piece || json[piece] !== OPEN_BRACE || json[n - 1] !== CLOSE_BRACE) return undefined;
    ends.push(n);
    piece = n + NEWLINE_ESCAPE.length;
    at = piece;
  }
  return ends.length === 0 ? undefined : ends;
}

const QUOTE = 0x22;
const OPEN = new Set([0x7b, 0x5b]); // { [
const CLOSE = new Set([0x7d, 0x5d]); // } ]
const KEY = Buffer.from('"manifest":"');
/** Below this the cut saves nothing worth a scan. */
const MIN_BYTES = 64 * 1024;

/**
 * `json` with the top-level `manifest` string's contents removed (`"manifest":""`), or
 * undefined when it is small, has no such member in compact form, or does not scan as JSON
 * (the caller then parses it whole). A `manifest` key nested deeper is skipped.
 */
export function withoutManifest(json: Buffer): Buffer | undefined {
  if (json.length < MIN_BYTES) return undefined;
  const range = manifestRange(json);
  if (range === undefined) return undefined;
  return Buffer.concat([json.subarray(0, range.start), json.subarray(range.end)]);
}

/**
 * Where the escaped contents of the outermost object's `manifest` string are in `json`: from
 * `start` to before `end` (its closing quote); undefined as for {@link withoutManifest}.
 */
export function manifestRange(json: Buffer): { start: number; end: number } | undefined {
  const start = topLevelManifest(json);
  if (start === undefined) return undefined;
  const end = stringEnd(json, start);
  return end === undefined ? undefined : { start, end };
}

/** The index just after `"manifest":"` of the outermost object, or undefined. */
function topLevelManifest(json: Buffer): number | undefined {
  let depth = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json[i] as number;
    if (c === QUOTE) {
      if (depth === 1 && json.subarray(i, i + KEY.length).equals(KEY) && afterMemberStart(json, i)) return i + KEY.length;
      const end = stringEnd(json, i + 1);
      if (end === undefined) return undefined;
      i = end;
    } else if (OPEN.has(c)) depth++;
    else if (CLOSE.has(c)) depth--;
  }
  return undefined;
}

/** True when the quote at `i` opens a member name: after `{` or `,` (whitespace between). */
function afterMemberStart(json: Buffer, i: number): boolean {
  for (let j = i - 1; j >= 0; j--) {
    const c = json[j] as number;
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    return c === 0x7b || c === 0x2c;
  }
  return false;
}

/** The index of the quote closing the string whose contents start at `from`, or undefined. */
function stringEnd(json: Buffer, from: number): number | undefined {
  for (let at = from; ;) {
    const q = json.indexOf(QUOTE, at);
    if (q < 0) return undefined;
    let backslashes = 0;
    for (let k = q - 1; k >= from && json[k] === BACKSLASH; k--) backslashes++;
    if (backslashes % 2 === 0) return q;
    at = q + 1;
  }
}
