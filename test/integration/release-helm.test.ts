// Release records and other readers, on the real kube-apiserver (pkg/operator-controller/release, decision 0074):
//  - stock `helm` (v3.21.3, built by the envtest setup) reads our deployed revision by number,
//    from its index Secret's `release` key: `helm get manifest|values|all`, `helm status
//    --revision N`;
//  - what it cannot do, pinned so that a change shows: list or find the latest revision of any
//    chunked-driver record (its queries select owner=helm, ours and upstream's say
//    owner=operator-controller), nor read a record without the `release` key (upstream's, ours
//    not deployed or spanning several Secrets): Helm 3.21.3 then dies of a nil pointer;
//  - upstream's records (test/support/upstream-release-records.ts, unchunked and in 1,040,384-byte
//    pieces) are accepted by the API server, read by our store and by `olmv1 release`, and
//    continued by our store under the next revision number.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createKubeconfigLookup } from '../../cmd/olmv1/cluster-access.ts';
import { runRelease } from '../../cmd/olmv1/release.ts';
import { connect, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import {
  ReleaseStatus,
  SECRET_SIZE_LIMIT,
  createReleaseStore,
  releaseKey,
  type Release,
  Manifest,
} from '../../pkg/operator-controller/release/index.ts';
import {
  FIXTURE_EXTENSION,
  UPSTREAM_CHUNK_SIZE,
  editPayload,
  fixturePayload,
  randomConfigMaps,
  upstreamRecord,
} from '../support/upstream-release-records.ts';
import { helm } from '../support/helm.ts';

const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
const suffix = randomBytes(3).toString('hex');
let kube: KubeContext;

async function namespace(prefix: string): Promise<string> {
  const name = `${prefix}-${suffix}`;
  await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

beforeAll(async () => {
  kube = await connect({ kind: 'file', path: inject('envtestControlPlane').kubeconfigPath });
});
afterAll(() => kube?.close());

function release(revision: number, status: Release['status'], manifest?: KubeObject[]): Release {
  return {
    extension: 'acme',
    extensionUID: '',
    revision,
    status,
    namespace: 'acme-system',
    bundle: { package: 'acme-operator', name: `acme-operator.v1.${revision}.0`, version: `1.${revision}.0`, image: 'quay.io/acme/bundle@sha256:00' },
    manifest: Manifest.ofObjects(
      manifest ?? [
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'acme', namespace: 'acme-system' } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'acme', namespace: 'acme-system' }, data: { 'index.html': '<p>&</p>' } },
      ],
    ),
    properties: [{ type: 'olm.maxOpenShiftVersion', value: '4.18' }],
    config: { watchNamespace: 'acme-watch' },
    description: revision === 1 ? 'Install complete' : 'Upgrade complete',
    firstDeployed: '2026-11-23T18:00:00Z',
    lastDeployed: `2026-11-23T18:0${revision}:00Z`,
  };
}

/** The objects of `helm get manifest` output: one JSON object per line. */
function objectsOf(manifest: string): unknown[] {
  return manifest
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as unknown);
}

