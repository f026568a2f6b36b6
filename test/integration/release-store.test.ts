// Release records on the real kube-apiserver (pkg/operator-controller/release; decision 0074):
// Secrets in upstream's chunked shape, large releases split so that no stored Secret's JSON
// reaches 1 MiB, bounded history, deleteAll,
// crash safety (chunks without an index are invisible and cleaned up on retry), clear
// failures on missing or tampered chunks, and the `olmv1 release` commands over the records.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createKubeconfigLookup } from '../../cmd/olmv1/cluster-access.ts';
import { runRelease } from '../../cmd/olmv1/release.ts';
import { connect, type KubeClient, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import {
  CHUNK_SIZE,
  ReleaseStatus,
  ReleaseTooLargeError,
  SECRET_SIZE_LIMIT,
  SERVER_ADDED_ALLOWANCE,
  createReleaseStore,
  deployedRelease,
  encodeRelease,
  releaseJson,
  releaseKey,
  serializedSize,
  splitPayload,
  type Release,
  type ReleaseStore,
  Manifest,
} from '../../pkg/operator-controller/release/index.ts';
import { ceSpec, createForReal, extension, useCrds } from '../support/crd-admission.ts';
import { customResourceDefinition } from '../support/crds.ts';
import { compareManifestsByObjects } from '../support/manifest-equality.ts';

compareManifestsByObjects();

const NS = `releases-${randomBytes(3).toString('hex')}`;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
let kube: KubeContext;
let store: ReleaseStore;

useCrds();
beforeAll(async () => {
  kube = await connect({ kind: 'file', path: inject('envtestControlPlane').kubeconfigPath });
  await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  store = createReleaseStore({ client: kube.client, namespace: NS });
});
afterAll(() => kube?.close());

/** A real ClusterExtension, so the records' owner references name an existing object. */
async function newExtension(): Promise<{ name: string; uid: string }> {
  const ce = await createForReal(extension(ceSpec()));
  const meta = ce.metadata as { name: string; uid: string };
  return { name: meta.name, uid: meta.uid };
}

function makeRelease(ext: { name: string; uid: string }, revision: number, status: Release['status'], manifest: KubeObject[] = []): Release {
  return {
    extension: ext.name,
    extensionUID: ext.uid,
    revision,
    status,
    bundle: {
      package: 'acme',
      name: `acme.v1.${revision}.0`,
      version: `1.${revision}.0+build.7`,
      image: `quay.io/acme/acme-bundle@sha256:${'c'.repeat(64)}`,
    },
    manifest: Manifest.ofObjects(
      manifest.length > 0 ? manifest : [{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'acme', namespace: 'acme-system' } }],
    ),
    properties: [{ type: 'olm.package', value: { packageName: 'acme', version: `1.${revision}.0` } }],
    config: { watchNamespace: 'acme-watch' },
    description: status === ReleaseStatus.Failed ? 'Deployment.apps "acme" is invalid' : 'Install complete',
    firstDeployed: '2026-11-23T18:00:00Z',
    lastDeployed: `2026-11-23T18:${String(revision).padStart(2, '0')}:00Z`,
  };
}

/** Every record Secret of an extension (index and chunk), as stored. */
async function secretsOf(ext: string): Promise<KubeObject[]> {
  const { items } = await kube.client.listAll(SECRET, { namespace: NS });
  return items.filter((s) => (s.metadata.name ?? '').startsWith(`sh.helm.release.v1.${ext}.v`));
}

const words = (n: number): string => Array.from({ length: n }, () => randomBytes(3 + (n % 7)).toString('base64url')).join(' ');

/** A realistic CRD whose schema descriptions are random text, so gzip cannot collapse it. */
function bigCrd(i: number, group: string): KubeObject {
  const properties: Record<string, unknown> = {};
  for (let p = 0; p < 40; p++) properties[`field${p}`] = { type: p % 3 === 0 ? 'integer' : 'string', description: words(40) };
  return customResourceDefinition({
    group,
    kind: `Kind${i}`,
    plural: `kind${i}s`,
    metadata: { labels: { 'olm.operatorframework.io/owner-kind': 'ClusterExtension' } },
    schema: {
      type: 'object',
      description: words(60),
      properties: { spec: { type: 'object', properties }, status: { type: 'object', description: words(20) } },
    },
  });
}

