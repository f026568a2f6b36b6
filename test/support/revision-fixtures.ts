/**
 * Fixtures for the unit tests of the commands and the console that read an extension's
 * revisions (pkg/operator-controller/revisions): a ClusterExtension, its ClusterObjectSets (BoxcutterRuntime)
 * and its Helm release records, to seed into a fake cluster (fake-cluster.ts), and a
 * KubeContext whose client is that cluster's.
 */
import { desiredRevision, type DesiredRevision, type ObjectSetManifest } from '../../pkg/operator-controller/applier/index.ts';
import { Manifest, ReleaseStatus, createReleaseStore, type Release } from '../../pkg/operator-controller/release/index.ts';
import { connect, type KubeClient, type KubeContext, type KubeObject, type OwnerReference } from '../../pkg/shared/kube/index.ts';
import type { FakeCluster } from './fake-cluster.ts';

const T = '2026-11-27T10:00:00Z';

/** One ConfigMap: what each revision installs. */
export function revisionObject(version: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'demo-ns' }, data: { version } };
}

/** A controller owner reference to ClusterExtension `name`, as upstream's Helm applier and the revision controller write it. */
export function extensionOwnerRef(name: string, uid = `uid-${name}`, extra: Partial<OwnerReference> = {}): OwnerReference {
  return { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension', name, uid, controller: true, blockOwnerDeletion: true, ...extra };
}

/** ClusterExtension `name` of package `demo` in namespace demo-ns. */
export function clusterExtension(name: string, uid = `${name}-uid`): KubeObject {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name, uid, resourceVersion: '7', generation: 3 },
    spec: {
      namespace: 'demo-ns',
      serviceAccount: { name: 'demo-installer' },
      source: { sourceType: 'Catalog', catalog: { packageName: 'demo' } },
    },
  };
}

/** One condition of a ClusterObjectSet, as its controller writes them. */
export type SetCondition = NonNullable<NonNullable<ObjectSetManifest['status']>['conditions']>[number];

/** A condition of generation 1 that last changed `at`. */
export const setCondition = (type: string, status: string, reason: string, message = '', at = T): SetCondition => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: at,
  observedGeneration: 1,
});
const cond = setCondition;

/**
 * Revision `revision` of `extension` installing demo `version`: `archived` (succeeded once, now
 * Archived), `installed` (Succeeded, Available) or `rolling-out` (Progressing, not Available).
 */
export function objectSet(
  extension: string,
  revision: number,
  version: string,
  state: 'archived' | 'installed' | 'rolling-out',
  uid = `${extension}-uid`,
): ObjectSetManifest {
  const s = desiredRevision(
    { name: extension, uid },
    {
      extension,
      extensionUID: uid,
      installNamespace: 'demo-ns',
      bundle: { package: 'demo', name: `demo.v${version}`, version, image: `registry.example/demo:v${version}` },
      manifest: Manifest.ofObjects([revisionObject(version)]),
      properties: [{ type: 'olm.package', value: { packageName: 'demo', version } }],
    },
    revision,
  );
  const conditions =
    state === 'rolling-out'
      ? [
          cond('Progressing', 'True', 'RollingOut', `Revision ${version} is rolling out.`),
          cond('Available', 'False', 'ProbeFailure', 'apps/v1 Deployment demo-ns/demo: condition Available is False'),
        ]
      : [
          cond('Succeeded', 'True', 'Succeeded', 'Revision succeeded rolling out.'),
          cond('Available', 'True', 'ProbesSucceeded', 'Objects are available and pass all probes.'),
          cond('Progressing', 'True', 'Succeeded', `Revision ${version} has rolled out.`),
        ];
  return {
    ...s,
    metadata: { ...s.metadata, creationTimestamp: T },
    spec: { ...s.spec, lifecycleState: state === 'archived' ? 'Archived' : 'Active' },
    status: { conditions },
  };
}

/** Helm release record `revision` of `extension` installing demo `version`. */
export function helmRelease(extension: string, revision: number, version: string, status: ReleaseStatus): Release {
  return {
    extension,
    extensionUID: '',
    revision,
    status,
    namespace: 'demo-ns',
    bundle: { package: 'demo', name: `demo.v${version}`, version, image: `registry.example/demo:v${version}` },
    manifest: Manifest.ofObjects([revisionObject(version)]),
    properties: [{ type: 'olm.package', value: { packageName: 'demo', version } }],
    description: status === ReleaseStatus.Deployed ? 'Upgrade complete' : 'Install complete',
    firstDeployed: T,
    lastDeployed: T,
  };
}

/** Writes Helm records revision 1 (1.0.0, superseded) and 2 (1.1.0, deployed) of `extension` into olmv1-system. */
export async function seedHelmHistory(client: KubeClient, extension: string): Promise<void> {
  const store = createReleaseStore({ client, namespace: 'olmv1-system', now: () => new Date(T) });
  await store.create(helmRelease(extension, 1, '1.0.0', ReleaseStatus.Superseded));
  await store.create(helmRelease(extension, 2, '1.1.0', ReleaseStatus.Deployed));
}

/** ClusterObjectSets `<extension>-1` (1.0.0, archived) and `<extension>-2` (1.1.0, installed). */
export function objectSetHistory(extension: string): ObjectSetManifest[] {
  return [objectSet(extension, 1, '1.0.0', 'archived'), objectSet(extension, 2, '1.1.0', 'installed')];
}

/**
 * A KubeContext for commands that take one, every request going to `cluster` (its client,
 * transport and mapper); the connection is to an address nothing listens on and is never used.
 */
export async function fakeKubeContext(cluster: FakeCluster): Promise<KubeContext> {
  const yaml = [
    'apiVersion: v1',
    'kind: Config',
    'current-context: fake',
    'contexts: [{name: fake, context: {cluster: fake, user: fake}}]',
    'clusters: [{name: fake, cluster: {server: "http://127.0.0.1:1"}}]',
    'users: [{name: fake, user: {token: fake}}]',
  ].join('\n');
  const context = await connect({ kind: 'yaml', yaml });
  const { client } = cluster;
  return { ...context, client, transport: client.transport, mapper: client.mapper };
}

/** `desired` as its extension's ClusterObjectSet revision 1 read as a record: rolling out (pending-install) unless `status` says otherwise. */
export function revisionRecord(desired: DesiredRevision, status: ReleaseStatus = ReleaseStatus.PendingInstall): Release {
  const set = desiredRevision({ name: desired.extension, uid: desired.extensionUID }, desired, 1);
  const objects = set.spec.phases.flatMap((p) => p.objects.map((o) => o.object as KubeObject));
  const { extension, extensionUID, bundle, properties } = desired;
  return {
    extension,
    extensionUID,
    revision: 1,
    status,
    bundle,
    manifest: Manifest.ofObjects(objects),
    properties,
    description: '',
    objectSet: set.metadata.name,
  };
}
