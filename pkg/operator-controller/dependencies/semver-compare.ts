/**
 * OLM's CEL function `semver_compare(a, b)`: -1, 0 or 1 as blang/semver's `Compare` of the
 * two values read tolerantly (operator-framework/api's constraint library; `parseTolerant` in
 * pkg/shared/semver).
 */
import { err, ok, type Result } from '../../shared/errors/index.ts';
import { compareSemver, parseTolerant } from '../../shared/semver/index.ts';

/** Renders a CEL value the way Go's `fmt.Sprint` renders the decoded JSON value it stands for. */
function sprint(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v) ?? String(v);
}

/** `semver_compare(a, b)`; an unreadable side is an evaluation error naming the value. */
export function semverCompare(a: unknown, b: unknown): Result<number, string> {
  const va = parseTolerant(sprint(a));
  if (!va.ok) return err(`unable to parse '${sprint(a)}' to semver format`);
  const vb = parseTolerant(sprint(b));
  if (!vb.ok) return err(`unable to parse '${sprint(b)}' to semver format`);
  return ok(compareSemver(va.value, vb.value));
}