function bigManifest(targetBytes: number): KubeObject[] {
  const out: KubeObject[] = [];
  let size = 0;
  for (let i = 0; size < targetBytes; i++) {
    const crd = bigCrd(i, 'acme.example.com');
    size += serializedSize(crd);
    out.push(crd);
  }
  return out;
}

describe('release store on the API server', () => {
  it('stores revisions in the chunked-Secret shape and reads them back through create, update and history', async () => {
    const ext = await newExtension();
    expect(await store.history(ext.name)).toEqual([]);

    const r1 = makeRelease(ext, 1, ReleaseStatus.PendingInstall);
    await store.create(r1);
    expect(await store.history(ext.name)).toEqual([r1]);
    const deployed1 = { ...r1, status: ReleaseStatus.Deployed };
    await store.update(deployed1);

    const index = await kube.client.get({ ...SECRET, namespace: NS, name: releaseKey(ext.name, 1) });
    expect(index['type']).toBe('operatorframework.io/index.v1');
    expect(index['immutable']).toBe(false);
    expect(index.metadata.labels).toEqual({
      name: ext.name,
      owner: 'operator-controller',
      status: 'deployed',
      version: '1',
      key: releaseKey(ext.name, 1),
      type: 'index',
      createdAt: expect.stringMatching(/^\d{10}$/),
      modifiedAt: expect.stringMatching(/^\d{10}$/),
      'olm.operatorframework.io/bundle-name': 'acme.v1.1.0',
      'olm.operatorframework.io/package-name': 'acme',
    });
    expect(index.metadata.annotations).toEqual({
      'olm.operatorframework.io/bundle-version': '1.1.0+build.7',
      'olm.operatorframework.io/bundle-reference': r1.bundle.image,
    });
    expect(index.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'olm.operatorframework.io/v1',
        kind: 'ClusterExtension',
        name: ext.name,
        uid: ext.uid,
        controller: true,
        blockOwnerDeletion: false,
      },
    ]);
    expect(JSON.parse(Buffer.from((index['data'] as Record<string, string>)['extraChunks'] ?? '', 'base64').toString())).toEqual([]);

    const r2 = makeRelease(ext, 2, ReleaseStatus.PendingUpgrade);
    await store.create(r2);
    await store.update({ ...deployed1, status: ReleaseStatus.Superseded });
    await store.update({ ...r2, status: ReleaseStatus.Deployed, description: 'Upgrade complete' });
    const history = await store.history(ext.name);
    expect(history.map((r) => [r.revision, r.status])).toEqual([
      [2, 'deployed'],
      [1, 'superseded'],
    ]);
    expect(deployedRelease(history)?.bundle).toEqual(r2.bundle);
    expect(await store.list()).toContain(ext.name);

    await expect(store.create(r2)).rejects.toThrow(`release record Secret "${NS}/${releaseKey(ext.name, 2)}" already exists`);
    await expect(store.update(makeRelease(ext, 9, ReleaseStatus.Deployed))).rejects.toThrow(
      `release record Secret "${NS}/${releaseKey(ext.name, 9)}" does not exist`,
    );
  });

  it('splits a 3 MB release across Secrets whose stored JSON stays under 1 MiB, and reads it back byte-identical', async () => {
    const ext = await newExtension();
    const release = makeRelease(ext, 1, ReleaseStatus.PendingInstall, bigManifest(3_000_000));
    const pieces = splitPayload(await encodeRelease(release)).length;
    expect(pieces).toBeGreaterThanOrEqual(3);

    await store.create(release);
    const [back] = await store.history(ext.name);
    expect(releaseJson(back as Release)).toBe(releaseJson(release));
    expect(JSON.stringify(back?.manifest.objects())).toBe(JSON.stringify(release.manifest.objects()));

    const stored = await secretsOf(ext.name);
    expect(stored).toHaveLength(pieces);
    const index = stored.find((s) => s.metadata.labels?.['type'] === 'index') as KubeObject;
    for (const secret of stored) {
      const size = Buffer.byteLength(JSON.stringify(secret));
      expect(size, secret.metadata.name).toBeLessThan(SECRET_SIZE_LIMIT);
      const { uid, resourceVersion, creationTimestamp, managedFields, ...sent } = secret.metadata;
      expect(size - serializedSize({ ...secret, metadata: sent }), 'bytes the API server added').toBeLessThan(SERVER_ADDED_ALLOWANCE);
      expect([uid, resourceVersion, creationTimestamp, managedFields].every((v) => v !== undefined)).toBe(true);
      if (secret === index) continue;
      expect(secret['type']).toBe('operatorframework.io/chunk.v1');
      expect(secret['immutable']).toBe(true);
      expect(secret.metadata.name).toMatch(new RegExp(`^${releaseKey(ext.name, 1).replaceAll('.', '\\.')}-[a-z1-6]{13}$`));
      expect(secret.metadata.ownerReferences).toEqual([
        { apiVersion: 'v1', kind: 'Secret', name: index.metadata.name, uid: index.metadata.uid, controller: true, blockOwnerDeletion: false },
      ]);
      expect(Buffer.from((secret['data'] as Record<string, string>)['chunk'] ?? '', 'base64').length).toBeLessThanOrEqual(CHUNK_SIZE);
    }

    // An update replaces the chunks: the new ones are read, none of the old ones is left.
    const deployed = { ...release, status: ReleaseStatus.Deployed };
    await store.update(deployed);
    expect(releaseJson((await store.history(ext.name))[0] as Release)).toBe(releaseJson(deployed));
    const after = await secretsOf(ext.name);
    expect(after).toHaveLength(pieces);
    expect(after.filter((s) => stored.some((o) => o.metadata.name === s.metadata.name && s.metadata.labels?.['type'] === 'chunk'))).toEqual([]);
  });

  it('refuses a release that needs more than 11 chunks and writes nothing', async () => {
    const ext = await newExtension();
    const blob = (i: number): KubeObject => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `blob${i}`, namespace: 'acme' },
      data: { blob: randomBytes(900_000).toString('base64') },
    });
    const release = makeRelease(
      ext,
      1,
      ReleaseStatus.PendingInstall,
      Array.from({ length: 10 }, (_, i) => blob(i)),
    );
    const n = splitPayload(await encodeRelease(release)).length;
    expect(n).toBeGreaterThan(11);
    const failure = await store.create(release).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ReleaseTooLargeError);
    expect((failure as Error).message).toBe(`release too large: "${releaseKey(ext.name, 1)}" requires ${n} chunks, which exceeds the maximum of 11`);
    expect(await secretsOf(ext.name)).toEqual([]);
  });

  it('prunes history to 10 revisions, keeping the deployed one, and deleteAll removes every Secret', async () => {
    const ext = await newExtension();
    // About one chunk Secret per revision besides the index, so pruning must delete chunks too.
    const payload = (rev: number): KubeObject[] => [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `p${rev}`, namespace: 'acme' }, data: { d: randomBytes(900_000).toString('base64') } },
    ];
    await store.create(makeRelease(ext, 1, ReleaseStatus.Deployed, payload(1)));
    for (let rev = 2; rev <= 12; rev++) await store.create(makeRelease(ext, rev, ReleaseStatus.Failed, payload(rev)));
    const history = await store.history(ext.name);
    expect(history.map((r) => r.revision)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 1]);
    expect(deployedRelease(history)?.revision).toBe(1);
    const left = await secretsOf(ext.name);
    for (const gone of [2, 3]) expect(left.filter((s) => s.metadata.labels?.['key'] === releaseKey(ext.name, gone))).toEqual([]);
    expect(left.filter((s) => s.metadata.labels?.['type'] === 'chunk').length).toBeGreaterThanOrEqual(10);

    await store.deleteAll(ext.name);
    expect(await secretsOf(ext.name)).toEqual([]);
    expect(await store.history(ext.name)).toEqual([]);
    expect(await store.list()).not.toContain(ext.name);
  });
});

