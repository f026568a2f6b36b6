import pino from 'pino';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parsePauseAt, pauseHook } from './test-pause.ts';

describe('OLMV1_TEST_PAUSE_AT', () => {
  it('parses extension=point[#n] entries', () => {
    expect(parsePauseAt('a=step:apply,b.c=release-write#3, d=object-write')).toEqual([
      { extension: 'a', point: 'step:apply', occurrence: 1 },
      { extension: 'b.c', point: 'release-write', occurrence: 3 },
      { extension: 'd', point: 'object-write', occurrence: 1 },
    ]);
  });

  it.each(['a', 'a=', 'a=apply', 'a=release-write#0', 'A=step:apply', 'a=step:apply#x'])('refuses %j', (value) => {
    expect(() => parsePauseAt(value)).toThrow(/invalid OLMV1_TEST_PAUSE_AT entry/);
  });

  it('is no hook at all without entries', () => {
    expect(pauseHook(undefined, pino({ level: 'silent' }))).toBeUndefined();
  });

  it('passes every point but the n-th of its extension, where it logs and never resolves', async () => {
    const lines: { msg: string; extension: string; point: string; occurrence: number }[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _e, cb) {
        lines.push(JSON.parse(chunk.toString()) as (typeof lines)[number]);
        cb();
      },
    });
    const hook = pauseHook(parsePauseAt('a=release-write#2'), pino({ level: 'warn' }, sink));
    if (hook === undefined) throw new Error('no hook');
    await hook('release-write', 'a');
    await hook('release-write', 'b');
    await hook('release-write', 'b');
    await hook('object-write', 'a');
    let resolved = false;
    void hook('release-write', 'a').then(() => (resolved = true));
    // Once every callback already queued has run, the hook has logged its pause and waits on
    // nothing that could ever resolve it.
    await new Promise((r) => setImmediate(r));
    expect(lines).toMatchObject([{ msg: 'test hook: paused', extension: 'a', point: 'release-write', occurrence: 2 }]);
    expect(resolved).toBe(false);
    await hook('release-write', 'a');
  });
});
