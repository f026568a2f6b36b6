import { describe, expect, it } from 'vitest';
import { isTerminal } from '../errors/index.ts';
import { canonicalReference, familiarReference, parseImageReference, requireTagOrDigest } from './reference.ts';

const HEX = 'a'.repeat(64);

describe('parseImageReference', () => {
  const valid: Array<[string, { domain: string; path: string; tag?: string; digest?: string }]> = [
    ['quay.io/ns/img:tag', { domain: 'quay.io', path: 'ns/img', tag: 'tag' }],
    [`quay.io/ns/img@sha256:${HEX}`, { domain: 'quay.io', path: 'ns/img', digest: `sha256:${HEX}` }],
    [`quay.io/ns/img:v1@sha256:${HEX}`, { domain: 'quay.io', path: 'ns/img', tag: 'v1', digest: `sha256:${HEX}` }],
    ['quay.io/ns/img', { domain: 'quay.io', path: 'ns/img' }],
    ['127.0.0.1:5000/catalog:latest', { domain: '127.0.0.1:5000', path: 'catalog', tag: 'latest' }],
    ['localhost/x:1', { domain: 'localhost', path: 'x', tag: '1' }],
    ['localhost:5000/a/b/c:Latest_1.2-x', { domain: 'localhost:5000', path: 'a/b/c', tag: 'Latest_1.2-x' }],
    ['[::1]:5000/foo:bar', { domain: '[::1]:5000', path: 'foo', tag: 'bar' }],
    ['docker.io/library/busybox:1', { domain: 'docker.io', path: 'library/busybox', tag: '1' }],
    ['Quay.io/ns/img:tag', { domain: 'Quay.io', path: 'ns/img', tag: 'tag' }],
    ['quay.io/a.b_c__d--e/f:t', { domain: 'quay.io', path: 'a.b_c__d--e/f', tag: 't' }],
  ];
  it.each(valid)('accepts %s', (input, want) => {
    const ref = parseImageReference(input);
    expect({ domain: ref.domain, path: ref.path, tag: ref.tag, digest: ref.digest }).toEqual({
      tag: undefined,
      digest: undefined,
      ...want,
    });
    expect(ref.name).toBe(`${want.domain}/${want.path}`);
  });

  const invalid: Array<[string, string]> = [
    ['ns/img:tag', 'repository name must be canonical'],
    ['busybox', 'repository name must be canonical'],
    ['docker.io/busybox:1', 'repository name must be canonical'],
    ['index.docker.io/library/busybox:1', 'repository name must be canonical'],
    ['localhost:5000', 'repository name must be canonical'],
    ['quay.io/NS/img:tag', 'invalid reference format: repository name must be lowercase'],
    ['quay.io/ns/img:tag!', 'invalid reference format'],
    ['quay.io/ns/img:', 'invalid reference format'],
    ['', 'invalid reference format'],
    ['quay.io/ns/img@sha256:abc', 'invalid reference format'],
    [`quay.io/ns/img@sha256:${'a'.repeat(63)}`, 'invalid checksum digest length'],
    [`quay.io/ns/img@sha256:${'A'.repeat(64)}`, 'invalid checksum digest format'],
    [`quay.io/ns/img@md5:${'a'.repeat(32)}`, 'unsupported digest algorithm'],
    [HEX, `invalid repository name (${HEX}), cannot specify 64-byte hexadecimal strings`],
    [`quay.io/${'a'.repeat(256)}:t`, 'repository name must not be more than 255 characters'],
    ['quay.io/-ns/img:tag', 'invalid reference format'],
  ];
  it.each(invalid)('rejects %j with a terminal error', (input, cause) => {
    let caught: unknown;
    try {
      parseImageReference(input);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(Error);
    expect((caught as Error).message).toBe(`error parsing image reference ${JSON.stringify(input)}: ${cause}`);
    expect(isTerminal(caught)).toBe(true);
  });
});

describe('requireTagOrDigest', () => {
  it('rejects a name without tag or digest, with the familiar name', () => {
    expect(() => requireTagOrDigest(parseImageReference('quay.io/ns/img'))).toThrow(
      'error creating reference: Docker reference quay.io/ns/img has neither a tag nor a digest',
    );
    expect(() => requireTagOrDigest(parseImageReference('docker.io/library/busybox'))).toThrow(
      'error creating reference: Docker reference busybox has neither a tag nor a digest',
    );
  });

  it('rejects tag and digest together', () => {
    const ref = parseImageReference(`quay.io/ns/img:v1@sha256:${HEX}`);
    expect(() => requireTagOrDigest(ref)).toThrow(
      'error creating reference: Docker references with both a tag and digest are currently not supported',
    );
    try {
      requireTagOrDigest(ref);
    } catch (err) {
      expect(isTerminal(err)).toBe(true);
    }
  });

  it('accepts a tag or a digest', () => {
    expect(() => requireTagOrDigest(parseImageReference('quay.io/ns/img:v1'))).not.toThrow();
    expect(() => requireTagOrDigest(parseImageReference(`quay.io/ns/img@sha256:${HEX}`))).not.toThrow();
  });
});

describe('canonical forms', () => {
  it('drops the tag in the canonical digest reference', () => {
    const ref = parseImageReference('quay.io/ns/img:v1');
    expect(canonicalReference(ref, `sha256:${HEX}`)).toBe(`quay.io/ns/img@sha256:${HEX}`);
  });

  it('shortens Docker Hub names', () => {
    expect(familiarReference(parseImageReference('docker.io/library/busybox:1'))).toBe('busybox:1');
    expect(familiarReference(parseImageReference('docker.io/ns/app:1'))).toBe('ns/app:1');
    expect(familiarReference(parseImageReference('quay.io/ns/app:1'))).toBe('quay.io/ns/app:1');
  });
});
