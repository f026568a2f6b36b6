import { describe, expect, it } from 'vitest';
import { freeOwnedBytes } from './free.ts';

describe('freeOwnedBytes', () => {
  it('detaches a buffer viewed whole, once', () => {
    const big = Buffer.allocUnsafeSlow(1 << 20);
    expect(freeOwnedBytes(big)).toBe(true);
    expect(big.byteLength).toBe(0);
    expect(big.buffer.detached).toBe(true);
    expect(freeOwnedBytes(big)).toBe(false);
    const encoded = new TextEncoder().encode('text');
    expect(freeOwnedBytes(encoded)).toBe(true);
  });

  it('leaves shared buffers alone: slices of the small-Buffer pool, subarrays, shared memory', () => {
    const a = Buffer.from('pooled a');
    const b = Buffer.from('pooled b');
    expect(a.buffer).toBe(b.buffer);
    expect(freeOwnedBytes(a)).toBe(false);
    expect(b.toString()).toBe('pooled b');
    const whole = Buffer.allocUnsafeSlow(64);
    expect(freeOwnedBytes(whole.subarray(8))).toBe(false);
    expect(whole.byteLength).toBe(64);
    expect(freeOwnedBytes(new Uint8Array(new SharedArrayBuffer(16)))).toBe(false);
  });
});
