import { randomBytes } from 'node:crypto';
import { constants, gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kube/index.ts';
import {
  CHUNK_SIZE,
  ReleaseTooLargeError,
  SECRET_SIZE_LIMIT,
  SERVER_ADDED_ALLOWANCE,
  encodeRelease,
  releaseJson,
  serializedSize,
  splitPayload,
  type Release,
} from './index.ts';
import { MAX_CHUNKS, decodeRelease } from './codec.ts';
import { assertChunkCount, assertSecretFits } from './codec.ts';
import { buildChunkSecret, buildIndexSecret } from './secrets.ts';
import { Manifest } from './manifest.ts';
import { compareManifestsByObjects } from '../../../test/support/manifest-equality.ts';

compareManifestsByObjects();

function release(overrides: Partial<Release> = {}): Release {
  return {
    extension: 'argocd',
    extensionUID: '6f1c1a52-9a0e-4c55-8f0e-2a4c0f4f9b10',
    revision: 2,
    status: 'deployed',
    bundle: {
      package: 'argocd-operator',
      name: 'argocd-operator.v0.6.0',
      version: '0.6.0',
      image: 'quay.io/argoprojlabs/argocd-operator-bundle@sha256:' + 'a'.repeat(64),
    },
    manifest: Manifest.ofObjects([{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'argocd-operator', namespace: 'argocd' } }]),
    properties: [{ type: 'olm.package', value: { packageName: 'argocd-operator', version: '0.6.0' } }],
    config: { watchNamespace: 'argocd' },
    description: 'Upgrade complete',
    ...overrides,
  };
}

// What the API server adds to a stored Secret: identity, timestamps and one managedFields
// entry naming every field we set (FieldsV1), with generous values.
function withServerMetadata(secret: KubeObject): KubeObject {
  const set = (keys: string[]) => Object.fromEntries([['.', {}], ...keys.map((k) => [`f:${k}`, {}])]);
  const meta = secret.metadata;
  const fieldsV1 = {
    'f:data': set(Object.keys(secret['data'] as object)),
    'f:immutable': {},
    'f:metadata': {
      'f:labels': set(Object.keys(meta.labels ?? {})),
      'f:annotations': set(Object.keys(meta.annotations ?? {})),
      'f:ownerReferences': { '.': {}, ...Object.fromEntries((meta.ownerReferences ?? []).map((o) => [`k:{"uid":"${o.uid}"}`, {}])) },
    },
    'f:type': {},
  };
  return {
    ...secret,
    metadata: {
      ...meta,
      uid: '00000000-0000-0000-0000-000000000000',
      resourceVersion: '18446744073709551615',
      creationTimestamp: '2026-11-23T17:52:00Z',
      managedFields: [
        {
          manager: 'operator-controller-with-a-long-user-agent/v1.0.0 (linux/amd64)',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2026-11-23T17:52:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1,
        },
      ],
    },
  };
}

