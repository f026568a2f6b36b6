// The store over records it did not write itself or in another shape (Secrets in memory,
// test/support/fake-secrets.ts): upstream's records, unchunked and chunked (built by
// test/support/upstream-release-records.ts from the documented format), read as installed
// releases and continued; records of our earlier format read and rewritten on update; the
// `release` key stock Helm reads; and release names whose storage key is too long for a label.
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { fakeSecrets, type SecretStore } from '../../../test/support/fake-secrets.ts';
import {
  FIXTURE_EXTENSION,
  UPSTREAM_CHUNK_SIZE,
  editPayload,
  fixturePayload,
  randomConfigMaps,
  upstreamRecord,
} from '../../../test/support/upstream-release-records.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import { ReleaseStatus, createReleaseStore, keyLabelValue, releaseKey, type Release } from './index.ts';
import { buildIndexSecret } from './secrets.ts';
import { Manifest } from './manifest.ts';
import { compareManifestsByObjects } from '../../../test/support/manifest-equality.ts';

compareManifestsByObjects();

const NS = 'olmv1-system';

/** Puts `secret` into `objects` as the API server stores it (uid, resourceVersion) and returns its uid. */
function seed(objects: SecretStore, secret: KubeObject): string {
  const uid = `seeded-${objects.size}`;
  objects.set(secret.metadata.name ?? '', structuredClone({ ...secret, metadata: { ...secret.metadata, uid, resourceVersion: '1' } }));
  return uid;
}

/** Seeds upstream's record of `payload` (index, then its chunks) and returns it. */
function seedUpstream(objects: SecretStore, payload: string): ReturnType<typeof upstreamRecord> {
  const record = upstreamRecord(payload, NS, FIXTURE_EXTENSION);
  const uid = seed(objects, record.index);
  for (const chunk of record.chunks(uid)) seed(objects, chunk);
  return record;
}

const data = (s: KubeObject | undefined): Record<string, string> => (s?.['data'] ?? {}) as Record<string, string>;

