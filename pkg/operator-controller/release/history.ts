/**
 * Choices over a history that need no API server: which revisions to prune, and which one is
 * installed.
 */
import { ReleaseStatus, type Release } from './types.ts';

/** The revision number and status of one stored revision. */
interface RevisionEntry {
  revision: number;
  status: string;
}

/**
 * Revisions to delete so that at most `maxHistory` remain: the oldest first, but never the
 * newest revision (the one just written) nor the newest deployed one (the installed bundle).
 * Skipping those can leave more than `maxHistory` (e.g. maxHistory 1 keeps both a new
 * pending revision and the deployed one). `maxHistory` 0 keeps everything.
 */
export function revisionsToPrune(entries: readonly RevisionEntry[], maxHistory: number): number[] {
  if (maxHistory <= 0 || entries.length <= maxHistory) return [];
  const ascending = [...entries].sort((a, b) => a.revision - b.revision);
  const keep = new Set<number>();
  const newest = ascending[ascending.length - 1];
  if (newest !== undefined) keep.add(newest.revision);
  const newestDeployed = ascending.findLast((e) => e.status === ReleaseStatus.Deployed);
  if (newestDeployed !== undefined) keep.add(newestDeployed.revision);
  const excess = ascending.length - maxHistory;
  const out: number[] = [];
  for (const e of ascending) {
    if (out.length === excess) break;
    if (!keep.has(e.revision)) out.push(e.revision);
  }
  return out;
}

/** The installed revision: the newest with status deployed, else undefined (as upstream finds the installed bundle). */
export function deployedRelease(history: readonly Release[]): Release | undefined {
  let found: Release | undefined;
  for (const r of history) {
    if (r.status === ReleaseStatus.Deployed && (found === undefined || r.revision > found.revision)) found = r;
  }
  return found;
}