describe('chunk size', () => {
  it('is a multiple of 3 leaving 16 KiB of every Secret for metadata once base64-encoded', () => {
    expect(CHUNK_SIZE % 3).toBe(0);
    expect(SECRET_SIZE_LIMIT - (CHUNK_SIZE / 3) * 4).toBe(16_384);
    expect(MAX_CHUNKS).toBe(11);
  });

  it('keeps the largest plausible index and chunk Secrets, with server metadata, under 1 MiB', () => {
    // Longest names everywhere: a 63-character extension, a 10-digit revision, bundle
    // identity values that must be annotations, and 10 extra chunk names.
    const ext = `a${'b'.repeat(61)}c`;
    const key = `sh.helm.release.v1.${ext}.v2147483647`;
    const big = release({
      extension: ext,
      revision: 2147483647,
      bundle: {
        package: 'p'.repeat(253),
        name: 'n'.repeat(253),
        version: `1.0.0+${'b'.repeat(120)}`,
        release: 'r'.repeat(63),
        image: `${'registry.example.com/'.repeat(12)}x@sha256:${'f'.repeat(64)}`,
      },
    });
    const piece = randomBytes(CHUNK_SIZE);
    const extraChunks = Array.from({ length: MAX_CHUNKS - 1 }, (_, i) => `${key}-${String(i).padStart(13, 'x')}`);
    const index = buildIndexSecret({
      key,
      namespace: 'openshift-operator-controller',
      release: big,
      firstPiece: piece,
      extraChunks,
      createdAt: '1795000000',
      modifiedAt: '1795000001',
    });
    const chunk = buildChunkSecret({
      name: extraChunks[0] ?? '',
      key,
      extension: ext,
      namespace: 'openshift-operator-controller',
      piece,
      owner: {
        apiVersion: 'v1',
        kind: 'Secret',
        name: key,
        uid: '00000000-0000-0000-0000-000000000000',
        controller: true,
        blockOwnerDeletion: false,
      },
      createdAt: '1795000000',
    });
    for (const secret of [index, chunk]) {
      const stored = withServerMetadata(secret);
      expect(serializedSize(stored)).toBeLessThan(SECRET_SIZE_LIMIT);
      expect(serializedSize(stored) - serializedSize(secret)).toBeLessThan(SERVER_ADDED_ALLOWANCE);
      expect(() => assertSecretFits(key, secret)).not.toThrow();
    }
  });

  it("shows why upstream's 1,040,384-byte chunks are not used: their Secret JSON is about 1.39 MB", () => {
    const key = 'sh.helm.release.v1.x.v1';
    const secret = buildChunkSecret({
      name: `${key}-aaaaaaaaaaaaa`,
      key,
      extension: 'x',
      namespace: 'olmv1-system',
      piece: randomBytes(1_040_384),
      owner: undefined,
      createdAt: '1',
    });
    expect(serializedSize(secret)).toBeGreaterThan(1_380_000);
    expect(() => assertSecretFits(key, secret)).toThrow(ReleaseTooLargeError);
  });

  it('refuses a Secret whose own metadata does not fit beside a full piece', () => {
    const key = 'sh.helm.release.v1.x.v1';
    const huge = release({ extension: 'x', revision: 1, bundle: { package: 'p', name: 'n', version: '1', image: `img/${'x'.repeat(20_000)}` } });
    const index = buildIndexSecret({ key, namespace: 'ns', release: huge, firstPiece: randomBytes(CHUNK_SIZE), extraChunks: [], createdAt: '1' });
    expect(() => assertSecretFits(key, index)).toThrow(
      /^release too large: "sh\.helm\.release\.v1\.x\.v1": Secret "sh\.helm\.release\.v1\.x\.v1" would be \d+ bytes with server metadata, over the limit of 1048576$/,
    );
  });
});