describe('stock helm over our records', () => {
  it('reads the deployed revision by number: manifest, values, status and all', async () => {
    const ns = await namespace('helm-ours');
    const store = createReleaseStore({ client: kube.client, namespace: ns });
    await store.create(release(1, ReleaseStatus.Superseded));
    const r2 = release(2, ReleaseStatus.Deployed);
    await store.create(r2);

    const manifest = await helm('get', 'manifest', 'acme', '--revision', '2', '-n', ns);
    expect(manifest.code, manifest.stderr).toBe(0);
    expect(objectsOf(manifest.stdout)).toEqual(r2.manifest.objects());

    const values = await helm('get', 'values', 'acme', '--revision', '2', '-n', ns, '-o', 'json');
    expect(values).toEqual({ code: 0, stdout: '{"watchNamespace":"acme-watch"}\n', stderr: '' });

    const status = await helm('status', 'acme', '--revision', '2', '-n', ns, '-o', 'json');
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      name: 'acme',
      version: 2,
      namespace: 'acme-system',
      info: { status: 'deployed', description: 'Upgrade complete', first_deployed: '2026-11-23T18:00:00Z', last_deployed: '2026-11-23T18:02:00Z' },
      config: { watchNamespace: 'acme-watch' },
    });

    const all = await helm('get', 'all', 'acme', '--revision', '2', '-n', ns);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toContain('NAMESPACE: acme-system\nSTATUS: deployed\nREVISION: 2\nCHART: acme-operator\nVERSION: 1.2.0\n');
  });

  it('gets the release key up to the size limit: an index Secret holding both stays under 1 MiB as stored', async () => {
    const ns = await namespace('helm-size');
    const r = release(1, ReleaseStatus.Deployed, randomConfigMaps(280_000, 'acme-system') as KubeObject[]);
    await createReleaseStore({ client: kube.client, namespace: ns }).create(r);
    const index = await kube.client.get({ ...SECRET, namespace: ns, name: releaseKey('acme', 1) });
    const d = index['data'] as Record<string, string>;
    expect(Buffer.from(d['chunk'] ?? '', 'base64').length).toBeGreaterThan(290_000);
    expect(Object.keys(d).sort()).toEqual(['chunk', 'extraChunks', 'release']);
    const size = Buffer.byteLength(JSON.stringify(index));
    expect(size).toBeGreaterThan(900_000);
    expect(size).toBeLessThan(SECRET_SIZE_LIMIT);
    const manifest = await helm('get', 'manifest', 'acme', '--revision', '1', '-n', ns);
    expect(objectsOf(manifest.stdout)).toEqual(r.manifest.objects());
  });

  it('cannot list them nor find the latest revision: its queries select owner=helm', async () => {
    const ns = await namespace('helm-list');
    await createReleaseStore({ client: kube.client, namespace: ns }).create(release(1, ReleaseStatus.Deployed));
    for (const args of [
      ['history', 'acme'],
      ['get', 'manifest', 'acme'],
      ['status', 'acme'],
    ]) {
      expect(await helm(...args, '-n', ns), args.join(' ')).toEqual({ code: 1, stdout: '', stderr: 'Error: release: not found\n' });
    }
    expect(await helm('list', '-a', '-n', ns)).toEqual({
      code: 0,
      stdout: 'NAME\tNAMESPACE\tREVISION\tUPDATED\tSTATUS\tCHART\tAPP VERSION\n',
      stderr: '',
    });
  });

  it('dies reading a revision whose index Secret has no release key (not deployed, or spanning several Secrets, or upstream wrote it)', async () => {
    const ns = await namespace('helm-big');
    const big = randomConfigMaps(1_000_000, 'acme-system') as KubeObject[];
    const store = createReleaseStore({ client: kube.client, namespace: ns });
    await store.create(release(1, ReleaseStatus.Superseded));
    await store.create(release(2, ReleaseStatus.Deployed, big));
    for (const revision of [1, 2]) {
      const index = await kube.client.get({ ...SECRET, namespace: ns, name: releaseKey('acme', revision) });
      expect(Object.keys(index['data'] as object).sort()).toEqual(['chunk', 'extraChunks']);
      const got = await helm('get', 'manifest', 'acme', '--revision', String(revision), '-n', ns);
      expect(got.code).toBe(2);
      expect(got.stderr).toContain('panic: runtime error: invalid memory address or nil pointer dereference');
      expect(got.stderr).toContain('helm.sh/helm/v3/pkg/storage/driver.(*Secrets).Get');
    }
  });
});

