/**
 * Undo on failure (decision 0123), the pure part: the opt-in annotation and its deadline, the
 * release description of a rollback (Helm's `Rollback to N`), and what the controller keeps on
 * its own condition between reconciles (the last revision seen Healthy, the bundle rolled back).
 */
import { err, ok, type Result } from '../../shared/errors/index.ts';

/** The opt-in: `olm.operatorframework.io/rollback-on-failure: 5m` (a deadline, Go duration syntax: h, m, s). */
export const ROLLBACK_ON_FAILURE_ANNOTATION = 'olm.operatorframework.io/rollback-on-failure';

/** The longest deadline accepted (a week); longer ones are a typo more often than an intent. */
const MAX_DEADLINE_MS = 7 * 24 * 3600 * 1000;

const UNITS: Record<string, number> = { h: 3600_000, m: 60_000, s: 1000, ms: 1 };

/**
 * The deadline of `value` in milliseconds: `30s`, `5m`, `1h30m`, `90s` (Go's time.ParseDuration
 * units h, m, s, ms, integers only); an error for anything else, zero, or more than a week.
 */
export function parseDeadline(value: string): Result<number, string> {
  const text = value.trim();
  const parts = [...text.matchAll(/(\d{1,9})(ms|h|m|s)/g)];
  if (text === '' || parts.map((p) => p[0]).join('') !== text) {
    return err(`${JSON.stringify(value)} is not a duration such as 30s, 5m or 1h30m`);
  }
  const ms = parts.reduce((sum, p) => sum + Number(p[1]) * (UNITS[p[2] ?? ''] ?? 0), 0);
  if (ms <= 0) return err(`${JSON.stringify(value)} is not a positive duration`);
  if (ms > MAX_DEADLINE_MS) return err(`${JSON.stringify(value)} is longer than a week`);
  return ok(ms);
}

/** The opt-in of an extension's annotations: absent (undefined), or its deadline or why it is invalid. */
export function rollbackOnFailureOf(
  annotations: Readonly<Record<string, string>> | undefined,
): { text: string; deadline: Result<number, string> } | undefined {
  const value = annotations?.[ROLLBACK_ON_FAILURE_ANNOTATION];
  return value === undefined ? undefined : { text: value, deadline: parseDeadline(value) };
}

/** The description of a revision that re-applies revision `to` (Helm's rollback description). */
export function rollbackDescription(to: number): string {
  return `Rollback to ${to}`;
}

/** The description of the revision a rollback undid, as a failed one (Helm's `--atomic` marks it failed). */
export function unhealthyDescription(extension: string, deadline: string, to: number): string {
  return `Upgrade ${JSON.stringify(extension)} failed: not Healthy ${deadline} after its deploy; rolled back to revision ${to}`;
}

/** The tail of every message of the controller's rollback condition that knows the last Healthy revision. */
export function lastHealthyTail(revision: number | undefined): string {
  return revision === undefined ? '' : ` [last Healthy revision: ${revision}]`;
}

/** The last Healthy revision a message of the rollback condition carries (see lastHealthyTail). */
export function lastHealthyFrom(message: string | undefined): number | undefined {
  const m = /\[last Healthy revision: (\d{1,9})\]$/.exec(message ?? '');
  return m === null ? undefined : Number(m[1]);
}

/** The start of the rolled-back message: the bundle that is not installed again, JSON-quoted. */
export function rolledBackLead(bundle: string): string {
  return `bundle ${JSON.stringify(bundle)}`;
}

/** The bundle a rolled-back message names (see rolledBackLead); undefined when it names none. */
export function rolledBackBundleFrom(message: string | undefined): string | undefined {
  const m = /^bundle ("(?:[^"\\]|\\.)*")/.exec(message ?? '');
  if (m === null) return undefined;
  try {
    const name: unknown = JSON.parse(m[1] ?? '');
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}
