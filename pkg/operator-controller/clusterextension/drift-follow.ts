/**
 * The drift watches' side of a ClusterExtension reconcile: which objects they follow for an
 * extension (the deployed release's), and what the applier learns from them.
 */
import type { KubeObject } from '../../shared/kube/index.ts';
import type { DriftTracker } from '../drift/index.ts';
import type { Installer } from './installer.ts';
import type { ExtensionState } from './pipeline-state.ts';

/** Makes the drift watches follow the deployed release's objects. */
export function trackDrift(
  drift: Pick<DriftTracker, 'track'>,
  state: ExtensionState,
  installer: Installer,
  objects: readonly KubeObject[],
): Promise<void> {
  return drift.track(
    {
      extension: state.ce.metadata.name,
      installNamespace: state.ce.spec.namespace,
      serviceAccount: installer.name,
      serviceAccountNamespace: installer.namespace,
      objects,
    },
    state.signal,
  );
}