/** The real client, except that writes of index Secrets fail as if the process died just before them. */
function crashingBeforeIndexWrites(client: KubeClient): KubeClient {
  const isIndex = (obj: KubeObject): boolean => obj.kind === 'Secret' && obj['type'] === 'operatorframework.io/index.v1';
  return {
    ...client,
    create: (obj, o) => (isIndex(obj) ? Promise.reject(new Error('simulated crash')) : client.create(obj, o)),
    update: (obj, o) => (isIndex(obj) ? Promise.reject(new Error('simulated crash')) : client.update(obj, o)),
  };
}

describe('crash safety and corruption', () => {
  it('never shows chunks written without their index, and a retried create or update cleans them up', async () => {
    const ext = await newExtension();
    const crashing = createReleaseStore({ client: crashingBeforeIndexWrites(kube.client), namespace: NS });
    const first = makeRelease(ext, 1, ReleaseStatus.PendingInstall, bigManifest(1_500_000));
    await expect(crashing.create(first)).rejects.toThrow('simulated crash');
    expect((await secretsOf(ext.name)).length).toBeGreaterThan(0);
    expect(await store.history(ext.name)).toEqual([]);
    expect(await store.list()).not.toContain(ext.name);

    // The retry carries other content (so other chunk names): the leftovers go.
    const retried = { ...first, description: 'Install complete (retried)' };
    await store.create(retried);
    const pieces = splitPayload(await encodeRelease(retried)).length;
    expect(await secretsOf(ext.name)).toHaveLength(pieces);
    expect(await store.history(ext.name)).toEqual([retried]);

    // An update that dies before the index is replaced leaves the old revision readable.
    await expect(
      crashing.update({ ...retried, status: ReleaseStatus.Deployed, manifest: Manifest.ofObjects(bigManifest(1_500_000)) }),
    ).rejects.toThrow('simulated crash');
    expect(await store.history(ext.name)).toEqual([retried]);
    // The next process (a restart, the other replica) reads the key's Secrets before its first
    // update of it, and so removes what the dead one left.
    const deployed = { ...retried, status: ReleaseStatus.Deployed };
    await createReleaseStore({ client: kube.client, namespace: NS }).update(deployed);
    expect(await store.history(ext.name)).toEqual([deployed]);
    expect(await secretsOf(ext.name)).toHaveLength(splitPayload(await encodeRelease(deployed)).length);
  });

  it('fails clearly, naming the Secrets, when a chunk is missing or does not hold what its name says', async () => {
    const ext = await newExtension();
    await store.create(makeRelease(ext, 1, ReleaseStatus.Deployed, bigManifest(1_500_000)));
    const key = releaseKey(ext.name, 1);
    const chunk = (await secretsOf(ext.name)).find((s) => s.metadata.labels?.['type'] === 'chunk') as KubeObject;
    const chunkName = chunk.metadata.name ?? '';
    await kube.client.delete({ ...SECRET, namespace: NS, name: chunkName });
    const missing = await store.history(ext.name).catch((e: unknown) => e);
    expect((missing as Error).message).toBe(`release record Secret "${NS}/${key}" is corrupt: its chunk Secret "${NS}/${chunkName}" does not exist`);
    expect((missing as Error).cause).toBeDefined();

    const data = Buffer.from((chunk['data'] as Record<string, string>)['chunk'] ?? '', 'base64');
    data[100] = (data[100] ?? 0) ^ 0xff;
    const { uid, resourceVersion, creationTimestamp, managedFields, ...meta } = chunk.metadata;
    await kube.client.create({ ...chunk, ...SECRET, metadata: meta, data: { chunk: data.toString('base64') } });
    await expect(store.history(ext.name)).rejects.toThrow(
      `release record Secret "${NS}/${key}" is corrupt: the content of chunk Secret "${NS}/${chunkName}" does not match its name`,
    );
    expect([uid, resourceVersion, creationTimestamp, managedFields]).toHaveLength(4);
  });
});

