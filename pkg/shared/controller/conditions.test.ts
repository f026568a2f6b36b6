import { describe, expect, it } from 'vitest';
import { TRUNCATION_SUFFIX, metaTime, removeCondition, setStatusCondition, truncateConditionMessage, type Condition } from './conditions.ts';

const T0 = '2030-01-01T00:00:00Z';
const now = (): Date => new Date('2030-06-01T12:00:00.789Z');

function base(): Condition[] {
  return [
    { type: 'Progressing', status: 'True', reason: 'Retrying', message: 'm1', lastTransitionTime: T0, observedGeneration: 1 },
    { type: 'Installed', status: 'False', reason: 'Failed', message: 'x', lastTransitionTime: T0 },
  ];
}

describe('setStatusCondition', () => {
  it('appends a new type at the end with "now" (seconds precision) when no time is given', () => {
    const c = base();
    expect(setStatusCondition(c, { type: 'Deprecated', status: 'False', reason: 'Deprecated', message: '' }, now)).toBe(true);
    expect(c.map((x) => x.type)).toEqual(['Progressing', 'Installed', 'Deprecated']);
    expect(c[2]?.lastTransitionTime).toBe('2030-06-01T12:00:00Z');
    setStatusCondition(c, { type: 'New', status: 'True', reason: 'R', message: '', lastTransitionTime: '2029-01-01T00:00:00Z' }, now);
    expect(c[3]?.lastTransitionTime).toBe('2029-01-01T00:00:00Z');
  });

  it('overwrites reason, message and observedGeneration in place without moving lastTransitionTime', () => {
    const c = base();
    const changed = setStatusCondition(c, { type: 'Progressing', status: 'True', reason: 'Succeeded', message: 'done', observedGeneration: 2 }, now);
    expect(changed).toBe(true);
    expect(c[0]).toEqual({
      type: 'Progressing',
      status: 'True',
      reason: 'Succeeded',
      message: 'done',
      lastTransitionTime: T0,
      observedGeneration: 2,
    });
    expect(c.map((x) => x.type)).toEqual(['Progressing', 'Installed']);
  });

  it('moves lastTransitionTime only when the status changes (to the given time, else now)', () => {
    const c = base();
    setStatusCondition(c, { type: 'Installed', status: 'True', reason: 'Succeeded', message: 'ok' }, now);
    expect(c[1]?.lastTransitionTime).toBe('2030-06-01T12:00:00Z');
    setStatusCondition(c, { type: 'Installed', status: 'False', reason: 'Failed', message: 'ok', lastTransitionTime: '2031-01-01T00:00:00Z' }, now);
    expect(c[1]?.lastTransitionTime).toBe('2031-01-01T00:00:00Z');
  });

  it('reports no change for an identical condition (no update loops), treating absent observedGeneration as 0', () => {
    const c = base();
    const before = structuredClone(c);
    expect(setStatusCondition(c, { type: 'Progressing', status: 'True', reason: 'Retrying', message: 'm1', observedGeneration: 1 }, now)).toBe(false);
    expect(setStatusCondition(c, { type: 'Installed', status: 'False', reason: 'Failed', message: 'x', observedGeneration: 0 }, now)).toBe(false);
    expect(c).toEqual(before);
  });
});

describe('condition lookup', () => {
  it('removes by type', () => {
    const c = base();
    expect(removeCondition(c, 'Progressing')).toBe(true);
    expect(removeCondition(c, 'Progressing')).toBe(false);
    expect(c.map((x) => x.type)).toEqual(['Installed']);
  });

  it('formats metav1.Time without fractional seconds', () => {
    expect(metaTime(new Date('2030-01-02T03:04:05.678Z'))).toBe('2030-01-02T03:04:05Z');
  });
});

describe('truncateConditionMessage', () => {
  it('keeps messages up to 32768 bytes and cuts longer ones to exactly 32768 bytes with the suffix', () => {
    const exact = 'a'.repeat(32768);
    expect(truncateConditionMessage(exact)).toBe(exact);
    const long = 'b'.repeat(40000);
    const out = truncateConditionMessage(long);
    expect(Buffer.byteLength(out)).toBe(32768);
    expect(out).toBe('b'.repeat(32768 - TRUNCATION_SUFFIX.length) + '\n\n... [message truncated]');
  });

  it('never splits a multi-byte character', () => {
    const msg = 'é'.repeat(20000); // 2 bytes each
    const out = truncateConditionMessage(msg);
    expect(out.endsWith(TRUNCATION_SUFFIX)).toBe(true);
    expect(out).not.toContain('\uFFFD');
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(32768);
    expect(Buffer.byteLength(out)).toBeGreaterThanOrEqual(32767);
  });
});