describe("upstream's records", () => {
  it('are read, unchunked and chunked, continued under the next revision number, and rewritten in our format when updated', async () => {
    const objects: SecretStore = new Map();
    seedUpstream(objects, editPayload(fixturePayload(), { status: 'superseded' }));
    const big = seedUpstream(objects, editPayload(fixturePayload(), { version: 2, extraObjects: randomConfigMaps(1_600_000) }));
    expect(big.payload.length).toBeGreaterThan(UPSTREAM_CHUNK_SIZE);
    expect(objects.size).toBe(3);
    const store = createReleaseStore({ client: fakeSecrets(objects).client, namespace: NS });

    const history = await store.history('argocd');
    expect(history.map((r) => [r.revision, r.status, r.extensionUID, r.bundle.name, r.namespace])).toEqual([
      [2, 'deployed', FIXTURE_EXTENSION.uid, 'argocd-operator.v0.6.0', 'argocd'],
      [1, 'superseded', FIXTURE_EXTENSION.uid, 'argocd-operator.v0.6.0', 'argocd'],
    ]);
    expect(history[0]?.manifest.objects().length).toBe(3 + randomConfigMaps(1_600_000).length);
    const { manifest: _objects, ...deployed } = history[0] as Release;
    expect(await store.deployed('argocd')).toStrictEqual(deployed);
    expect(await store.list()).toEqual(['argocd']);

    // The applier's next upgrade: revision 3, then revision 2 superseded (rewritten by us).
    const next: Release = {
      ...(history[0] as Release),
      revision: 3,
      status: ReleaseStatus.Deployed,
      manifest: Manifest.ofObjects((history[0] as Release).manifest.objects().slice(0, 3)),
    };
    await store.create(next);
    await store.update({ ...(history[0] as Release), status: ReleaseStatus.Superseded });
    const after = await store.history('argocd');
    expect(after.map((r) => [r.revision, r.status])).toEqual([
      [3, 'deployed'],
      [2, 'superseded'],
      [1, 'superseded'],
    ]);
    expect(after[1]?.manifest.objects()).toEqual(history[0]?.manifest.objects());
    // Upstream's chunk of revision 2 (no `name` label) is gone, replaced by ours.
    const [upstreamChunk] = JSON.parse(Buffer.from(data(big.index)['extraChunks'] ?? '', 'base64').toString()) as string[];
    expect(objects.has(upstreamChunk ?? '')).toBe(false);
    const chunks2 = [...objects.values()].filter((s) => s.metadata.labels?.['key'] === big.key && s.metadata.labels['type'] === 'chunk');
    expect(chunks2.length).toBeGreaterThanOrEqual(1);
    for (const c of chunks2) expect(c.metadata.labels?.['name']).toBe('argocd');
    const rewritten = objects.get(big.key);
    expect(rewritten?.metadata.labels?.['modifiedAt']).toMatch(/^\d+$/);
    expect(rewritten?.metadata.labels?.['createdAt']).toBe('1741940813');

    await store.deleteAll('argocd');
    expect([...objects.keys()]).toEqual([]);
  });

  it('are deleted with their chunks, which carry no name label', async () => {
    const objects: SecretStore = new Map();
    seedUpstream(objects, editPayload(fixturePayload(), { extraObjects: randomConfigMaps(1_200_000) }));
    expect([...objects.values()].filter((s) => s.metadata.labels?.['type'] === 'chunk' && s.metadata.labels['name'] === undefined)).toHaveLength(1);
    await createReleaseStore({ client: fakeSecrets(objects).client, namespace: NS }).deleteAll('argocd');
    expect(objects.size).toBe(0);
  });

  it.each([
    ['a Secret of the system', (_key: string) => 'operator-controller-cert'],
    ["the index of extension 'argocd.v1-bar' (its name starts with this key and a dash)", (key: string) => `${key}-bar.v1`],
  ])('are deleted with their chunks, never a Secret an index names that is not a chunk of its key: %s', async (_what, foreignName) => {
    const objects: SecretStore = new Map();
    const record = seedUpstream(objects, editPayload(fixturePayload(), { extraObjects: randomConfigMaps(1_200_000) }));
    const name = foreignName(record.key);
    objects.set(name, { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: NS, uid: name } } as KubeObject);
    const index = objects.get(record.key);
    const named = [...(JSON.parse(Buffer.from(data(index)['extraChunks'] ?? '', 'base64').toString()) as string[]), name];
    objects.set(record.key, {
      ...index!,
      data: { ...data(index), extraChunks: Buffer.from(JSON.stringify(named)).toString('base64') },
    } as KubeObject);
    await createReleaseStore({ client: fakeSecrets(objects).client, namespace: NS }).deleteAll('argocd');
    expect([...objects.keys()]).toEqual([name]);
  });

  it('are deleted with their chunks when the index that names them is corrupt (found by their key label)', async () => {
    const objects: SecretStore = new Map();
    const record = seedUpstream(objects, editPayload(fixturePayload(), { extraObjects: randomConfigMaps(1_200_000) }));
    const index = objects.get(record.key);
    objects.set(record.key, { ...index!, data: { ...data(index), extraChunks: Buffer.from('{not json').toString('base64') } } as KubeObject);
    await createReleaseStore({ client: fakeSecrets(objects).client, namespace: NS }).deleteAll('argocd');
    expect(objects.size).toBe(0);
  });
});

describe('records of our earlier format', () => {
  it('are read, and rewritten in Helm format by the next update', async () => {
    const objects: SecretStore = new Map();
    const old: Release = {
      extension: 'acme',
      extensionUID: 'ce-uid',
      revision: 1,
      status: 'deployed',
      bundle: { package: 'acme', name: 'acme.v1', version: '1.0.0', image: 'quay.io/acme/b:1', digestRef: 'quay.io/acme/b@sha256:01' },
      manifest: Manifest.ofObjects([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'acme' } }]),
      properties: [],
      notes: {},
      description: 'Install complete',
      lastDeployed: '2026-11-01T00:00:00.000Z',
    };
    const key = releaseKey('acme', 1);
    const piece = gzipSync(`${JSON.stringify({ ...old, manifest: old.manifest.objects() })}\n`);
    seed(objects, buildIndexSecret({ key, namespace: NS, release: old, firstPiece: piece, extraChunks: [], createdAt: '1' }));
    const store = createReleaseStore({ client: fakeSecrets(objects).client, namespace: NS });
    expect(await store.history('acme')).toStrictEqual([old]);
    const { manifest: _objects, ...summary } = old;
    expect(await store.deployed('acme')).toStrictEqual(summary);

    await store.update({ ...old, status: ReleaseStatus.Superseded });
    const stored = JSON.parse(gunzipSync(Buffer.from(data(objects.get(key))['chunk'] ?? '', 'base64')).toString()) as Record<string, unknown>;
    expect(stored['name']).toBe('acme');
    expect(stored).not.toHaveProperty('extension');
    expect(await store.history('acme')).toStrictEqual([{ ...old, status: ReleaseStatus.Superseded }]);
  });
});

