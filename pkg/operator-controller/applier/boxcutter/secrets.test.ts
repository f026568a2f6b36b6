import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ApiError, type KubeObject } from '../../../shared/kube/index.ts';
import { fakeCluster } from '../../../../test/support/fake-cluster.ts';
import {
  GZIP_THRESHOLD,
  MAX_SECRET_DATA_SIZE,
  OBJECT_DATA_SECRET_TYPE,
  REVISION_NAME_LABEL,
  contentKey,
  createRefSecrets,
  ensureRefSecretOwners,
  objectBytes,
  ownRefSecrets,
  packObjects,
  resolveRefs,
  withRefs,
} from './secrets.ts';

const target = { revisionName: 'my-ext-3', ownerName: 'my-ext', systemNamespace: 'olmv1-system' };
const cm = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  ...extra,
});
const dataOf = (secret: KubeObject | undefined): Record<string, string> => (secret?.['data'] ?? {}) as Record<string, string>;

describe('packObjects', () => {
  it('writes what Go writes: sorted keys, escaped HTML, the same keys and Secret name (computed with Go)', () => {
    // Go: json.Marshal of the decoded objects, sha256, base64.RawURLEncoding; the name over sorted keys and values.
    const a = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { namespace: 'ns', name: 'a' }, data: { z: '<&>', a: 'x' } };
    const b = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'ns' }, spec: { replicas: 2 } };
    expect(objectBytes(a).toString()).toBe(
      '{"apiVersion":"v1","data":{"a":"x","z":"\\u003c\\u0026\\u003e"},"kind":"ConfigMap","metadata":{"name":"a","namespace":"ns"}}',
    );
    const { secrets, refs } = packObjects(target, [{ objects: [{ object: a }, { object: b }] }]);
    expect(refs).toEqual([
      [
        { name: 'my-ext-3-43fc1f0b2e9da3df', namespace: 'olmv1-system', key: 'jdIcD5_k_PFXfUtQn6NFxb8Od_np_gPg8CcCDb5esuA' },
        { name: 'my-ext-3-43fc1f0b2e9da3df', namespace: 'olmv1-system', key: 'BbShlMedJ233WUy_EAUjLBDTq5tl9Wgl0-Te17EgJAU' },
      ],
    ]);
    expect(secrets.map((s) => s.metadata.name)).toEqual(['my-ext-3-43fc1f0b2e9da3df']);
  });

  it('makes immutable, typed, labelled Secrets in the system namespace', () => {
    const { secrets, refs } = packObjects(target, [{ objects: [{ object: cm('a') }] }]);
    expect(secrets).toHaveLength(1);
    const s = secrets[0] as KubeObject;
    expect(s.metadata.name).toMatch(/^my-ext-3-[0-9a-f]{16}$/);
    expect(s).toMatchObject({
      apiVersion: 'v1',
      kind: 'Secret',
      immutable: true,
      type: OBJECT_DATA_SECRET_TYPE,
      metadata: { namespace: 'olmv1-system', labels: { [REVISION_NAME_LABEL]: 'my-ext-3', 'olm.operatorframework.io/owner-name': 'my-ext' } },
    });
    const ref = refs[0]?.[0];
    expect(ref?.key).toHaveLength(43);
    const stored = Buffer.from(dataOf(s)[ref?.key ?? ''] ?? '', 'base64');
    expect(JSON.parse(stored.toString())).toEqual(cm('a'));
    expect(ref?.key).toBe(contentKey(stored));
  });

  it.each([
    ['no phases', [], 0, 0],
    ['refs only', [{ objects: [{ ref: { name: 's', namespace: 'ns', key: 'k' } }] }], 0, 0],
    ['two objects, one Secret', [{ objects: [{ object: cm('a') }, { object: cm('b') }] }], 1, 2],
    ['across phases, one Secret', [{ objects: [{ object: cm('a') }] }, { objects: [{ object: cm('b') }] }], 1, 2],
    ['the same object twice shares its key', [{ objects: [{ object: cm('a') }, { object: cm('a') }] }], 1, 1],
  ])('%s', (_name, phases, secretCount, keyCount) => {
    const { secrets, refs } = packObjects(target, phases);
    expect(secrets).toHaveLength(secretCount);
    expect(secrets.reduce((n, s) => n + Object.keys(dataOf(s)).length, 0)).toBe(keyCount);
    // every inline object has a ref into a Secret that holds its key
    phases.forEach((p, i) =>
      p.objects.forEach((o, j) => {
        const ref = refs[i]?.[j];
        if ('ref' in o) expect(ref).toBeUndefined();
        else expect(dataOf(secrets.find((s) => s.metadata.name === ref?.name))[ref?.key ?? '']).toBeDefined();
      }),
    );
  });

  it('is deterministic', () => {
    const phases = [{ objects: [{ object: cm('a') }, { object: cm('b') }] }];
    expect(packObjects(target, phases)).toEqual(packObjects(target, phases));
  });

  it('starts a new Secret when the data would pass 900 KiB', () => {
    const big = (name: string) => cm(name, { data: { v: 'x'.repeat(400 * 1024) } });
    const { secrets, refs } = packObjects(target, [{ objects: [{ object: big('a') }, { object: big('b') }, { object: big('c') }] }]);
    expect(secrets).toHaveLength(2);
    expect(refs[0]?.map((r) => r?.name)).toEqual([secrets[0]?.metadata.name, secrets[0]?.metadata.name, secrets[1]?.metadata.name]);
    for (const s of secrets) {
      const size = Object.values(dataOf(s)).reduce((n, v) => n + Buffer.from(v, 'base64').length, 0);
      expect(size).toBeLessThanOrEqual(MAX_SECRET_DATA_SIZE);
    }
  });

  it('gzips an object over 900 KiB, keyed by the compressed bytes', () => {
    const large = cm('large', { data: { big: 'a'.repeat(GZIP_THRESHOLD + 1) } });
    const { secrets, refs } = packObjects(target, [{ objects: [{ object: large }] }]);
    const stored = Buffer.from(dataOf(secrets[0])[refs[0]?.[0]?.key ?? ''] ?? '', 'base64');
    expect([stored[0], stored[1]]).toEqual([0x1f, 0x8b]);
    expect(JSON.parse(gunzipSync(stored).toString())).toEqual(large);
    expect(refs[0]?.[0]?.key).toBe(contentKey(stored));
  });

  it('refuses an object too large even compressed, with upstream message', () => {
    // random bytes as base64 do not compress below 900 KiB
    const s = randomBytes(1400 * 1024).toString('base64');
    expect(() => packObjects(target, [{ objects: [] }, { objects: [{ object: cm('ok') }, { object: cm('huge', { data: { s } }) }] }])).toThrow(
      /^object in phase 1 index 1 exceeds maximum Secret data size \(\d+ bytes > 921600 bytes\) even after compression$/,
    );
  });
});

