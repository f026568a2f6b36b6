/**
 * The hot-path boundary finder of the JSON stream decoder: where does the object or array
 * starting at a byte end? Strings are skipped with a native `indexOf`; the scan resumes when
 * more data arrives; JSON.parse validates afterwards. The nesting and string limits are
 * enforced as the bytes arrive, so nothing too deep or too long is buffered whole.
 */
import { MAX_NESTING_DEPTH } from './limits.ts';

/**
 * Resumable scan state; start with
 * `{ pos: valueStart, depth: 0, inString: false, newlines: 0, stringBytes: 0 }`.
 */
export interface BoundaryScan {
  /** Next byte to look at. */
  pos: number;
  depth: number;
  inString: boolean;
  /** Newlines seen outside strings so far (valid JSON has none inside strings). */
  newlines: number;
  /** Bytes of the string being scanned so far (its opening quote excluded). */
  stringBytes: number;
}

/** {@link findValueEnd}: more data is needed. */
export const NEEDS_MORE = -1;
/** {@link findValueEnd}: the value nests deeper than {@link MAX_NESTING_DEPTH}. */
export const TOO_DEEP = -2;
/** {@link findValueEnd}: a string is longer than the caller's limit. */
export const STRING_TOO_LONG = -3;

/**
 * Advances `scan` over `buf[scan.pos, len)`. Returns the index just past the closing byte of
 * the value starting at `valueStart`, {@link NEEDS_MORE}, or {@link TOO_DEEP} /
 * {@link STRING_TOO_LONG} when a limit is crossed (the scan stops there; the exact scanner
 * then finds Go's error for a too deep value).
 */
export function findValueEnd(buf: Buffer, valueStart: number, len: number, scan: BoundaryScan, maxStringBytes = Infinity): number {
  let i = scan.pos;
  let { depth, inString, newlines, stringBytes } = scan;
  let end = NEEDS_MORE;
  while (i < len) {
    if (inString) {
      const q = buf.indexOf(0x22, i);
      if (q < 0 || q >= len) {
        stringBytes += len - i;
        i = len;
        if (stringBytes > maxStringBytes) end = STRING_TOO_LONG;
        break;
      }
      stringBytes += q + 1 - i;
      // The quote closes the string unless an odd number of backslashes precedes it.
      let k = q - 1;
      while (k >= valueStart && buf[k] === 0x5c) k--;
      i = q + 1;
      if ((q - 1 - k) % 2 === 0) {
        inString = false;
        // The closing quote was counted.
        if (stringBytes - 1 > maxStringBytes) {
          end = STRING_TOO_LONG;
          break;
        }
      }
      continue;
    }
    const c = buf[i++] as number;
    if (c === 0x22) {
      inString = true;
      stringBytes = 0;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_NESTING_DEPTH) {
        end = TOO_DEEP;
        break;
      }
    } else if (c === 0x7d || c === 0x5d) {
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
  scan.stringBytes = stringBytes;
  return end;
}
