/**
 * The plan of a ClusterExtension reconcile (pipeline-state.ts `Plan`): the release to deploy,
 * made from a bundle's rendered content or from a release record standing in for it.
 */
import { desiredRelease, sameContent } from '../applier/index.ts';
import { ReleaseStatus, type Manifest, type Release } from '../release/index.ts';
import type { ExtensionState, Plan, Target } from './pipeline-state.ts';

/** What a release is made of besides its bundle: its objects, properties and config. */
type ReleaseContent = Omit<Parameters<typeof desiredRelease>[2], 'manifest'> & { objects: Manifest };

/** The content of a release record: re-applying it is Helm's unchanged state. */
export function recordedContent(record: Release): ReleaseContent {
  return { objects: record.manifest, properties: record.properties, config: record.config };
}

/** Statuses of a ClusterObjectSet revision still rolling out (applier/boxcutter/status.ts). */
const ROLLING_OUT: ReadonlySet<string> = new Set([ReleaseStatus.PendingInstall, ReleaseStatus.PendingUpgrade]);

/**
 * The plan of the steps after render (pipeline-state.ts): `target` with `content`, whether the
 * newest revision already deployed it (Helm's "unchanged": then the apply only repairs drift,
 * and nothing new needs authorizing or checking), and whether it is the newest ClusterObjectSet
 * revision still rolling out (`written`: authorized and checked when it was written).
 */
export function makePlan(state: Pick<ExtensionState, 'ce' | 'installed' | 'history'>, target: Target, content: ReleaseContent): Plan {
  const { metadata, spec } = state.ce;
  const extension = { name: metadata.name, uid: metadata.uid ?? '', installNamespace: spec.namespace };
  const desired = desiredRelease(extension, target.bundle, { ...content, manifest: content.objects });
  const installed = state.installed;
  const newest = state.history[0];
  const unchanged = installed !== undefined && newest === installed && sameContent(installed, desired);
  const written = !unchanged && newest?.objectSet !== undefined && ROLLING_OUT.has(newest.status) && sameContent(newest, desired);
  return { target, desired, unchanged, written };
}
