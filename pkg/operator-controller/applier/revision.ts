/**
 * What either runtime deploys: a revision's content, runtime-neutral. The Helm runtime records it
 * as a release record (helm/), the BoxcutterRuntime as a ClusterObjectSet (boxcutter/); both read
 * back as the one revision model of pkg/operator-controller/revisions.
 */
import type { KubeObject } from '../../shared/kube/index.ts';
import { deployedRelease, type Manifest, type Release, type ReleaseBundle } from '../release/index.ts';
import { droppedObjects, uniqueObjects } from './objects.ts';

/** What a new revision is made of. */
export interface DesiredRevision {
  extension: string;
  extensionUID: string;
  /** `spec.namespace`: with the extension and the bundle's package, who owns the objects (ownership.ts). */
  installNamespace: string;
  bundle: ReleaseBundle;
  /**
   * Rendered, labelled objects, ready to apply: the render step's lines, a release record's
   * text or objects (release/manifest.ts), which the apply reads one object at a time and
   * records as it is, never parsing it whole (decision 0098).
   */
  manifest: Manifest;
  properties: unknown[];
  config?: Record<string, unknown>;
  droppedFields?: { object: string; paths: string[] }[];
}

/** The revision of `bundle` with `content` (objects, properties, config, dropped fields) for `extension`. */
export function desiredRelease(
  extension: { name: string; uid: string; installNamespace: string },
  bundle: ReleaseBundle,
  content: Pick<DesiredRevision, 'manifest' | 'properties' | 'config' | 'droppedFields'>,
): DesiredRevision {
  return {
    extension: extension.name,
    extensionUID: extension.uid,
    installNamespace: extension.installNamespace,
    bundle,
    manifest: content.manifest,
    properties: content.properties,
    ...(content.config === undefined ? {} : { config: content.config }),
    ...(content.droppedFields === undefined ? {} : { droppedFields: content.droppedFields }),
  };
}

/**
 * Objects a new revision deletes: those of the deployed revision and of every newer one
 * (pending or failed, whose apply may have created some of its objects before a crash or a
 * refusal) that `desired` does not contain, in the order they were recorded. Counting only the
 * deployed revision would leave an object that only an interrupted revision had behind, in no
 * record at all.
 */
export function objectsToDelete(history: readonly Release[], desired: Pick<DesiredRevision, 'manifest'>): KubeObject[] {
  const deployed = deployedRelease(history);
  const since = history.filter((r) => (deployed === undefined ? true : r.revision >= deployed.revision)).reverse();
  // Identities only: deletes and their ownership checks need no more, and a large record's
  // objects are then never all parsed (decision 0098).
  const recorded = uniqueObjects(since.flatMap((r) => r.manifest.identities()));
  return droppedObjects(recorded, desired.manifest.identities());
}
