/**
 * gzip framing (RFC 1952) around raw deflate data, and CRC-32 arithmetic. Raw deflate segments
 * each ended with a sync flush, followed by one empty final block, are one deflate stream; with
 * a gzip header and trailer, one gzip file. catalog.jsonl.gz is written that way
 * (gzip-segments.ts), so any contiguous run of its segments, framed anew, is the gzip answer for
 * that run's content without compressing it again.
 */

/** gzip header: magic, deflate, no flags, no mtime, "fastest", Unix (zlib's at level 1). */
export const GZIP_HEADER: Buffer = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x04, 0x03]);

/** An empty final deflate block (fixed Huffman codes: BFINAL=1, BTYPE=01, end-of-block). */
export const FINAL_BLOCK: Buffer = Buffer.from([0x03, 0x00]);

/** Writes the eight-byte gzip trailer at `at`: CRC-32 and length modulo 2^32 of the uncompressed data. */
export function writeGzipTrailer(buf: Buffer, at: number, crc: number, size: number): void {
  buf.writeUInt32LE(crc >>> 0, at);
  buf.writeUInt32LE(size % 2 ** 32, at + 4);
}

/** Bytes {@link frameDeflateInPlace} needs before the deflate data (the gzip header). */
export const GZIP_FRAME_HEAD = GZIP_HEADER.length;
/** Bytes it needs after the deflate data (final block and trailer). */
export const GZIP_FRAME_TAIL = FINAL_BLOCK.length + 8;

/**
 * Frames the `length` bytes of sync-flushed deflate segments placed in `buf` at GZIP_FRAME_HEAD
 * (uncompressed: `size` bytes, CRC-32 `crc`) as one gzip member, in place; returns that view.
 */
export function frameDeflateInPlace(buf: Buffer, length: number, crc: number, size: number): Buffer {
  const end = GZIP_FRAME_HEAD + length;
  if (buf.length < end + GZIP_FRAME_TAIL) throw new RangeError(`gzip frame needs ${end + GZIP_FRAME_TAIL} bytes, buffer has ${buf.length}`);
  GZIP_HEADER.copy(buf, 0);
  FINAL_BLOCK.copy(buf, end);
  writeGzipTrailer(buf, end + FINAL_BLOCK.length, crc, size);
  return buf.subarray(0, end + GZIP_FRAME_TAIL);
}

// CRC-32 (the gzip/zlib polynomial, reflected) as polynomials over GF(2) modulo P, with bit 31
// holding the coefficient of x^0: combining two CRCs multiplies the first by x^(8 * len2).
const POLY = 0xedb88320;

/** a * b modulo P. */
function multiplyModP(a: number, b: number): number {
  let product = 0;
  for (let m = 0x80000000; m !== 0; m >>>= 1) {
    if ((a & m) !== 0) product ^= b;
    b = (b & 1) !== 0 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return product >>> 0;
}

// X2N[k] = x^(2^k) modulo P.
const X2N = new Uint32Array(32);
{
  let p = 0x40000000; // x^1
  for (let k = 0; k < 32; k++) {
    X2N[k] = p;
    p = multiplyModP(p, p);
  }
}

/** x^(8 * bytes) modulo P. */
function shiftForBytes(bytes: number): number {
  let p = 0x80000000; // x^0
  let n = bytes;
  for (let k = 3; n > 0; k++) {
    if (n % 2 === 1) p = multiplyModP(X2N[k % 32] ?? 0, p);
    n = Math.floor(n / 2);
  }
  return p;
}

/** The CRC-32 of A followed by B, from both CRCs and B's length (zlib's crc32_combine). */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  if (lengthB === 0) return crcA >>> 0;
  return (multiplyModP(shiftForBytes(lengthB), crcA >>> 0) ^ crcB) >>> 0;
}
