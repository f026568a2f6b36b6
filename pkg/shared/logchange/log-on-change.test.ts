import { describe, expect, it } from 'vitest';
import { LogOnChange } from './index.ts';

describe('LogOnChange', () => {
  it('says to log when a situation starts and when it changes, not when it repeats', () => {
    const once = new LogOnChange();
    expect(['a', 'a', 'a', 'b', 'b', 'a'].map((s) => once.changed('k', s))).toEqual([true, false, false, true, false, true]);
  });

  it('keeps keys apart', () => {
    const once = new LogOnChange();
    expect(once.changed('x', 'failed')).toBe(true);
    expect(once.changed('y', 'failed')).toBe(true);
    expect(once.changed('x', 'failed')).toBe(false);
  });

  it('clear ends a situation: true once, and the next occurrence is logged again', () => {
    const once = new LogOnChange();
    expect(once.clear('k')).toBe(false);
    once.changed('k', 's');
    expect(once.clear('k')).toBe(true);
    expect(once.clear('k')).toBe(false);
    expect(once.changed('k', 's')).toBe(true);
  });

  it('retain forgets the keys it rejects', () => {
    const once = new LogOnChange();
    once.changed('live', 's');
    once.changed('gone', 's');
    once.retain((k) => k === 'live');
    expect(once.changed('live', 's')).toBe(false);
    expect(once.changed('gone', 's')).toBe(true);
  });
});
