/**
 * Whether a release would be recorded as it already is, whichever runtime recorded it: a release
 * record holds the rendered objects, a ClusterObjectSet revision holds them as upstream's
 * revisions do (reduced, annotated), so each is compared its own way.
 */
import type { Release } from '../release/index.ts';
import { sameRevisionContent } from './boxcutter/revision.ts';
import { sameRecordContent } from './helm/apply.ts';
import type { DesiredRevision } from './revision.ts';

/** True when `desired` is what `release` (a record, or a revision read as one) already holds. */
export function sameContent(release: Release, desired: DesiredRevision): boolean {
  return release.objectSet === undefined ? sameRecordContent(release, desired) : sameRevisionContent(release, desired);
}
