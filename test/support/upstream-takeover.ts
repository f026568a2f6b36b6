/**
 * A cluster as upstream operator-controller leaves it, put under a ClusterExtension of ours for
 * the takeover suites: the objects its Helm applier applied (owner labels, Helm's ownership
 * metadata and a controller owner reference to the ClusterExtension, CRDs included) and its
 * release record (test/support/upstream-release-records.ts, built from the documented format).
 * The ClusterExtension first selects no catalog, so nothing of ours writes before the state is in
 * place; `handOver` then points it at the package's catalog.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import type { KubeClient, KubeObject } from '../../pkg/shared/kube/index.ts';
import { loadBundleDir, renderRelease, writeBundleDir } from './bundle-flow.ts';
import { applyAsAdmin, bundleFiles, clusterExtension, type BundleSpec } from './extensions.ts';
import { fixturePayload, upstreamRecord, upstreamRecordOf } from './upstream-release-records.ts';

/** The ClusterExtension type. */
export const CE_TYPE = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind } as const;

/** `objects` as upstream's Helm applier leaves them: its owner reference and Helm's ownership metadata on top of the owner labels. */
export function asUpstreamApplied(objects: readonly KubeObject[], extension: { name: string; uid: string }, namespace: string): KubeObject[] {
  return objects.map((o) => ({
    ...o,
    metadata: {
      ...o.metadata,
      labels: { ...o.metadata.labels, 'app.kubernetes.io/managed-by': 'Helm' },
      annotations: { ...o.metadata.annotations, 'meta.helm.sh/release-name': extension.name, 'meta.helm.sh/release-namespace': namespace },
      ownerReferences: [
        { apiVersion: CE_TYPE.apiVersion, kind: CE_TYPE.kind, name: extension.name, uid: extension.uid, controller: true, blockOwnerDeletion: true },
      ],
    },
  }));
}

/** Upstream's release JSON for revision 1 of `extension` with `objects` as its manifest and `bundle`'s storage labels. */
export function upstreamPayload(
  extension: string,
  namespace: string,
  objects: readonly KubeObject[],
  bundle: { pkg: string; version: string; image: string },
): string {
  const doc = JSON.parse(fixturePayload()) as Record<string, unknown> & {
    labels: Record<string, string>;
    chart: { metadata: Record<string, unknown> };
  };
  doc['name'] = extension;
  doc['namespace'] = namespace;
  doc['version'] = 1;
  doc['manifest'] = objects.map((o) => JSON.stringify(o)).join('\n') + '\n';
  doc.labels = {
    'olm.operatorframework.io/bundle-name': `${bundle.pkg}.v${bundle.version}`,
    'olm.operatorframework.io/bundle-reference': bundle.image,
    'olm.operatorframework.io/bundle-version': bundle.version,
    'olm.operatorframework.io/package-name': bundle.pkg,
  };
  doc.chart.metadata = { ...doc.chart.metadata, name: bundle.pkg, version: bundle.version, annotations: { 'olm.properties': '[]' } };
  return JSON.stringify(doc) + '\n';
}

/** What `installAsUpstream` put on the cluster. */
export interface UpstreamInstall {
  /** The ClusterExtension's uid. */
  uid: string;
  /** The objects as upstream applied them, in the release's order. */
  objects: KubeObject[];
}

/**
 * Creates ClusterExtension `spec.pkg` (ServiceAccount `serviceAccount` in namespace `spec.pkg`,
 * selecting no catalog) and puts upstream's install of `spec` under it: its objects and its
 * revision 1 record in `olmv1-system`, or, with `corruptRecord`, an index Secret of upstream's
 * shape whose payload is not gzip.
 */
export async function installAsUpstream(
  client: KubeClient,
  spec: BundleSpec,
  image: string,
  options: { serviceAccount: string; nothing: string; corruptRecord?: boolean },
): Promise<UpstreamInstall> {
  const pkg = spec.pkg;
  const nothing = { matchLabels: { 'olm.operatorframework.io/metadata.name': options.nothing } };
  await client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: options.serviceAccount, packageName: pkg, selector: nothing }));
  const uid = (await client.get({ ...CE_TYPE, name: pkg })).metadata.uid ?? '';
  const tmp = await mkdtemp(join(tmpdir(), 'takeover-'));
  const loaded = await loadBundleDir(await writeBundleDir(join(tmp, 'bundle'), bundleFiles(spec))).finally(() =>
    rm(tmp, { recursive: true, force: true }),
  );
  const objects = asUpstreamApplied(renderRelease(loaded, { installNamespace: pkg }, pkg), { name: pkg, uid }, pkg);
  await applyAsAdmin(client, objects);
  const record =
    options.corruptRecord === true
      ? upstreamRecordOf(Buffer.from('not gzip at all'), { name: pkg, version: 1, status: 'deployed' }, 'olmv1-system', { name: pkg, uid })
      : upstreamRecord(upstreamPayload(pkg, pkg, objects, { pkg, version: spec.version, image }), 'olmv1-system', { name: pkg, uid });
  const index = await client.create(record.index);
  for (const chunk of record.chunks(index.metadata.uid ?? '')) await client.create(chunk);
  return { uid, objects };
}

/** Points ClusterExtension `name` at catalog `catalog`: our operator-controller takes over from here. */
export async function handOver(client: KubeClient, name: string, catalog: string): Promise<void> {
  await client.patch(
    { ...CE_TYPE, name },
    { spec: { source: { catalog: { selector: { matchLabels: { 'olm.operatorframework.io/metadata.name': catalog } } } } } },
    'merge',
  );
}
