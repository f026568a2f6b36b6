/**
 * Channel-entry `skipRange` as resolution reads it: a blang range
 * (pkg/shared/semver) tested against the installed version. Upstream ignores parse errors; the
 * entry is then not a successor via its skipRange (its `replaces`/`skips` still count).
 */
import { parseBlangRange, type SemVersion } from '../../shared/semver/index.ts';

/** A parsed skipRange: true when the (installed) version is inside it. */
export type SkipRange = (v: SemVersion) => boolean;

/**
 * Parses a skipRange; null for anything blang fails to parse, and also for a range with an
 * empty OR group (`a || || b`), which blang parses but cannot evaluate (decision 0030).
 */
export function parseSkipRange(s: string): SkipRange | null {
  const r = parseBlangRange(s);
  if (!r.ok || r.value.hasEmptyGroup) return null;
  return r.value.contains;
}
