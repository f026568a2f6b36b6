/**
 * Maintenance windows (decision 0122): when automatic upgrades may start. A window is written
 * `<schedule> <duration> [<time zone>]`, e.g. `0 2 * * SAT 4h Europe/Berlin` (Saturdays from
 * 02:00 to 06:00 Berlin time) or `@daily 90m` (00:00-01:30 UTC): the schedule is a crontab
 * line's five time fields or one of cron's macros (cron.ts), read on the zone's wall clock;
 * the duration is Go's (`2h`, `90m`, `1h30m`), from 1 minute to 7 days; the zone an IANA name
 * (default UTC). Pure: `now` is always given.
 */
import { err, ok, type Result } from '../../shared/errors/index.ts';
import { CRON_MACROS, dayMatches, parseCron, type CronSchedule } from './cron.ts';
import { checkZone, instantOf, offsetAt, wallClockAt } from './zone.ts';

/** A parsed window. */
export interface MaintenanceWindow {
  /** The text it was read from, whitespace collapsed (messages show it). */
  text: string;
  schedule: CronSchedule;
  durationMs: number;
  zone: string;
}

/** Where `now` stands against a window. */
type WindowVerdict =
  | { open: true }
  /** `opensAt`: the next opening (ms since the epoch); undefined when none comes within SEARCH_DAYS. */
  | { open: false; opensAt: number | undefined };

/** A window's text longer than this is refused unread. */
const MAX_WINDOW_LENGTH = 256;
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
const MIN_DURATION_MS = MINUTE_MS;
const MAX_DURATION_MS = 7 * DAY_MS;
/**
 * How far ahead an opening is looked for: 28 years, one cycle of the weekdays on the
 * calendar's dates. Any schedule parseCron accepts opens within it (the rarest, a 1st of
 * February that is also a given weekday, comes back within 11 years).
 */
const SEARCH_DAYS = 28 * 366;
/** The furthest a zone's wall clock runs behind UTC (UTC-12), with an hour to spare. */
const MAX_BEHIND_UTC_MS = 14 * HOUR_MS;

/** Parses a window; the error says what is wrong and how a window is written. */
export function parseMaintenanceWindow(input: string): Result<MaintenanceWindow> {
  const r = parse(input);
  return r.ok ? r : err(`${r.error} (a window is "<cron schedule> <duration> [<time zone>]", e.g. "0 2 * * SAT 4h Europe/Berlin")`);
}

function parse(input: string): Result<MaintenanceWindow> {
  if (input.length > MAX_WINDOW_LENGTH) return err(`longer than ${MAX_WINDOW_LENGTH} characters`);
  const tokens = input
    .trim()
    .split(/\s+/)
    .filter((t) => t !== '');
  if (tokens.length === 0) return err('empty');
  const first = tokens[0] ?? '';
  let fields: string[];
  let rest: string[];
  if (first.startsWith('@')) {
    const macro = CRON_MACROS[first.toLowerCase()];
    if (macro === undefined) return err(`${JSON.stringify(first.slice(0, 20))} is not one of ${Object.keys(CRON_MACROS).join(', ')}`);
    fields = macro.split(' ');
    rest = tokens.slice(1);
  } else {
    fields = tokens.slice(0, 5);
    rest = tokens.slice(5);
  }
  if (fields.length < 5 || rest.length === 0) return err('a schedule and a duration are required');
  if (rest.length > 2) return err(`unexpected ${JSON.stringify(rest.slice(2).join(' ').slice(0, 40))} after the time zone`);
  const schedule = parseCron(fields);
  if (!schedule.ok) return schedule;
  const duration = parseDuration(rest[0] ?? '');
  if (!duration.ok) return duration;
  const zone = checkZone(rest[1] ?? 'UTC');
  if (!zone.ok) return zone;
  return ok({ text: tokens.join(' '), schedule: schedule.value, durationMs: duration.value, zone: zone.value });
}

