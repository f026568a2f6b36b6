/**
 * The start of a maintenance window: the five fields of a crontab line (minute, hour, day of
 * month, month, day of week) with cron's grammar (`*`, numbers, `a-b` ranges, `,` lists, `/n`
 * steps, month and weekday names, `7` as Sunday) and its macros (`@daily`...). As Vixie cron,
 * when both day fields are restricted (neither starts with `*`) a day matches either; otherwise
 * both. Pure; every input is bounded and refused with a message that names the field.
 */
import { err, ok, type Result } from '../../shared/errors/index.ts';

/** A parsed schedule: each field's values, ascending. */
export interface CronSchedule {
  minutes: readonly number[];
  hours: readonly number[];
  days: ReadonlySet<number>;
  months: ReadonlySet<number>;
  /** 0 (Sunday) to 6. */
  weekdays: ReadonlySet<number>;
  /** Vixie cron's rule: both day fields restricted, so a day matches either. */
  dayOr: boolean;
}

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] },
  // 7 is Sunday too, as in every cron.
  { name: 'day of week', min: 0, max: 7, names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] },
];

/** cron's macros that name a schedule (not `@reboot`, which has no time). */
export const CRON_MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** A field longer than this is refused before it is split (a field of every value written out is below it). */
const MAX_FIELD_LENGTH = 200;
/** The most list items a field may have. */
const MAX_ITEMS = 60;

/** The longest month of each month number (February: 29, as in a leap year). */
const MAX_DAYS = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Parses the five fields of a schedule (already split on whitespace). */
export function parseCron(fields: readonly string[]): Result<CronSchedule> {
  if (fields.length !== 5) return err(`a schedule has 5 fields (minute hour day-of-month month day-of-week), not ${fields.length}`);
  const sets: number[][] = [];
  for (const [i, spec] of FIELDS.entries()) {
    const parsed = parseField(fields[i] ?? '', spec);
    if (!parsed.ok) return err(`${spec.name} field ${JSON.stringify(clip(fields[i] ?? ''))}: ${parsed.error}`);
    sets.push(parsed.value);
  }
  const [minutes = [], hours = [], days = [], months = [], weekdays = []] = sets;
  const dayOr = !(fields[2] ?? '').startsWith('*') && !(fields[4] ?? '').startsWith('*');
  const schedule: CronSchedule = {
    minutes,
    hours,
    days: new Set(days),
    months: new Set(months),
    weekdays: new Set(weekdays.map((d) => d % 7)),
    dayOr,
  };
  // With both day fields required, a day of month no selected month has never comes (`31 2`).
  if (!dayOr && !months.some((m) => days.some((d) => d <= (MAX_DAYS[m] ?? 0)))) {
    return err('no selected month has any of the selected days of the month, so the window would never open');
  }
  return ok(schedule);
}

function parseField(text: string, spec: FieldSpec): Result<number[]> {
  if (text.length === 0) return err('empty');
  if (text.length > MAX_FIELD_LENGTH) return err(`longer than ${MAX_FIELD_LENGTH} characters`);
  const items = text.split(',');
  if (items.length > MAX_ITEMS) return err(`more than ${MAX_ITEMS} list items`);
  const values = new Set<number>();
  for (const item of items) {
    const r = parseItem(item, spec);
    if (!r.ok) return r;
    for (const v of r.value) values.add(v);
  }
  return ok([...values].sort((a, b) => a - b));
}

function parseItem(item: string, spec: FieldSpec): Result<number[]> {
  if (item === '') return err('an empty list item');
  if (/[?#]/.test(item) || /^(\d*L|\d+W|LW)$/i.test(item)) {
    return err(`${JSON.stringify(clip(item))} uses ?, L, W or # (Quartz), which cron's five fields do not have`);
  }
  if (!/^[0-9A-Za-z*/-]+$/.test(item)) return err(`${JSON.stringify(clip(item))} has characters other than digits, names, *, -, / and ,`);
  const [range = '', stepText, ...extra] = item.split('/');
  if (extra.length > 0) return err(`${JSON.stringify(item)} has more than one /`);
  let step = 1;
  if (stepText !== undefined) {
    const s = number(stepText);
    if (s === undefined || s < 1 || s > spec.max - spec.min + 1)
      return err(`step ${JSON.stringify(stepText)} is not a number from 1 to ${spec.max - spec.min + 1}`);
    step = s;
  }
  let lo: number;
  let hi: number;
  if (range === '*') {
    [lo, hi] = [spec.min, spec.max];
  } else {
    const [a = '', b, ...more] = range.split('-');
    if (more.length > 0) return err(`${JSON.stringify(range)} is not a value or a range a-b`);
    const first = value(a, spec);
    if (!first.ok) return first;
    lo = first.value;
    if (b === undefined) {
      // `a/n` is `a-max/n`, as in Vixie cron.
      hi = stepText === undefined ? lo : spec.max;
    } else {
      const last = value(b, spec);
      if (!last.ok) return last;
      hi = last.value;
      if (hi < lo) return err(`the range ${JSON.stringify(range)} runs backwards`);
    }
  }
  const out: number[] = [];
  for (let v = lo; v <= hi; v += step) out.push(v);
  return ok(out);
}

function value(text: string, spec: FieldSpec): Result<number> {
  const index = spec.names?.indexOf(text.toUpperCase()) ?? -1;
  if (index >= 0) return ok(index + spec.min);
  const n = number(text);
  if (n === undefined) {
    const names = spec.names === undefined ? '' : ` or a name (${spec.names[0]}-${spec.names[spec.names.length - 1]})`;
    return err(`${JSON.stringify(clip(text))} is not a number${names}`);
  }
  if (n < spec.min || n > spec.max) return err(`${n} is outside ${spec.min}-${spec.max}`);
  return ok(n);
}

/** A decimal of at most 2 digits, or undefined. */
function number(text: string): number | undefined {
  return /^\d{1,2}$/.test(text) ? Number(text) : undefined;
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}...` : text;
}

/** Whether the civil date `year-month-day` (month 1-12), a `weekday` (0 Sunday), is a day of `s`. */
export function dayMatches(s: CronSchedule, month: number, day: number, weekday: number): boolean {
  if (!s.months.has(month)) return false;
  const dom = s.days.has(day);
  const dow = s.weekdays.has(weekday);
  return s.dayOr ? dom || dow : dom && dow;
}
