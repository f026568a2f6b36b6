/**
 * A large record's manifest read from its decompressed bytes straight into lines (decision
 * 0098 item 17): decoding it whole would hold two to three times a hostile record's size at
 * once. The escaped manifest is cut at its "\n" escapes and each piece unescaped alone into a
 * line sink. Only one JSON object per non-empty line, each followed by "\n" (what we and
 * upstream write), is read so; anything else is left to the whole decode.
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
