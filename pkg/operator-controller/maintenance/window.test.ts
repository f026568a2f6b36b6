// Maintenance windows (decision 0122): the grammar, hostile input refused with a message, and
// "is now inside / when does the next one open" on the zone's wall clock, across DST
// transitions, leap days and cron's day-of-month/day-of-week rule.
import { describe, expect, it } from 'vitest';
import { MAINTENANCE_WINDOW_ANNOTATION, windowSetting } from './setting.ts';
import { firstStartAfter, formatOpening, parseDuration, parseMaintenanceWindow, windowAt, type MaintenanceWindow } from './window.ts';

function window(text: string): MaintenanceWindow {
  const w = parseMaintenanceWindow(text);
  if (!w.ok) throw new Error(w.error);
  return w.value;
}
const at = (iso: string): number => Date.parse(iso);
const iso = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : new Date(ms).toISOString());

describe('parseMaintenanceWindow', () => {
  it.each([
    ['0 2 * * SAT 4h Europe/Berlin', { zone: 'Europe/Berlin', durationMs: 4 * 3600_000, minutes: [0], hours: [2], weekdays: [6] }],
    ['  0   2 * * sat  4h  ', { zone: 'UTC', durationMs: 4 * 3600_000, minutes: [0], hours: [2], weekdays: [6] }],
    ['*/15 1-3 * * 1-5 15m UTC', { zone: 'UTC', durationMs: 15 * 60_000, minutes: [0, 15, 30, 45], hours: [1, 2, 3], weekdays: [1, 2, 3, 4, 5] }],
    ['5,35 22 * * 7 1h30m', { zone: 'UTC', durationMs: 90 * 60_000, minutes: [5, 35], hours: [22], weekdays: [0] }],
    ['10/20 0 * * * 2m', { zone: 'UTC', durationMs: 2 * 60_000, minutes: [10, 30, 50], hours: [0], weekdays: [0, 1, 2, 3, 4, 5, 6] }],
    ['@daily 90m Asia/Kolkata', { zone: 'Asia/Kolkata', durationMs: 90 * 60_000, minutes: [0], hours: [0], weekdays: [0, 1, 2, 3, 4, 5, 6] }],
    ['@WEEKLY 168h', { zone: 'UTC', durationMs: 168 * 3600_000, minutes: [0], hours: [0], weekdays: [0] }],
  ])('%j', (text, expected) => {
    const w = window(text);
    expect(w.zone).toBe(expected.zone);
    expect(w.durationMs).toBe(expected.durationMs);
    expect(w.schedule.minutes).toEqual(expected.minutes);
    expect(w.schedule.hours).toEqual(expected.hours);
    expect([...w.schedule.weekdays].sort()).toEqual(expected.weekdays);
    expect(w.text).toBe(text.trim().split(/\s+/).join(' '));
  });

  it.each([
    ['', /empty/],
    ['0 2 * *', /a schedule and a duration are required/],
    ['0 2 * * *', /a schedule and a duration are required/],
    ['0 2 * * * 4h UTC extra', /unexpected "extra" after the time zone/],
    ['60 2 * * * 4h', /minute field "60": 60 is outside 0-59/],
    ['0 24 * * * 4h', /hour field "24": 24 is outside 0-23/],
    ['0 2 0 * * 4h', /day of month field "0": 0 is outside 1-31/],
    ['0 2 * 13 * 4h', /month field "13": 13 is outside 1-12/],
    ['0 2 * * 8 4h', /day of week field "8": 8 is outside 0-7/],
    ['0 5-2 * * * 4h', /the range "5-2" runs backwards/],
    ['*/0 2 * * * 4h', /step "0" is not a number from 1 to 60/],
    ['*/61 2 * * * 4h', /step "61"/],
    ['0 2 L * * 4h', /Quartz/],
    ['0 2 ? * MON 4h', /Quartz/],
    ['0 2 * * MON#2 4h', /Quartz/],
    ['0 2 15W * * 4h', /Quartz/],
    ['0 2 * * FOO 4h', /"FOO" is not a number or a name \(SUN-SAT\)/],
    ['0 2 * * 1-2-3 4h', /is not a value or a range/],
    ['0 2 * * */2/3 4h', /more than one \//],
    ['0 2 * * -1 4h', /is not a number/],
    ['0 2 * * 0x1 4h', /is not a number/],
    ['0 2 * * 001 4h', /is not a number/],
    ['0 2 * * $(reboot) 4h', /characters other than/],
    ['0 2 31 2 * 4h', /would never open/],
    ['0 2 30,31 2 * 4h', /would never open/],
    ['0 2 31 4,6,9,11 * 4h', /would never open/],
    [`${Array.from({ length: 61 }, (_, i) => i % 60).join(',')} 2 * * * 4h`, /more than 60 list items/],
    [`0 2 * * * 4h ${'A'.repeat(300)}`, /longer than 256 characters/],
    ['0 2 * * * 4h Mars/Olympus_Mons', /not a time zone this runtime knows/],
    ['0 2 * * * 4h ../../etc/passwd', /not an IANA time zone name/],
    ['0 2 * * * 4h Europe/Berlin\u0000', /not an IANA time zone name/],
    ['0 2 * * * 0m', /not between 1m and 168h/],
    ['0 2 * * * 30s', /not between 1m and 168h/],
    ['0 2 * * * 169h', /not between 1m and 168h/],
    ['0 2 * * * 2d', /duration "2d" is not like 2h, 90m or 1h30m/],
    ['0 2 * * * 1.5h', /is not like/],
    ['0 2 * * * -2h', /is not like/],
    ['0 2 * * * 99999999999h', /is not like/],
    ['@reboot 1h', /"@reboot" is not one of @yearly/],
  ])('%j is refused', (text, message) => {
    const r = parseMaintenanceWindow(text);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toMatch(message);
      expect(r.error).toContain('a window is "<cron schedule> <duration> [<time zone>]"');
      expect(r.error.length).toBeLessThan(400);
    }
  });

  it('reads Go-style durations', () => {
    expect(parseDuration('2h')).toEqual({ ok: true, value: 7_200_000 });
    expect(parseDuration('90m')).toEqual({ ok: true, value: 5_400_000 });
    expect(parseDuration('1h30m')).toEqual({ ok: true, value: 5_400_000 });
    expect(parseDuration('1m30s')).toEqual({ ok: true, value: 90_000 });
    expect(parseDuration('168h')).toEqual({ ok: true, value: 604_800_000 });
    expect(parseDuration('30m2h').ok).toBe(false);
  });
});

