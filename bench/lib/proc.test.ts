import { describe, expect, it } from 'vitest';
import { RssSampler } from './proc.ts';

describe('RssSampler phases', () => {
  it("keeps what atPeak returned at each phase's highest sample, and starts each phase afresh", () => {
    let calls = 0;
    // This process, sampled by hand (the timer's first tick is an hour away).
    const sampler = new RssSampler(3_600_000, undefined, () => ++calls);
    const first = sampler.takePhase();
    expect(first.max).toBeGreaterThan(0);
    // atPeak ran at the phase's maximum: the last call it made is the detail kept.
    expect(first.detail).toBe(calls);
    const held = Buffer.alloc(64 * 1024 * 1024, 1);
    const second = sampler.takePhase();
    expect(held[0]).toBe(1);
    expect(second.max).toBeGreaterThan(first.max);
    expect(second.detail).toBe(calls);
    expect(sampler.max).toBe(second.max);
    sampler.stop();
  });
});