describe('payload encoding', () => {
  it("is Helm's release JSON plus a newline, gzip-compressed at level 9, and decodes to the same release", async () => {
    const r = release({ notes: { keptObjects: ['CustomResourceDefinition argocds.argoproj.io'] }, firstDeployed: '2026-11-23T17:00:00Z' });
    const payload = await encodeRelease(r);
    expect(gunzipSync(payload).toString()).toBe(releaseJson(r));
    expect(releaseJson(r).endsWith('}\n')).toBe(true);
    expect(releaseJson(r).startsWith('{"name":"argocd","info":{')).toBe(true);
    // gzip header: magic, deflate, no flags, mtime 0, XFL 2 = maximum compression (Go writes the same).
    expect([...payload.subarray(0, 4)]).toEqual([0x1f, 0x8b, 8, 0]);
    expect(payload[8]).toBe(2);
    // The ClusterExtension's uid is the record's owner reference, passed in by the store.
    const back = await decodeRelease(payload, 'test', r.extensionUID);
    expect(back).toEqual(r);
    expect(releaseJson(back)).toBe(releaseJson(r));
    expect((await decodeRelease(payload, 'test')).extensionUID).toBe('');
  });

  it('gives, piece by piece, the bytes of compressing JSON.stringify of the whole document at once', async () => {
    // Objects larger than one piece, with quotes, backslashes, control characters, non-ASCII,
    // surrogate pairs (some straddling a piece boundary of 32,768 characters) and lone surrogates.
    const text = (n: number) => `${'a"b\\c\n\t\u0001é'.repeat(n)}😀${'x'.repeat(32_760)}😀\ud800 \udc00end`;
    const manifest: KubeObject[] = [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big', namespace: 'ns' }, data: { a: text(5_000), b: text(3) } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'quote"d' }, data: { '1': 'one', z: '\u2028\u2029' } },
      ...Array.from({ length: 40 }, (_, i) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: `s${i}` }, stringData: { k: text(i) } })),
    ];
    // And one pair exactly across the first boundary.
    const straddling = (n: number): KubeObject => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'pair' },
      data: { a: `${'x'.repeat(n)}😀` },
    });
    manifest.push(straddling(32_767 - JSON.stringify(straddling(0)).indexOf('\ud83d')));
    const r = release({ manifest: Manifest.ofObjects(manifest), config: { 'odd "key"': '\\' } });
    const whole = releaseJson(r);
    const doc = JSON.parse(whole) as { manifest: string };
    expect(whole).toBe(`${JSON.stringify(doc)}\n`);
    expect(doc.manifest).toBe(manifest.map((o) => `${JSON.stringify(o)}\n`).join(''));
    const payload = await encodeRelease(r);
    expect(payload.equals(gzipSync(whole, { level: constants.Z_BEST_COMPRESSION }))).toBe(true);
    expect((await decodeRelease(payload, 'test', r.extensionUID)).manifest.objects()).toEqual(manifest);
  });

  it('writes an empty manifest as an empty string', () => {
    expect(JSON.parse(releaseJson(release({ manifest: Manifest.ofObjects([]) })))).toMatchObject({ manifest: '' });
  });

  it('writes fields in one order whatever order the caller built them in', () => {
    const r = release();
    const shuffled = Object.fromEntries(Object.entries(r).reverse()) as unknown as Release;
    expect(releaseJson(shuffled)).toBe(releaseJson(r));
  });

  it('splits into CHUNK_SIZE pieces that join back to the payload', () => {
    const payload = randomBytes(CHUNK_SIZE * 2 + 5);
    const pieces = splitPayload(payload);
    expect(pieces.map((p) => p.length)).toEqual([CHUNK_SIZE, CHUNK_SIZE, 5]);
    expect(Buffer.concat(pieces).equals(payload)).toBe(true);
    expect(splitPayload(randomBytes(CHUNK_SIZE)).length).toBe(1);
    expect(splitPayload(Buffer.alloc(0))).toEqual([Buffer.alloc(0)]);
  });

  it("refuses more than 11 pieces with upstream's message", () => {
    expect(() => assertChunkCount('sh.helm.release.v1.big.v1', 11)).not.toThrow();
    expect(() => assertChunkCount('sh.helm.release.v1.big.v1', 12)).toThrow(
      new ReleaseTooLargeError('release too large: "sh.helm.release.v1.big.v1" requires 12 chunks, which exceeds the maximum of 11'),
    );
  });

  it.each([
    ['not gzip', Buffer.from('plain'), /^release record where is corrupt: decompressing the payload failed: /],
    ['not JSON', null, /^release record where is corrupt: the payload is not JSON: /],
    ['not a release', null, /^release record where is corrupt: version: /],
  ])('fails clearly on a payload that is %s', async (what, raw, message) => {
    const zlib = await import('node:zlib');
    const payload = raw ?? zlib.gzipSync(what === 'not JSON' ? '{"name":' : releaseJson(release()).replace('"version":2,', '"version":"two",'));
    const failure = await decodeRelease(payload, 'where').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(message);
    // V8's SyntaxError quotes the payload: neither its message nor the error itself is kept (issue 69).
    if (what === 'not JSON')
      expect(failure).toMatchObject({
        message: 'release record where is corrupt: the payload is not JSON: unexpected end of JSON input',
        cause: undefined,
      });
    else expect((failure as Error).cause).toBeDefined();
  });
});
