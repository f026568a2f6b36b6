// The release JSON of a record (helm-format.ts, manifest.ts, legacy.ts): Helm's field names and
// encodings, what of ours goes where, upstream's records (test/fixtures/upstream-releases) read
// into Releases, YAML manifests of older upstream versions, records of our earlier format, and
// clear failures on what is not a release we can use.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { FIXTURE_EXTENSION, editPayload, fixturePayload } from '../../../test/support/upstream-release-records.ts';
import { encodeRelease, releaseJson, type Release } from './index.ts';
import { decodeRelease } from './codec.ts';
import { Manifest } from './manifest.ts';
import { compareManifestsByObjects } from '../../../test/support/manifest-equality.ts';

compareManifestsByObjects();

const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'acme' }, data: { 'a.html': '<b>&</b>' } };
const account = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { namespace: 'acme', name: 'acme' } };

function release(overrides: Partial<Release> = {}): Release {
  return {
    extension: 'acme',
    extensionUID: 'ce-uid',
    revision: 3,
    status: 'deployed',
    namespace: 'acme',
    bundle: {
      package: 'acme-operator',
      name: 'acme-operator.v1.2.0',
      version: '1.2.0',
      image: 'quay.io/acme/bundle:v1.2.0',
      digestRef: 'quay.io/acme/bundle@sha256:00',
    },
    manifest: Manifest.ofObjects([account, configMap]),
    properties: [{ type: 'olm.maxOpenShiftVersion', value: '4.18' }],
    config: { watchNamespace: 'acme-watch' },
    notes: { keptObjects: ['CustomResourceDefinition widgets.acme.io'] },
    description: 'Upgrade complete',
    firstDeployed: '2026-11-20T10:00:00Z',
    lastDeployed: '2026-11-23T18:00:00.123Z',
    ...overrides,
  };
}

describe("Helm's release JSON", () => {
  it('names every field as Helm v3 and upstream do, with ours in labels, chart annotations, config and "olmv1"', () => {
    expect(JSON.parse(releaseJson(release()))).toEqual({
      name: 'acme',
      info: {
        first_deployed: '2026-11-20T10:00:00Z',
        last_deployed: '2026-11-23T18:00:00.123Z',
        deleted: '0001-01-01T00:00:00Z',
        description: 'Upgrade complete',
        status: 'deployed',
      },
      chart: {
        metadata: {
          name: 'acme-operator',
          version: '1.2.0',
          annotations: { 'olm.properties': '[{"type":"olm.maxOpenShiftVersion","value":"4.18"}]' },
        },
        lock: null,
        templates: [],
        values: {},
        schema: null,
        files: [],
      },
      config: { watchNamespace: 'acme-watch' },
      manifest: `${JSON.stringify(account)}\n${JSON.stringify(configMap)}\n`,
      version: 3,
      namespace: 'acme',
      labels: {
        'olm.operatorframework.io/bundle-name': 'acme-operator.v1.2.0',
        'olm.operatorframework.io/package-name': 'acme-operator',
        'olm.operatorframework.io/bundle-version': '1.2.0',
        'olm.operatorframework.io/bundle-reference': 'quay.io/acme/bundle:v1.2.0',
      },
      olmv1: { digestRef: 'quay.io/acme/bundle@sha256:00', notes: { keptObjects: ['CustomResourceDefinition widgets.acme.io'] } },
    });
    // Go's struct order, then labels (helm-operator-plugins' wrapper), then ours.
    expect(Object.keys(JSON.parse(releaseJson(release())) as object)).toEqual([
      'name',
      'info',
      'chart',
      'config',
      'manifest',
      'version',
      'namespace',
      'labels',
      'olmv1',
    ]);
  });

  it.each<[string, Partial<Release>]>([
    ['everything set', {}],
    ['nothing optional', { namespace: undefined, config: undefined, notes: undefined, firstDeployed: undefined, lastDeployed: undefined }],
    ['empty config, notes, description and manifest', { config: {}, notes: {}, description: '', manifest: Manifest.ofObjects([]), properties: [] }],
    ['a bundle release, even empty', { bundle: { package: 'p', name: 'n', version: '1.0.0+b', release: '', image: 'i' } }],
  ])('round-trips a release with %s to an equal release and the same bytes', async (_what, overrides) => {
    const r = release(overrides);
    for (const [k, v] of Object.entries(overrides)) if (v === undefined) delete (r as unknown as Record<string, unknown>)[k];
    const back = await decodeRelease(await encodeRelease(r), 'w', r.extensionUID);
    expect({ ...back, manifest: back.manifest.objects() }).toStrictEqual({ ...r, manifest: r.manifest.objects() });
    expect(releaseJson(back)).toBe(releaseJson(r));
    expect(JSON.stringify(back.manifest.objects())).toBe(JSON.stringify(r.manifest.objects()));
  });

  it('writes unset deploy times as Go zero time, which reads back as unset', () => {
    const doc = JSON.parse(releaseJson(release({ firstDeployed: undefined, lastDeployed: undefined, status: 'pending-install' }))) as {
      info: object;
    };
    expect(doc.info).toEqual({
      first_deployed: '0001-01-01T00:00:00Z',
      last_deployed: '0001-01-01T00:00:00Z',
      deleted: '0001-01-01T00:00:00Z',
      description: 'Upgrade complete',
      status: 'pending-install',
    });
  });
});

