import { describe, expect, it } from 'vitest';
import { releaseKey } from './index.ts';
import { BundleKey, base32Hash, bundleMetadata, chunkSecretName, fnv64a, isChunkNameOf, isLabelValue } from './naming.ts';
import { isKeyOf } from './naming.ts';

describe('fnv64a and base32 chunk names', () => {
  // Published FNV-1a 64-bit vectors; the base32 forms were computed independently with
  // Python's base64.b32encode over the big-endian hash, mapped to the alphabet a-z1-6.
  it.each([
    ['', 0xcbf29ce484222325n, 'zpzjzzeeeirsk'],
    ['a', 0xaf63dc4c8601ec8cn, 'v4r4ytegahwiy'],
    ['foobar', 0x85944171f73967e8n, 'qwkec3pxhft5q'],
  ])('hashes %j to %s / %s', (input, hash, encoded) => {
    expect(fnv64a(Buffer.from(input))).toBe(hash);
    expect(base32Hash(hash)).toBe(encoded);
  });

  it('hashes all byte values (0..255) like the reference implementation', () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(chunkSecretName('sh.helm.release.v1.x.v1', bytes)).toBe('sh.helm.release.v1.x.v1-ijbnyusjym2ck');
  });

  it('always gives 13 characters of the alphabet', () => {
    for (const h of [0n, 1n, 0xffffffffffffffffn, 0x8000000000000000n]) expect(base32Hash(h)).toMatch(/^[a-z1-6]{13}$/);
    expect(base32Hash(0n)).toBe('aaaaaaaaaaaaa');
    expect(base32Hash(0xffffffffffffffffn)).toBe('6666666666665');
  });
});

describe('release keys', () => {
  it('follow Helm storage keys', () => {
    expect(releaseKey('argocd', 3)).toBe('sh.helm.release.v1.argocd.v3');
  });

  it('belong to exactly one extension even when names share a prefix', () => {
    expect(isKeyOf('sh.helm.release.v1.foo.v3', 'foo')).toBe(true);
    expect(isKeyOf('sh.helm.release.v1.foo.v1.v3', 'foo')).toBe(false);
    expect(isKeyOf('sh.helm.release.v1.foo.v1.v3', 'foo.v1')).toBe(true);
    expect(isKeyOf('sh.helm.release.v1.foo.v03', 'foo')).toBe(false);
  });
});

describe('bundle identity as labels or annotations', () => {
  it.each([
    ['1.2.3', true],
    ['', true],
    ['1.2.3+build.4', false],
    ['quay.io/acme/op@sha256:0123', false],
    ['a'.repeat(63), true],
    ['a'.repeat(64), false],
    ['-x', false],
    ['x_y.Z-1', true],
  ])('%j is a label value: %s', (value, valid) => {
    expect(isLabelValue(value)).toBe(valid);
  });

  it('puts valid values in labels and the rest (image refs, versions with +) in annotations', () => {
    const m = bundleMetadata({ package: 'acme', name: 'acme.v1.0.0', version: '1.0.0+g1234', image: 'quay.io/acme/bundle@sha256:abc' });
    expect(m.labels).toEqual({ [BundleKey.name]: 'acme.v1.0.0', [BundleKey.package]: 'acme' });
    expect(m.annotations).toEqual({ [BundleKey.version]: '1.0.0+g1234', [BundleKey.reference]: 'quay.io/acme/bundle@sha256:abc' });
  });

  it('writes bundle-release only when the bundle has a release, even an empty one', () => {
    const base = { package: 'p', name: 'n', version: '1.0.0', image: 'img' };
    expect(bundleMetadata(base).labels).not.toHaveProperty(BundleKey.release);
    expect(bundleMetadata({ ...base, release: '' }).labels[BundleKey.release]).toBe('');
    expect(bundleMetadata({ ...base, release: '2' }).labels[BundleKey.release]).toBe('2');
  });
});

describe('isChunkNameOf', () => {
  const key = releaseKey('foo', 1);
  it('accepts the names chunkSecretName gives the key', () => {
    expect(isChunkNameOf(chunkSecretName(key, Buffer.from('piece')), key)).toBe(true);
  });
  it.each([
    ['another revision', chunkSecretName(releaseKey('foo', 10), Buffer.from('piece'))],
    ["the index of extension 'foo.v1-bar'", releaseKey('foo.v1-bar', 1)],
    ['the key itself', key],
    ['a hash of the wrong length', `${key}-abc`],
    ['a character outside the alphabet', `${key}-abcdefghijk7m`],
  ])('refuses %s', (_what, name) => {
    expect(isChunkNameOf(name, key)).toBe(false);
  });
});
