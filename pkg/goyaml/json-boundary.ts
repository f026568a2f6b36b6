/**
 * The hot-path boundary finder of the JSON stream decoder: where does the object (or array)
 * that starts at a given byte end? Only structural bytes outside strings matter, strings are
 * skipped with a native `indexOf` for the closing quote, and the scan can stop at the end of
 * the buffered data and resume when more arrives. Validity is JSON.parse's job afterwards.
 */

/** Resumable scan state; start with `{ pos: valueStart, depth: 0, inString: false, newlines: 0 }`. */
export interface BoundaryScan {
  /** Next byte to look at. */
  pos: number;
  depth: number;
  inString: boolean;
  /** Newlines seen outside strings so far (valid JSON has none inside strings). */
  newlines: number;
}

/**
 * Advances `scan` over `buf[scan.pos, len)`. Returns the index just past the closing byte of
 * the value starting at `valueStart`, or -1 when more data is needed.
 */
export function findValueEnd(buf: Buffer, valueStart: number, len: number, scan: BoundaryScan): number {
  let i = scan.pos;
  let { depth, inString, newlines } = scan;
  let end = -1;
  while (i < len) {
    if (inString) {
      const q = buf.indexOf(0x22, i);
      if (q < 0 || q >= len) {
        i = len;
        break;
      }
      // The quote closes the string unless an odd number of backslashes precedes it.
      let k = q - 1;
      while (k >= valueStart && buf[k] === 0x5c) k--;
      i = q + 1;
      if ((q - 1 - k) % 2 === 0) inString = false;
      continue;
    }
    const c = buf[i++] as number;
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (--depth === 0) {
        end = i;
        break;
      }
    } else if (c === 0x0a) newlines++;
  }
  scan.pos = i;
  scan.depth = depth;
  scan.inString = inString;
  scan.newlines = newlines;
  return end;
}