describe("upstream's records", () => {
  it('read as installed releases: bundle from the storage labels, properties from the chart, objects from the manifest string', async () => {
    const payload = gzipSync(fixturePayload(), { level: 9 });
    const r = await decodeRelease(payload, 'fixture', FIXTURE_EXTENSION.uid);
    const { manifest: held, ...rest } = r;
    const manifest = held.objects();
    expect(rest).toStrictEqual({
      extension: 'argocd',
      extensionUID: FIXTURE_EXTENSION.uid,
      revision: 1,
      status: 'deployed',
      namespace: 'argocd',
      bundle: {
        package: 'argocd-operator',
        name: 'argocd-operator.v0.6.0',
        version: '0.6.0',
        image: `quay.io/argoprojlabs/argocd-operator-bundle@sha256:${'a1'.repeat(32)}`,
      },
      properties: [
        { type: 'olm.package', value: { packageName: 'argocd-operator', version: '0.6.0' } },
        { type: 'olm.maxOpenShiftVersion', value: '4.18' },
      ],
      description: 'Install complete',
      firstDeployed: '2025-03-14T09:26:53.589793238+01:00',
      lastDeployed: '2025-03-14T09:26:55.106443121+01:00',
    });
    expect(manifest.map((o) => `${o.kind} ${o.metadata.name}`)).toEqual([
      'ServiceAccount argocd-operator-controller-manager',
      'ClusterRole argocd-operator.v-1dhiybrldl1gyksid1dk2dqjsc72psdybc7iyvse5gpx',
      'Deployment argocd-operator-controller-manager',
    ]);
    const deployment = manifest[2] as unknown as {
      metadata: { ownerReferences: unknown[] };
      spec: { template: { metadata: { annotations: object } } };
    };
    expect(deployment.spec.template.metadata.annotations).toEqual({ description: 'Argo CD <3 operators & friends' });
    expect(deployment.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'olm.operatorframework.io/v1',
        blockOwnerDeletion: true,
        controller: true,
        kind: 'ClusterExtension',
        name: 'argocd',
        uid: FIXTURE_EXTENSION.uid,
      },
    ]);
  });

  it('read a manifest of YAML documents, as Helm renders it before any JSON post-renderer', async () => {
    const doc = JSON.parse(fixturePayload()) as Record<string, unknown>;
    doc['manifest'] =
      '---\n# Source: object-1.json\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: "1"\n---\n# Source: empty.yaml\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: b}\n';
    const r = await decodeRelease(gzipSync(JSON.stringify(doc)), 'w');
    expect(r.manifest.objects()).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { x: '1' } },
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'b' } },
    ]);
  });

  it.each<[string, (payload: string) => string, string]>([
    [
      'a status we never record',
      (p) => editPayload(p, { status: 'uninstalling' }),
      'info.status "uninstalling" is not a status operator-controller records',
    ],
    [
      'no bundle labels',
      (p) => editPayload(p, { labels: { 'olm.operatorframework.io/bundle-name': 'x' } }),
      'labels: "olm.operatorframework.io/package-name", "olm.operatorframework.io/bundle-version", "olm.operatorframework.io/bundle-reference" missing',
    ],
    ['bad properties', (p) => p.replace('"olm.properties":"[', '"olm.properties":"{['), 'chart annotation olm.properties is not JSON: '],
    [
      'a manifest document that is no object',
      (p) => p.replace('"manifest":"', '"manifest":"{\\"a\\":1}\\n'),
      'manifest document 1 is not an object with apiVersion, kind and metadata',
    ],
    ['no name', (p) => p.replace('"name":"argocd",', ''), 'name: '],
  ])('are refused as corrupt with %s', async (_what, edit, problem) => {
    // A bad manifest is found when the objects are read (decision 0098); the rest on decoding.
    const failure = await decodeRelease(gzipSync(edit(fixturePayload())), 'Secret "ns/x"')
      .then((r) => r.manifest.objects())
      .catch((e: unknown) => e);
    expect((failure as Error).message).toContain(`release record Secret "ns/x" is corrupt: ${problem}`);
  });
});

describe('records of our earlier format', () => {
  it('are still read, with the ClusterExtension uid they carry', async () => {
    const old: Release = { ...release(), manifest: Manifest.ofObjects([account]) };
    delete old.namespace;
    // The earlier writer's field order: extension, extensionUID, revision, status, bundle, ...
    const payload = gzipSync(`${JSON.stringify({ ...old, manifest: old.manifest.objects() })}\n`);
    expect(await decodeRelease(payload, 'w', 'ignored')).toStrictEqual(old);
  });
});
