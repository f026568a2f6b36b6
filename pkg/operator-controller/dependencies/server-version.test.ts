import { describe, expect, it } from 'vitest';
import { ServerVersionCache } from './kube-version.ts';

describe('ServerVersionCache', () => {
  it('asks once within the time to live and again after it', async () => {
    let now = 1_000;
    const answers = ['v1.33.1', 'v1.34.0'];
    const asked: number[] = [];
    const cache = new ServerVersionCache(
      async () => {
        asked.push(now);
        return answers[asked.length - 1] ?? 'none';
      },
      { ttlMs: 100, now: () => now },
    );
    expect(await cache.get()).toBe('v1.33.1');
    now += 99;
    expect(await cache.get()).toBe('v1.33.1');
    expect(asked).toEqual([1_000]);
    now += 1;
    expect(await cache.get()).toBe('v1.34.0');
    expect(asked).toEqual([1_000, 1_100]);
  });

  it('keeps no failed answer: the next call asks again', async () => {
    let fail = true;
    let calls = 0;
    const cache = new ServerVersionCache(async () => {
      calls++;
      if (fail) throw new Error('connection refused');
      return 'v1.34.0';
    });
    await expect(cache.get()).rejects.toThrow('connection refused');
    fail = false;
    expect(await cache.get()).toBe('v1.34.0');
    expect(await cache.get()).toBe('v1.34.0');
    expect(calls).toBe(2);
  });

  it('passes the caller signal to the request', async () => {
    const seen: (AbortSignal | undefined)[] = [];
    const cache = new ServerVersionCache(async (signal) => {
      seen.push(signal);
      return 'v1.34.0';
    });
    const signal = new AbortController().signal;
    await cache.get(signal);
    expect(seen).toEqual([signal]);
  });
});
