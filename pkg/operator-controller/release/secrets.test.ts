import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kube/index.ts';
import { buildChunkSecret, buildIndexSecret, chunkPiece, parseIndexSecret } from './secrets.ts';
import type { Release } from './types.ts';
import { Manifest } from './manifest.ts';

const release: Release = {
  extension: 'argocd',
  extensionUID: 'uid-1',
  revision: 3,
  status: 'superseded',
  bundle: { package: 'argocd-operator', name: 'argocd-operator.v0.6.0', version: '0.6.0', image: 'quay.io/a/b@sha256:00' },
  manifest: Manifest.ofObjects([]),
  properties: [],
  description: 'Upgrade complete',
};
const key = 'sh.helm.release.v1.argocd.v3';

function index(): KubeObject {
  return buildIndexSecret({
    key,
    namespace: 'olmv1-system',
    release,
    firstPiece: Buffer.from('piece one'),
    extraChunks: [`${key}-aaaaaaaaaaaaa`],
    createdAt: '1700000000',
  });
}

describe('index Secrets', () => {
  it('read back what was written', () => {
    const obj = index();
    obj.metadata.uid = 'u';
    obj.metadata.resourceVersion = '42';
    expect(parseIndexSecret(obj, 'olmv1-system')).toEqual({
      key,
      uid: 'u',
      resourceVersion: '42',
      extension: 'argocd',
      extensionUID: 'uid-1',
      revision: 3,
      status: 'superseded',
      createdAt: '1700000000',
      firstPiece: Buffer.from('piece one'),
      extraChunks: [`${key}-aaaaaaaaaaaaa`],
    });
  });

  it('carry no owner reference when the release has no ClusterExtension UID', () => {
    const obj = buildIndexSecret({
      key,
      namespace: 'ns',
      release: { ...release, extensionUID: '' },
      firstPiece: Buffer.alloc(0),
      extraChunks: [],
      createdAt: '1',
    });
    expect(obj.metadata).not.toHaveProperty('ownerReferences');
  });

  const corrupt: [string, (o: KubeObject) => void, string][] = [
    ['of another type', (o) => (o['type'] = 'Opaque'), 'type is "Opaque", not operatorframework.io/index.v1'],
    ['without a version label', (o) => delete o.metadata.labels?.['version'], 'label version is undefined'],
    ['without a name label', (o) => delete o.metadata.labels?.['name'], 'label name is missing'],
    ['without data.chunk', (o) => delete (o['data'] as Record<string, string>)['chunk'], 'data.chunk is missing'],
    [
      'with extraChunks that are not JSON',
      (o) => ((o['data'] as Record<string, string>)['extraChunks'] = Buffer.from('[').toString('base64')),
      'data.extraChunks is not a JSON list',
    ],
    [
      'with extraChunks that are not names',
      (o) => ((o['data'] as Record<string, string>)['extraChunks'] = Buffer.from('[1]').toString('base64')),
      'data.extraChunks is not a list of Secret names',
    ],
    [
      'with more than 11 chunks',
      (o) =>
        ((o['data'] as Record<string, string>)['extraChunks'] = Buffer.from(JSON.stringify(Array.from({ length: 11 }, (_, i) => `c${i}`))).toString(
          'base64',
        )),
      'it has 12 chunks, more than the maximum of 11',
    ],
  ];
  it.each(corrupt)('are refused, naming the Secret, when %s', (_, spoil, problem) => {
    const obj = index();
    spoil(obj);
    expect(() => parseIndexSecret(obj, 'olmv1-system')).toThrow(`release record Secret "olmv1-system/${key}" is corrupt: ${problem}`);
  });
});

describe('chunk Secrets', () => {
  it('are immutable, labelled for their key and extension, and give their piece back', () => {
    const obj = buildChunkSecret({
      name: `${key}-x`,
      key,
      extension: 'argocd',
      namespace: 'ns',
      piece: Buffer.from([1, 2, 3]),
      owner: undefined,
      createdAt: '5',
    });
    expect(obj).toMatchObject({
      type: 'operatorframework.io/chunk.v1',
      immutable: true,
      metadata: { labels: { name: 'argocd', owner: 'operator-controller', key, type: 'chunk', createdAt: '5' } },
    });
    expect(chunkPiece(obj, 'ns', key)).toEqual(Buffer.from([1, 2, 3]));
    expect(() => chunkPiece({ ...obj, type: 'Opaque' }, 'ns', key)).toThrow(
      `release record Secret "ns/${key}" is corrupt: chunk Secret "ns/${key}-x" is not a chunk Secret with data.chunk`,
    );
  });
});
