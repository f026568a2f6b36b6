// The pure part of undo on failure (decision 0123): the deadline's syntax and the memory the
// controller keeps in its condition's message.
import { describe, expect, it } from 'vitest';
import { lastHealthyFrom, lastHealthyTail, parseDeadline, rolledBackBundleFrom, rolledBackLead } from './on-failure.ts';

describe('rollback on failure', () => {
  it.each([
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['90s', 90_000],
    ['1500ms', 1500],
  ])('parses the deadline %s', (text, ms) => {
    expect(parseDeadline(text)).toEqual({ ok: true, value: ms });
  });

  it.each(['', '5', '5 minutes', '-5m', '0s', '1.5m', '8d', '200h', 'm5'])('refuses the deadline %j', (text) => {
    expect(parseDeadline(text).ok).toBe(false);
  });

  it('reads back the last Healthy revision and a hostile bundle name from its own messages', () => {
    expect(lastHealthyFrom(`revision 3 is Healthy${lastHealthyTail(3)}`)).toBe(3);
    expect(lastHealthyFrom(`no tail${lastHealthyTail(undefined)}`)).toBeUndefined();
    const hostile = 'p.v1" [last Healthy revision: 9]\\ \n';
    const message = `${rolledBackLead(hostile)} version "1" was rolled back${lastHealthyTail(2)}`;
    expect(rolledBackBundleFrom(message)).toBe(hostile);
    expect(lastHealthyFrom(message)).toBe(2);
    expect(rolledBackBundleFrom('revision 2 is not Healthy yet')).toBeUndefined();
  });
});
