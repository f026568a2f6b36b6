/**
 * Under the BoxcutterRuntime, the revision a reconcile keeps rolling out instead of resolving
 * (decision 0125, "Resolution while a revision rolls out"). Upstream's resolve step does not ask
 * the catalogs while any revision rolls out (not archived, not Succeeded): it takes that
 * revision's bundle as the target and says the deprecation status is unknown. This project does
 * the same while the rollout is still under way; once the newest revision rolling out has failed
 * (Progressing False: Blocked, or past its progress deadline) it resolves again, so a bundle the
 * catalogs now offer instead can replace it (upstream waits forever). Pure.
 */
import { ReleaseStatus, type Release } from '../release/index.ts';

/**
 * The newest revision of `history` (release records, any order) rolling out after `installed`
 * (newer than it, neither deployed nor superseded), unless it has failed; undefined when none
 * rolls out, or when the newest one failed (then the catalogs are asked again).
 */
export function revisionRollingOut(history: readonly Release[], installed: Release | undefined): Release | undefined {
  let newest: Release | undefined;
  for (const r of history) {
    if (installed !== undefined && r.revision <= installed.revision) continue;
    if (r.status === ReleaseStatus.Deployed || r.status === ReleaseStatus.Superseded) continue;
    if (newest === undefined || r.revision > newest.revision) newest = r;
  }
  return newest?.status === ReleaseStatus.Failed ? undefined : newest;
}