describe('olmv1 release', () => {
  async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
    const code = await runRelease(args, io, {
      kubeconfig: createKubeconfigLookup({ KUBECONFIG: inject('envtestControlPlane').kubeconfigPath }, process.cwd()),
    });
    return { code, stdout, stderr };
  }

  it('lists, shows history and gets revisions from the stored records', async () => {
    const ns = `${NS}-cli`;
    await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const cliStore = createReleaseStore({ client: kube.client, namespace: ns });
    const ext = await newExtension();
    const r1 = makeRelease(ext, 1, ReleaseStatus.Superseded);
    const r2 = {
      ...makeRelease(ext, 2, ReleaseStatus.Deployed),
      description: 'Upgrade complete',
      notes: { keptObjects: ['CustomResourceDefinition widgets.acme.example.com'] },
    };
    await cliStore.create(r1);
    await cliStore.create(r2);
    const sys = ['--system-namespace', ns];

    const list = await run('list', ...sys);
    expect(list.code).toBe(0);
    expect(list.stderr).toBe('');
    expect(list.stdout.split('\n').map((l) => l.split(/\s{3,}/))).toEqual([
      ['NAME', 'REVISION', 'UPDATED', 'STATUS', 'BUNDLE', 'VERSION'],
      [ext.name, '2', '2026-11-23T18:02:00Z', 'deployed', 'acme.v1.2.0', '1.2.0+build.7'],
      [''],
    ]);

    const history = await run('history', ext.name, ...sys, '--kubeconfig', inject('envtestControlPlane').kubeconfigPath);
    expect(history.code).toBe(0);
    expect(history.stdout.split('\n').map((l) => l.split(/\s{3,}/))).toEqual([
      ['REVISION', 'UPDATED', 'STATUS', 'BUNDLE', 'VERSION', 'DESCRIPTION'],
      ['1', '2026-11-23T18:01:00Z', 'superseded', 'acme.v1.1.0', '1.1.0+build.7', 'Install complete'],
      ['2', '2026-11-23T18:02:00Z', 'deployed', 'acme.v1.2.0', '1.2.0+build.7', 'Upgrade complete'],
      [''],
    ]);

    const get = await run('get', ext.name, ...sys);
    expect(get.code).toBe(0);
    expect(get.stdout).toContain(
      `NAME: ${ext.name}\nREVISION: 2\nSTATUS: deployed\nPACKAGE: acme\nBUNDLE: acme.v1.2.0\nVERSION: 1.2.0+build.7\nIMAGE: ${r2.bundle.image}\n`,
    );
    expect(get.stdout).toContain('OBJECTS: 1\nKEPT OBJECTS:\n  CustomResourceDefinition widgets.acme.example.com\n');

    expect((await run('get', ext.name, '--revision', '1', ...sys)).stdout).toContain('REVISION: 1\nSTATUS: superseded\n');
    expect(await run('get', ext.name, 'manifest', ...sys)).toEqual({
      code: 0,
      stderr: '',
      stdout: '---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: acme\n  namespace: acme-system\n',
    });
    expect(await run('get', ext.name, 'values', ...sys)).toEqual({ code: 0, stderr: '', stdout: 'watchNamespace: acme-watch\n' });

    expect(await run('get', ext.name, '--revision', '7', ...sys)).toEqual({ code: 1, stdout: '', stderr: `revision 7 of "${ext.name}" not found\n` });
    expect(await run('history', 'nothing-here', ...sys)).toEqual({
      code: 1,
      stdout: '',
      stderr: `no release records of "nothing-here" in namespace "${ns}"\n`,
    });
    expect((await run('get', ext.name, 'everything', ...sys)).code).toBe(2);
  });
});
