/**
 * Wall clocks of IANA time zones through the runtime's own time zone data
 * (Intl.DateTimeFormat): the wall clock at an instant, and the instant of a wall-clock time,
 * with the rules Temporal calls "compatible" for the two cases daylight saving time makes: a
 * time the clocks skip (spring forward) is taken as the same time after the jump (02:30 when
 * clocks go from 02:00 to 03:00 is 03:30), and a time that occurs twice (fall back) is its
 * first occurrence. Pure, except for the cache of one formatter per zone.
 */
import { err, ok, type Result } from '../../shared/errors/index.ts';

/** A wall-clock time (month 1-12) with seconds dropped. */
interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const MAX_ZONE_LENGTH = 64;
const DAY_MS = 86_400_000;

/** One formatter per zone: zones are validated names, so the cache is bounded by the zone database. */
const formatters = new Map<string, Intl.DateTimeFormat>();

/** Checks an IANA zone name (`Europe/Berlin`, `UTC`) against the runtime's zone data. */
export function checkZone(zone: string): Result<string> {
  if (zone.length === 0 || zone.length > MAX_ZONE_LENGTH || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone)) {
    return err(`${JSON.stringify(zone.slice(0, MAX_ZONE_LENGTH))} is not an IANA time zone name (like Europe/Berlin or UTC)`);
  }
  try {
    formatter(zone);
  } catch {
    return err(`${JSON.stringify(zone)} is not a time zone this runtime knows (an IANA name like Europe/Berlin or UTC)`);
  }
  return ok(zone);
}

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The wall clock of `zone` at the instant `ms`, as milliseconds of the same reading in UTC (seconds kept). */
function wallMs(zone: string, ms: number): number {
  const parts: Record<string, string> = {};
  for (const p of formatter(zone).formatToParts(ms)) parts[p.type] = p.value;
  const year = Number(parts['year']);
  const y = parts['era'] === 'BC' || parts['era'] === 'B' ? 1 - year : year;
  const d = new Date(0);
  d.setUTCFullYear(y, Number(parts['month']) - 1, Number(parts['day']));
  d.setUTCHours(Number(parts['hour']), Number(parts['minute']), Number(parts['second']), 0);
  return d.getTime();
}

/** The UTC offset of `zone` at the instant `ms`, in ms (east positive). */
export function offsetAt(zone: string, ms: number): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return wallMs(zone, whole) - whole;
}

/** The wall clock of `zone` at the instant `ms`. */
export function wallClockAt(zone: string, ms: number): WallClock {
  const d = new Date(wallMs(zone, Math.floor(ms / 1000) * 1000));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes() };
}

/**
 * The instant `zone`'s clocks read `local` (a wall clock as UTC ms, whole minutes): the first
 * of two when it occurs twice; when the clocks skip it, the instant they would read it had
 * they not jumped (which they read as `local` plus the jump).
 */
export function instantOf(zone: string, local: number): number {
  const offsets = new Set([offsetAt(zone, local - DAY_MS), offsetAt(zone, local), offsetAt(zone, local + DAY_MS)]);
  let best: number | undefined;
  for (const o of offsets) {
    const t = local - o;
    if (wallMs(zone, t) === local && (best === undefined || t < best)) best = t;
  }
  if (best !== undefined) return best;
  // Skipped: the offset in force before the jump.
  return local - offsetAt(zone, local - DAY_MS);
}
