import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { constants, crc32, deflateRawSync, gunzipSync } from 'node:zlib';
import { GZIP_FRAME_HEAD, GZIP_FRAME_TAIL, crc32Combine, frameDeflateInPlace } from './gzip-framing.ts';

const segment = (b: Uint8Array): Buffer => deflateRawSync(b, { level: 1, finishFlush: constants.Z_SYNC_FLUSH });

describe('crc32Combine', () => {
  it('gives the CRC-32 of the concatenation', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), fc.uint8Array({ maxLength: 3000 }), (a, b) => {
        expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(crc32(Buffer.concat([a, b])));
      }),
    );
  });

  it('handles lengths beyond 2^31 bytes', () => {
    // CRC of 2^31 + 5 zero bytes after "x", via repeated doubling of known zero-run CRCs.
    let zeros = crc32(Buffer.alloc(1 << 20));
    let length = 1 << 20;
    while (length < 2 ** 31) {
      zeros = crc32Combine(zeros, zeros, length);
      length *= 2;
    }
    const five = crc32(Buffer.alloc(5));
    const direct = crc32Combine(crc32Combine(crc32('x'), zeros, length), five, 5);
    const viaLong = crc32Combine(crc32('x'), crc32Combine(zeros, five, 5), length + 5);
    expect(viaLong).toBe(direct);
  });
});

/** `segments` framed as one gzip member, in a buffer of its own. */
function frame(segments: Buffer, crc: number, size: number): Buffer {
  const buf = Buffer.alloc(GZIP_FRAME_HEAD + segments.length + GZIP_FRAME_TAIL);
  segments.copy(buf, GZIP_FRAME_HEAD);
  return frameDeflateInPlace(buf, segments.length, crc, size);
}

describe('frameDeflateInPlace', () => {
  it('frames concatenated sync-flushed segments as one gzip member', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ minLength: 1, maxLength: 2000 }), { maxLength: 6 }), (parts) => {
        const whole = Buffer.concat(parts);
        const framed = frame(Buffer.concat(parts.map(segment)), crc32(whole), whole.length);
        expect(gunzipSync(framed).equals(whole)).toBe(true);
      }),
    );
  });

  it('frames in place inside a larger buffer, leaving the bytes after the member alone', () => {
    const data = Buffer.from('{"schema":"olm.bundle"}\n');
    const seg = segment(data);
    const buf = Buffer.alloc(GZIP_FRAME_HEAD + seg.length + GZIP_FRAME_TAIL + 5, 0x7a);
    seg.copy(buf, GZIP_FRAME_HEAD);
    const member = frameDeflateInPlace(buf, seg.length, crc32(data), data.length);
    expect(member.buffer).toBe(buf.buffer);
    expect(gunzipSync(member).equals(data)).toBe(true);
    expect(buf.subarray(member.length).equals(Buffer.alloc(5, 0x7a))).toBe(true);
    expect(() => frameDeflateInPlace(Buffer.alloc(GZIP_FRAME_HEAD + seg.length + GZIP_FRAME_TAIL - 1), seg.length, 0, 0)).toThrow(RangeError);
  });

  it('makes a gzip stream that a reader rejects when the CRC is wrong', () => {
    const data = Buffer.from('{"schema":"olm.package"}\n');
    expect(() => gunzipSync(frame(segment(data), crc32(data) ^ 1, data.length))).toThrow();
  });
});