describe('withRefs', () => {
  it('replaces packed objects by their refs and keeps the rest', () => {
    const phases = [{ name: 'deploy', objects: [{ object: cm('a'), collisionProtection: 'None' as const }, { ref: { name: 'x', key: 'k' } }] }];
    const ref = { name: 's', namespace: 'n', key: 'k1' };
    expect(withRefs(phases, [[ref, undefined]])).toEqual([
      { name: 'deploy', objects: [{ ref, collisionProtection: 'None' }, { ref: { name: 'x', key: 'k' } }] },
    ]);
  });
});

describe('the Secret edge', () => {
  const packed = () => packObjects(target, [{ objects: [{ object: cm('a') }] }, { objects: [{ object: cm('b') }, { object: cm('a') }] }]);

  it('creates the Secrets, a retry finding them is fine, and reads the objects back', async () => {
    const cluster = fakeCluster();
    const { secrets, refs } = packed();
    await createRefSecrets(cluster.client, secrets);
    await createRefSecrets(cluster.client, secrets);
    expect([...cluster.objects.keys()]).toEqual([`Secret olmv1-system/${secrets[0]?.metadata.name}`]);
    const phases = withRefs([{ objects: [{ object: cm('a') }] }, { objects: [{ object: cm('b') }, { object: cm('a') }] }], refs);
    const objects = await resolveRefs(cluster.client, [...phases, { objects: [{ object: cm('inline') }] }]);
    expect(objects).toEqual([[cm('a')], [cm('b'), cm('a')], [cm('inline')]]);
    // one read per Secret
    expect(cluster.calls.filter((c) => c.startsWith('get '))).toHaveLength(1);
  });

  it('reports a failed create, and a missing Secret or key by name', async () => {
    const { secrets, refs } = packed();
    const name = secrets[0]?.metadata.name ?? '';
    const refusing = fakeCluster({ refuse: { [`create Secret olmv1-system/${name}`]: new ApiError(403, 'Forbidden', 'no') } });
    await expect(createRefSecrets(refusing.client, secrets)).rejects.toThrow(`creating ref Secret "${name}": no`);
    const empty = fakeCluster();
    const phases = withRefs([{ objects: [{ object: cm('a') }] }], [[refs[0]?.[0]]]);
    await expect(resolveRefs(empty.client, phases)).rejects.toThrow(`reading Secret olmv1-system/${name} key "${refs[0]?.[0]?.key}": `);
    await createRefSecrets(empty.client, secrets);
    const wrongKey = withRefs([{ objects: [{ object: cm('a') }] }], [[{ name, namespace: 'olmv1-system', key: 'nope' }]]);
    await expect(resolveRefs(empty.client, wrongKey)).rejects.toThrow(`key "nope" not found in Secret olmv1-system/${name}`);
  });

  it("names the Secret and key of a value that is not JSON, never its bytes; a ref without a namespace reads OLM's own (issue 69)", async () => {
    const cluster = fakeCluster();
    const secret = (data: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'plain', namespace: 'olmv1-system' },
      immutable: true,
      data: { token: Buffer.from(data).toString('base64') },
    });
    cluster.seed(secret('SUPERSECRET-TOKEN'));
    const phases = [{ objects: [{ ref: { name: 'plain', key: 'token' } }] }];
    const err = await resolveRefs(cluster.client, phases, undefined, 'olmv1-system').then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toBe(
      'reading Secret olmv1-system/plain key "token": unmarshaling object from key "token" in Secret olmv1-system/plain: not valid JSON',
    );
    for (let e: unknown = err; e instanceof Error; e = e.cause) expect(e.message).not.toMatch(/SUPER|SECRET|TOKEN/);
    cluster.edit(secret(''), (s) => (s['data'] = { token: Buffer.from(JSON.stringify(cm('a'))).toString('base64') }));
    expect(await resolveRefs(cluster.client, phases, undefined, 'olmv1-system')).toEqual([[cm('a')]]);
  });

  it('makes the revision their controller owner once, and repairs Secrets a crash left without', async () => {
    const cluster = fakeCluster();
    const { secrets } = packed();
    await createRefSecrets(cluster.client, secrets);
    const set = { name: 'my-ext-3', uid: 'cos-uid' };
    await ownRefSecrets(cluster.client, set, secrets);
    const live = cluster.live(secrets[0] as KubeObject);
    expect(live?.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'olm.operatorframework.io/v1',
        kind: 'ClusterObjectSet',
        name: 'my-ext-3',
        uid: 'cos-uid',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    const before = cluster.writes.length;
    await ensureRefSecretOwners(cluster.client, 'olmv1-system', set);
    expect(cluster.writes.length).toBe(before);
    cluster.edit(secrets[0] as KubeObject, (s) => delete s.metadata.ownerReferences);
    await ensureRefSecretOwners(cluster.client, 'olmv1-system', set);
    expect(cluster.writes.slice(before)).toEqual([`patch Secret olmv1-system/${secrets[0]?.metadata.name}`]);
  });
});
