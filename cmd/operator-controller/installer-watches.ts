/**
 * BoxcutterRuntime: the installer watches the ClusterExtension controller's drift watches and the
 * ClusterObjectSet controller's revision watches share (decision 0156): one informer per installer
 * ServiceAccount, selector, kind and namespace, caching per object what each needs of it: the
 * drift fingerprint (drift/targets.ts) and the revision facts (objectset/watches.ts). Named
 * `drift` (its informer metrics): a refused list is the installer's lost grant, as for the drift
 * watches alone.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { driftFingerprint } from '../../pkg/operator-controller/drift/index.ts';
import { SharedWatches } from '../../pkg/operator-controller/installerwatch/index.ts';
import { extensionSelector, revisionFacts } from '../../pkg/operator-controller/objectset/index.ts';
import type { KubeObject, TypeRef } from '../../pkg/shared/kube/index.ts';

/** What one cached object holds for both controllers. Pure. */
function sharedFingerprint(obj: KubeObject, type: TypeRef) {
  return { ...driftFingerprint(obj, type), ...revisionFacts(obj, type) };
}

/** The installer watches of one leadership term (their informers stop with their last subscriber). */
export function installerWatches(o: { log: Logger; registry?: Registry | undefined }): SharedWatches<ReturnType<typeof sharedFingerprint>> {
  return new SharedWatches({ name: 'drift', transform: sharedFingerprint, log: o.log, registry: o.registry });
}

/** The installer watches `lead` shares between the two controllers. */
export type InstallerWatches = ReturnType<typeof installerWatches>;

/**
 * The drift watches' side of `watches`: they select an extension's objects as the revision
 * watches do (its owner-name label), so both subscribe to one informer, each extension's view
 * keeping the objects its owner labels name.
 */
export function driftSide(watches: InstallerWatches | undefined) {
  return watches === undefined ? undefined : { subscriber: watches, selector: extensionSelector };
}
