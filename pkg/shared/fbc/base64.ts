/**
 * Validation of standard (padded) base64 as Go's `base64.StdEncoding.Decode` reports it (`\r`
 * and `\n` ignored; `illegal base64 data at input byte N`): FBC icons and bundle object data
 * are Go `[]byte` fields, so bad base64 fails typed decoding with this text.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;

const FAST_VALID = /^[A-Za-z0-9+/]*={0,2}$/;

/** Returns Go's error text for invalid standard base64 (`s` as Go bytes), or undefined if valid. */
export function goBase64Error(s: string): string | undefined {
  // The common case, canonical base64 without line breaks, is checked natively.
  if (s.length % 4 === 0 && FAST_VALID.test(s)) return undefined;
  const src = Buffer.from(s, 'utf8');
  let si = 0;
  while (si < src.length) {
    const r = decodeQuantum(src, si);
    if (typeof r === 'string') return r;
    if (r === si) break;
    si = r;
  }
  return undefined;
}

function isNewline(b: number | undefined): boolean {
  return b === 0x0a || b === 0x0d;
}

function corrupt(offset: number): string {
  return `illegal base64 data at input byte ${offset}`;
}

// One 4-character quantum starting at si: the next index, or the error text.
function decodeQuantum(src: Buffer, start: number): number | string {
  let si = start;
  for (let j = 0; j < 4; j++) {
    if (si === src.length) {
      if (j === 0) return si;
      // Padding is mandatory: a short final quantum is corrupt.
      return corrupt(si - j);
    }
    const ch = src[si] as number;
    si++;
    if (ch < 128 && (DECODE[ch] as number) >= 0) continue;
    if (isNewline(ch)) {
      j--;
      continue;
    }
    if (ch !== 0x3d) return corrupt(si - 1);
    // Padding: only allowed as the 3rd or 4th character of the quantum.
    if (j === 0 || j === 1) return corrupt(si - 1);
    if (j === 2) {
      while (si < src.length && isNewline(src[si])) si++;
      if (si === src.length) return corrupt(src.length);
      if (src[si] !== 0x3d) return corrupt(si - 1);
      si++;
    }
    while (si < src.length && isNewline(src[si])) si++;
    if (si < src.length) return corrupt(si);
    return si;
  }
  return si;
}
