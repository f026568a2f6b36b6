/**
 * The plan of a ClusterExtension reconcile (pipeline-state.ts `Plan`): the release to deploy,
 * made from a bundle's rendered content or from a release record standing in for it.
 */
import { desiredRelease, sameContent } from '../applier/index.ts';
import type { Manifest, Release } from '../release/index.ts';
import type { ExtensionState, Plan, Target } from './pipeline-state.ts';

/** What a release is made of besides its bundle: its objects, properties and config. */
type ReleaseContent = Omit<Parameters<typeof desiredRelease>[2], 'manifest'> & { objects: Manifest };

/** The content of a release record: re-applying it is Helm's unchanged state. */
export function recordedContent(record: Release): ReleaseContent {
  return { objects: record.manifest, properties: record.properties, config: record.config };
}

/**
 * The plan of the steps after render (pipeline-state.ts): `target` with `content`, and whether
 * the newest revision already deployed it (Helm's "unchanged": then the apply only repairs
 * drift, and nothing new needs authorizing or checking).
 */
export function makePlan(state: Pick<ExtensionState, 'ce' | 'installed' | 'history'>, target: Target, content: ReleaseContent): Plan {
  const { metadata, spec } = state.ce;
  const extension = { name: metadata.name, uid: metadata.uid ?? '', installNamespace: spec.namespace };
  const desired = desiredRelease(extension, target.bundle, { ...content, manifest: content.objects });
  const installed = state.installed;
  const unchanged = installed !== undefined && state.history[0] === installed && sameContent(installed, desired);
  return { target, desired, unchanged };
}
