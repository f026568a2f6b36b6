/**
 * A release JSON document without its manifest's text, cut out of the decompressed bytes before
 * they become a string: the upgrade gate reads summaries outside any memory budget.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
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
