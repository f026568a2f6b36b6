import { describe, expect, it } from 'vitest';
import { imageReferenceError } from './image-ref.ts';
import { dns1123LabelErrors } from '../k8sname/index.ts';

describe('DNS-1123 labels', () => {
  const regexMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  it.each<[string, string[]]>([
    ['my-operator', []],
    ['a.b', ['must not contain dots']],
    ['Foo', [regexMsg]],
    ['-x', [regexMsg]],
    ['a'.repeat(64), ['must be no more than 63 characters']],
    [`${'a'.repeat(63)}.b`, ['must be no more than 63 characters', 'must not contain dots']],
  ])('%s', (name, want) => {
    expect(dns1123LabelErrors(name)).toEqual(want);
  });
});

describe('image references (ParseNormalizedNamed)', () => {
  const hex = 'a'.repeat(64);
  it.each<[string, string | undefined]>([
    ['quay.io/ns/img:tag', undefined],
    ['busybox', undefined],
    ['localhost:5000/img', undefined],
    [`name:tag@sha256:${hex}`, undefined],
    [`quay.io/ns/img@sha512:${'b'.repeat(128)}`, undefined],
    ['quay.io/NS/img:tag', 'invalid reference format: repository name must be lowercase'],
    ['Quay.io/ns/img', undefined], // the domain may be upper case
    [hex, `invalid repository name (${hex}), cannot specify 64-byte hexadecimal strings`],
    ['quay.io/ns/img:', 'invalid reference format'],
    ['quay.io/ns/img:-tag', 'invalid reference format'],
    [`quay.io/ns/img@ssha256:${hex}`, 'unsupported digest algorithm'],
    [`quay.io/ns/img@md5:${'c'.repeat(32)}`, 'unsupported digest algorithm'],
    [`quay.io/ns/img@sha256:${'a'.repeat(63)}`, 'invalid checksum digest length'],
    [`quay.io/ns/img@sha256:${'A'.repeat(64)}`, 'invalid checksum digest format'],
    [`quay.io/${'a'.repeat(250)}`, 'repository name must not be more than 255 characters'],
    ['quay.io/ns/img:tag with space', 'invalid reference format'],
  ])('%s', (ref, want) => {
    expect(imageReferenceError(ref)).toBe(want);
  });
});
