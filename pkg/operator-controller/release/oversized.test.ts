import { describe, expect, it } from 'vitest';
import { PayloadTooLargeError } from './codec.ts';
import { OversizedPayloads } from './oversized.ts';

const WHERE = 'Secret "olmv1-system/sh.helm.release.v1.bomb.v1"';
const MESSAGE = `release record ${WHERE} is corrupt: its payload decompresses to more than 64 bytes (4 bytes compressed)`;

/** What `remember` rethrows, as the record reader's catch sees it. */
function rethrown(known: OversizedPayloads, payload: Buffer, maxBytes: number, err: unknown): unknown {
  try {
    known.remember(payload, maxBytes, err);
  } catch (e) {
    return e;
  }
  throw new Error('remember returned');
}

describe('payloads known to inflate past the bound', () => {
  it('answers a payload found too large with the same error, for that bound only, and rethrows every error', () => {
    const known = new OversizedPayloads();
    const bomb = Buffer.from([1, 2, 3, 4]);
    expect(() => known.check(bomb, WHERE, 64)).not.toThrow();
    const tooLarge = new PayloadTooLargeError(WHERE, bomb.length, 64);
    expect(rethrown(known, bomb, 64, tooLarge)).toBe(tooLarge);
    expect(() => known.check(Buffer.from(bomb), WHERE, 64)).toThrow(MESSAGE);
    // Another bound, another payload of the same length, or the same bytes changed: inflated again.
    expect(() => known.check(bomb, WHERE, 128)).not.toThrow();
    expect(() => known.check(Buffer.from([1, 2, 3, 5]), WHERE, 64)).not.toThrow();
    // Any other failure is rethrown and not kept.
    const other = Buffer.from([9, 9]);
    const broken = new Error('incorrect header check');
    expect(rethrown(known, other, 64, broken)).toBe(broken);
    expect(() => known.check(other, WHERE, 64)).not.toThrow();
  });

  it('keeps the newest sixteen', () => {
    const known = new OversizedPayloads();
    const payloads = Array.from({ length: 17 }, (_, i) => Buffer.from([i, i, i, i]));
    for (const p of payloads) rethrown(known, p, 64, new PayloadTooLargeError(WHERE, p.length, 64));
    expect(() => known.check(payloads[0] ?? Buffer.alloc(0), WHERE, 64)).not.toThrow();
    for (const p of payloads.slice(1)) expect(() => known.check(p, WHERE, 64)).toThrow(PayloadTooLargeError);
  });
});