describe("Helm's release key", () => {
  const small = (extension: string): Release => ({
    extension,
    extensionUID: '',
    revision: 1,
    status: 'deployed',
    bundle: { package: 'p', name: 'p.v1', version: '1.0.0', image: 'img' },
    manifest: Manifest.ofObjects([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' }, data: { x: 'y' } }]),
    properties: [],
    description: 'Install complete',
  });

  it("holds the payload as Helm's Secret driver stores it (base64 of the gzip'd JSON) while the revision is deployed and one piece", async () => {
    const objects: SecretStore = new Map();
    const store = createReleaseStore({ client: fakeSecrets(objects).client, namespace: NS });
    await store.create({ ...small('acme'), status: ReleaseStatus.PendingInstall });
    expect(data(objects.get(releaseKey('acme', 1)))).not.toHaveProperty('release');
    await store.update(small('acme'));
    const d = data(objects.get(releaseKey('acme', 1)));
    const helmText = Buffer.from(d['release'] ?? '', 'base64').toString('latin1');
    expect(helmText).toMatch(/^H4sI[A-Za-z0-9+/=]+$/);
    expect(Buffer.from(helmText, 'base64').equals(Buffer.from(d['chunk'] ?? '', 'base64'))).toBe(true);
    await store.update({ ...small('acme'), status: ReleaseStatus.Superseded });
    expect(data(objects.get(releaseKey('acme', 1)))).not.toHaveProperty('release');
  });

  it('is left out when the release spans several Secrets or the key would not fit', async () => {
    const objects: SecretStore = new Map();
    const store = createReleaseStore({ client: fakeSecrets(objects).client, namespace: NS });
    const blob = (bytes: number): KubeObject[] =>
      randomConfigMaps(bytes).map((o) => ({ ...(o as KubeObject), metadata: { ...(o as KubeObject).metadata, namespace: 'ns' } }));
    await store.create({ ...small('two'), manifest: Manifest.ofObjects(blob(1_000_000)) });
    await store.create({ ...small('one'), manifest: Manifest.ofObjects(blob(400_000)) });
    for (const name of ['two', 'one']) expect(data(objects.get(releaseKey(name, 1)))).not.toHaveProperty('release');
    expect(JSON.parse(Buffer.from(data(objects.get(releaseKey('one', 1)))['extraChunks'] ?? '', 'base64').toString())).toEqual([]);
  });
});

describe('long release names', () => {
  it("label their Secrets with the key's hash when the key is longer than a label value", async () => {
    const name = `a${'b'.repeat(51)}c`;
    const key = releaseKey(name, 1);
    expect(key.length).toBe(75);
    expect(keyLabelValue(key)).toMatch(/^[0-9a-f]{63}$/);
    expect(keyLabelValue(releaseKey('short', 1))).toBe(releaseKey('short', 1));
    const objects: SecretStore = new Map();
    const store = createReleaseStore({ client: fakeSecrets(objects).client, namespace: NS, maxHistory: 1 });
    const r: Release = {
      extension: name,
      extensionUID: 'u',
      revision: 1,
      status: 'deployed',
      bundle: { package: 'p', name: 'p.v1', version: '1.0.0', image: 'img' },
      manifest: Manifest.ofObjects(
        randomConfigMaps(900_000).map((o) => ({ ...(o as KubeObject), metadata: { ...(o as KubeObject).metadata, namespace: 'ns' } })),
      ),
      properties: [],
      description: 'Install complete',
    };
    await store.create(r);
    expect([...objects.values()].map((s) => s.metadata.labels?.['key'])).toEqual([keyLabelValue(key), keyLabelValue(key)]);
    await store.update({ ...r, status: ReleaseStatus.Superseded });
    await store.create({ ...r, revision: 2 });
    expect((await store.history(name)).map((x) => x.revision)).toEqual([2]);
    expect([...objects.keys()].every((n) => n.startsWith(releaseKey(name, 2)))).toBe(true);
    await store.deleteAll(name);
    expect(objects.size).toBe(0);
  });
});