describe("upstream's records on the API server", () => {
  async function seedUpstream(ns: string, payload: string): Promise<ReturnType<typeof upstreamRecord>> {
    const record = upstreamRecord(payload, ns, FIXTURE_EXTENSION);
    const index = await kube.client.create(record.index);
    for (const chunk of record.chunks(index.metadata.uid ?? '')) await kube.client.create(chunk);
    return record;
  }

  it('are accepted, read by our store, shown by olmv1 release, continued, and helm dies on them', async () => {
    const ns = await namespace('upstream');
    await seedUpstream(ns, editPayload(fixturePayload(), { status: 'superseded' }));
    const big = await seedUpstream(ns, editPayload(fixturePayload(), { version: 2, extraObjects: randomConfigMaps(1_200_000) }));
    // A piece of upstream's size is accepted (the data is under 1 MiB); its index Secret is about 1.39 MB of JSON.
    const [chunkName] = JSON.parse(Buffer.from((big.index['data'] as Record<string, string>)['extraChunks'] ?? '', 'base64').toString()) as string[];
    const index2 = await kube.client.get({ ...SECRET, namespace: ns, name: big.key });
    expect(Buffer.from((index2['data'] as Record<string, string>)['chunk'] ?? '', 'base64').length).toBe(UPSTREAM_CHUNK_SIZE);
    expect(Buffer.byteLength(JSON.stringify(await kube.client.get({ ...SECRET, namespace: ns, name: chunkName ?? '' })))).toBeLessThan(300_000);
    expect(Buffer.byteLength(JSON.stringify(index2))).toBeGreaterThan(1_380_000);

    const store = createReleaseStore({ client: kube.client, namespace: ns });
    const history = await store.history('argocd');
    expect(history.map((r) => [r.revision, r.status, r.bundle.name, r.bundle.version, r.extensionUID, r.manifest.objects().length])).toEqual([
      [2, 'deployed', 'argocd-operator.v0.6.0', '0.6.0', FIXTURE_EXTENSION.uid, 3 + randomConfigMaps(1_200_000).length],
      [1, 'superseded', 'argocd-operator.v0.6.0', '0.6.0', FIXTURE_EXTENSION.uid, 3],
    ]);

    const out: string[] = [];
    const run = async (...args: string[]): Promise<string> => {
      out.length = 0;
      const io = { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => out.push(s) } };
      const code = await runRelease([...args, '--system-namespace', ns], io, {
        kubeconfig: createKubeconfigLookup({ KUBECONFIG: inject('envtestControlPlane').kubeconfigPath }, process.cwd()),
      });
      expect(code, out.join('')).toBe(0);
      return out.join('');
    };
    expect(await run('list')).toBe(
      'NAME     REVISION   UPDATED                               STATUS     BUNDLE                   VERSION\n' +
        'argocd   2          2025-03-14T09:26:55.106443121+01:00   deployed   argocd-operator.v0.6.0   0.6.0\n',
    );
    expect(await run('history', 'argocd')).toContain(
      '1          2025-03-14T09:26:55.106443121+01:00   superseded   argocd-operator.v0.6.0   0.6.0     Install complete\n',
    );
    expect(await run('get', 'argocd', '--revision', '1')).toContain(
      'NAME: argocd\nREVISION: 1\nSTATUS: superseded\nPACKAGE: argocd-operator\nBUNDLE: argocd-operator.v0.6.0\nVERSION: 0.6.0\n' +
        `IMAGE: quay.io/argoprojlabs/argocd-operator-bundle@sha256:${'a1'.repeat(32)}\nNAMESPACE: argocd\n`,
    );
    expect(await run('get', 'argocd', '--revision', '1', 'manifest')).toContain('kind: Deployment\nmetadata:\n  labels:\n');

    const helmGet = await helm('get', 'manifest', 'argocd', '--revision', '1', '-n', ns);
    expect(helmGet.code).toBe(2);
    expect(helmGet.stderr).toContain('panic: runtime error: invalid memory address or nil pointer dereference');

    // Our next upgrade: revision 3, and revision 2 superseded in our format (upstream's chunk replaced).
    const latest = history[0] as Release;
    await store.create({ ...latest, revision: 3, manifest: Manifest.ofObjects(latest.manifest.objects().slice(0, 3)) });
    await store.update({ ...latest, status: ReleaseStatus.Superseded });
    expect((await store.history('argocd')).map((r) => [r.revision, r.status])).toEqual([
      [3, 'deployed'],
      [2, 'superseded'],
      [1, 'superseded'],
    ]);
    await expect(kube.client.get({ ...SECRET, namespace: ns, name: chunkName ?? '' })).rejects.toThrow(/not found/);
    const manifest3 = await helm('get', 'manifest', 'argocd', '--revision', '3', '-n', ns);
    expect(objectsOf(manifest3.stdout)).toEqual(latest.manifest.objects().slice(0, 3));
  });
});