/** A Go-style duration of hours, minutes and seconds (`2h`, `90m`, `1h30m`), from 1m to 168h. */
export function parseDuration(text: string): Result<number> {
  const m = /^(?:(\d{1,3})h)?(?:(\d{1,5})m)?(?:(\d{1,6})s)?$/.exec(text);
  if (text === '' || m === null) return err(`duration ${JSON.stringify(text.slice(0, 20))} is not like 2h, 90m or 1h30m`);
  const ms = Number(m[1] ?? 0) * HOUR_MS + Number(m[2] ?? 0) * MINUTE_MS + Number(m[3] ?? 0) * 1000;
  if (ms < MIN_DURATION_MS || ms > MAX_DURATION_MS) return err(`duration ${text} is not between 1m and 168h`);
  return ok(ms);
}

/**
 * Whether `now` is inside one of `w`'s windows (a start at or before `now` whose duration has
 * not run out), and if not, when the next one opens.
 */
export function windowAt(w: MaintenanceWindow, now: number): WindowVerdict {
  // The first start after `now - duration`: at or before `now`, it is still open.
  const start = firstStartAfter(w, now - w.durationMs);
  if (start !== undefined && start <= now) return { open: true };
  return { open: false, opensAt: start };
}

/**
 * The first start of `w` strictly after `from`, within SEARCH_DAYS; undefined when none. The
 * wall-clock dates are walked from the earliest one whose starts can come after `from`; on a
 * date the schedule matches, each start is converted (zone.ts) only between two bounds the
 * zone's offsets around that date give: starts that must be before `from`, and starts that
 * cannot beat one already found.
 */
export function firstStartAfter(w: MaintenanceWindow, from: number): number | undefined {
  const s = w.schedule;
  // A wall-clock time is at most 14 hours behind UTC; a day more for a skipped day (Samoa, 2011).
  const first = Math.floor((from - MAX_BEHIND_UTC_MS) / DAY_MS) * DAY_MS - DAY_MS;
  for (let i = 0; i < SEARCH_DAYS; i++) {
    const midnight = first + i * DAY_MS;
    const date = new Date(midnight);
    if (!dayMatches(s, date.getUTCMonth() + 1, date.getUTCDate(), date.getUTCDay())) continue;
    const [low, high] = offsetRange(w.zone, midnight);
    let best: number | undefined;
    day: for (const hour of s.hours) {
      for (const minute of s.minutes) {
        const local = midnight + hour * HOUR_MS + minute * MINUTE_MS;
        // Its instant is at most `local - low`, at least `local - high`.
        if (local - low <= from) continue;
        if (best !== undefined && local - high >= best) break day;
        const t = instantOf(w.zone, local);
        // Skipped times move later, so a later time may open first: the earliest is kept.
        if (t > from && (best === undefined || t < best)) best = t;
      }
    }
    if (best !== undefined) return best;
  }
  return undefined;
}

/**
 * The lowest and highest UTC offsets in force around the wall-clock date starting at `midnight`
 * (sampled a day apart, from the day before to the day after next: every offset that lasts a
 * day, as all of them do, is seen).
 */
function offsetRange(zone: string, midnight: number): [number, number] {
  const offsets = [-1, 0, 1, 2].map((k) => offsetAt(zone, midnight + k * DAY_MS));
  return [Math.min(...offsets), Math.max(...offsets)];
}

/** `ms` as the message shows it: RFC 3339 in UTC, and the window zone's wall clock. */
export function formatOpening(w: MaintenanceWindow, ms: number): string {
  const iso = new Date(Math.floor(ms / MINUTE_MS) * MINUTE_MS).toISOString().replace(/\.000Z$/, 'Z');
  if (w.zone === 'UTC') return iso;
  const c = wallClockAt(w.zone, ms);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${iso} (${c.year}-${pad(c.month)}-${pad(c.day)} ${pad(c.hour)}:${pad(c.minute)} ${w.zone})`;
}