describe('windowAt', () => {
  // [window, now, open, next opening (when closed)]
  it.each([
    // A plain UTC window: inside from its start (included) to its end (excluded).
    ['0 2 * * * 1h', '2026-06-10T01:59:59Z', false, '2026-06-10T02:00:00.000Z'],
    ['0 2 * * * 1h', '2026-06-10T02:00:00Z', true, undefined],
    ['0 2 * * * 1h', '2026-06-10T02:59:59Z', true, undefined],
    ['0 2 * * * 1h', '2026-06-10T03:00:00Z', false, '2026-06-11T02:00:00.000Z'],
    // A window that runs past midnight, and one longer than the day.
    ['0 23 * * * 2h', '2026-06-11T00:30:00Z', true, undefined],
    ['0 0 * * MON 36h', '2026-06-09T11:59:00Z', true, undefined],
    ['0 0 * * MON 36h', '2026-06-09T12:00:00Z', false, '2026-06-15T00:00:00.000Z'],
    // The zone's wall clock: 02:00 Berlin is 00:00 UTC in summer, 01:00 in winter.
    ['0 2 * * SAT 4h Europe/Berlin', '2026-06-12T12:00:00Z', false, '2026-06-13T00:00:00.000Z'],
    ['0 2 * * SAT 4h Europe/Berlin', '2026-12-01T12:00:00Z', false, '2026-12-05T01:00:00.000Z'],
    ['0 2 * * SAT 4h Europe/Berlin', '2026-12-05T04:59:00Z', true, undefined],
    // Half-hour offsets.
    ['0 0 * * * 1h Asia/Kolkata', '2026-06-10T12:00:00Z', false, '2026-06-10T18:30:00.000Z'],
    // Spring forward (Berlin, 2026-03-29 02:00 -> 03:00): 02:30 does not exist, it opens at 03:30 CEST.
    ['30 2 * * * 1h Europe/Berlin', '2026-03-28T12:00:00Z', false, '2026-03-29T01:30:00.000Z'],
    // ... and the window still lasts its duration measured in real time (03:30-04:30 CEST).
    ['30 2 * * * 1h Europe/Berlin', '2026-03-29T02:29:00Z', true, undefined],
    ['30 2 * * * 1h Europe/Berlin', '2026-03-29T02:30:00Z', false, '2026-03-30T00:30:00.000Z'],
    // A window spanning the jump is an hour shorter on the wall clock: 01:00 CET + 3h = 05:00 CEST.
    ['0 1 29 3 * 3h Europe/Berlin', '2026-03-29T02:59:00Z', true, undefined],
    // (In 2027 Berlin is already on summer time by March 29th: 01:00 CEST.)
    ['0 1 29 3 * 3h Europe/Berlin', '2026-03-29T03:00:00Z', false, '2027-03-28T23:00:00.000Z'],
    // Fall back (Berlin, 2026-10-25 03:00 -> 02:00): 02:30 occurs twice, the window opens at the first.
    ['30 2 25 10 * 1h Europe/Berlin', '2026-10-24T12:00:00Z', false, '2026-10-25T00:30:00.000Z'],
    ['30 2 25 10 * 1h Europe/Berlin', '2026-10-25T01:29:00Z', true, undefined],
    ['30 2 25 10 * 1h Europe/Berlin', '2026-10-25T01:30:00Z', false, '2027-10-25T00:30:00.000Z'],
    // New York's spring forward (2026-03-08 02:00 -> 03:00 EDT): 02:15 opens at 03:15 EDT.
    ['15 2 8 3 * 30m America/New_York', '2026-03-01T00:00:00Z', false, '2026-03-08T07:15:00.000Z'],
    // Lord Howe moves its clocks by half an hour (2026-04-05 02:00 -> 01:30): 01:45 opens at the first.
    ['45 1 5 4 * 10m Australia/Lord_Howe', '2026-04-01T00:00:00Z', false, '2026-04-04T14:45:00.000Z'],
    // February 29th: every four years, and not in 2100.
    ['0 12 29 2 * 1h', '2026-03-01T00:00:00Z', false, '2028-02-29T12:00:00.000Z'],
    ['0 12 29 2 * 1h', '2096-03-01T00:00:00Z', false, '2104-02-29T12:00:00.000Z'],
    // Both day fields restricted: either matches (the 13th, or any Friday).
    ['0 0 13 * FRI 1h', '2026-06-01T00:00:00Z', false, '2026-06-05T00:00:00.000Z'],
    ['0 0 13 * FRI 1h', '2026-06-10T00:00:00Z', false, '2026-06-12T00:00:00.000Z'],
    ['0 0 13 * FRI 1h', '2026-06-12T01:00:00Z', false, '2026-06-13T00:00:00.000Z'],
    // A day field that starts with * is a restriction to AND with: the 1st, 15th and 29th that are Mondays.
    ['0 0 */14 * MON 1h', '2026-06-01T01:00:00Z', false, '2026-06-15T00:00:00.000Z'],
    ['0 0 */14 * MON 1h', '2026-06-16T00:00:00Z', false, '2026-06-29T00:00:00.000Z'],
    ['0 0 */14 * MON 1h', '2026-06-30T00:00:00Z', false, '2027-02-01T00:00:00.000Z'],
    // The rarest kind: the 1st of February on a Monday (2027, then 2038).
    ['0 0 */29 2 MON 1h', '2027-02-02T00:00:00Z', false, '2038-02-01T00:00:00.000Z'],
  ])('%j at %s: open %s, next %s', (text, now, open, next) => {
    const verdict = windowAt(window(text), at(now));
    expect(verdict.open).toBe(open);
    if (!verdict.open) expect(iso(verdict.opensAt)).toBe(next);
  });

  it('every minute: the next start is the next minute', () => {
    const w = window('* * * * * 1m America/New_York');
    expect(windowAt(w, at('2026-11-01T05:30:30Z'))).toEqual({ open: true });
    expect(iso(firstStartAfter(w, at('2026-11-01T05:30:30Z')))).toBe('2026-11-01T05:31:00.000Z');
    // Through New York's fall back (06:00 UTC, 02:00 EDT -> 01:00 EST): the repeated hour's minutes open once.
    expect(iso(firstStartAfter(w, at('2026-11-01T05:59:00Z')))).toBe('2026-11-01T07:00:00.000Z');
  });

  it('formats the opening in UTC and on the zone wall clock', () => {
    const w = window('0 2 * * SAT 4h Europe/Berlin');
    expect(formatOpening(w, at('2026-06-13T00:00:00Z'))).toBe('2026-06-13T00:00:00Z (2026-06-13 02:00 Europe/Berlin)');
    expect(formatOpening(window('0 2 * * SAT 4h'), at('2026-06-13T02:00:00Z'))).toBe('2026-06-13T02:00:00Z');
  });
});

describe('windowSetting', () => {
  const cluster = window('0 3 * * * 1h');
  it.each([
    ['no annotation, no default', undefined, undefined, { kind: 'none', optedOut: false }],
    ['no annotation: the default', undefined, cluster, { kind: 'window', from: 'default' }],
    ['an empty annotation is none given', '  ', cluster, { kind: 'window', from: 'default' }],
    ['None opts out of the default', 'None', cluster, { kind: 'none', optedOut: true }],
    ['none, any case', 'none', undefined, { kind: 'none', optedOut: false }],
    ['the annotation wins', '0 1 * * * 1h', cluster, { kind: 'window', from: 'annotation' }],
    ['an unreadable annotation', 'at night', cluster, { kind: 'invalid', text: 'at night' }],
  ])('%s', (_what, value, clusterDefault, expected) => {
    const annotations = value === undefined ? undefined : { [MAINTENANCE_WINDOW_ANNOTATION]: value };
    expect(windowSetting(annotations, clusterDefault)).toMatchObject(expected);
  });

  it('the annotation it reads is in the olm.operatorframework.io family', () => {
    expect(MAINTENANCE_WINDOW_ANNOTATION).toBe('olm.operatorframework.io/maintenance-window');
  });
});
