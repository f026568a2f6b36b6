/**
 * Whether a revision already holds what would be deployed, for either runtime: apart from
 * revision.ts, which both runtimes import, so that no import cycle runs through them.
 */
import type { Release } from '../release/index.ts';
import { sameRevisionContent } from './boxcutter/revision.ts';
import { sameRecordContent } from './helm/apply.ts';
import type { DesiredRevision } from './revision.ts';

/**
 * True when `desired` is what `release` (a record, or a revision read as one) already holds,
 * whichever runtime recorded it: a release record holds the rendered objects, a ClusterObjectSet
 * revision holds them as upstream's revisions do (reduced, annotated), so each is compared its own way.
 */
export function sameContent(release: Release, desired: DesiredRevision): boolean {
  return release.objectSet === undefined ? sameRecordContent(release, desired) : sameRevisionContent(release, desired);
}
