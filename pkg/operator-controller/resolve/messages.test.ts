import { describe, expect, it } from 'vitest';
import { catalogCacheFailed, catalogNilResolvedImage, catalogNilResolvedSource, catalogNotServed } from './index.ts';
import { getPackageFailed, resolutionFailed, versionRangeInvalid } from './messages.ts';

describe('error texts', () => {
  it.each<[string, string]>([
    [versionRangeInvalid('foobar', 'improper constraint: "foobar"'), 'desired version range "foobar" is invalid: improper constraint: "foobar"'],
    [getPackageFailed('foo', 'a', 'fake error'), 'error walking catalogs: error getting package "foo" from catalog "a": fake error'],
    [catalogNotServed('a'), 'catalog "a" is not being served'],
    [catalogNilResolvedSource('a'), 'error: catalog "a" has a nil status.resolvedSource value'],
    [catalogNilResolvedImage('a'), 'error: catalog "a" has a nil status.resolvedSource.image value'],
    [catalogCacheFailed('a', 'boom'), 'error retrieving cache for catalog "a": boom'],
  ])('%s', (got, want) => {
    expect(got).toBe(want);
  });

  it.each<[Parameters<typeof resolutionFailed>[0], string]>([
    [
      { packageName: 'test', versionRange: '', channels: [], installedVersion: undefined, catalogs: ['test', 'extra'] },
      'found bundles for package "test" in multiple catalogs with the same priority [extra test]',
    ],
    [
      { packageName: 'test', versionRange: '1.2.0', channels: [], installedVersion: '1.0.0', catalogs: [] },
      'error upgrading from currently installed version "1.0.0": no bundles found for package "test" matching version "1.2.0"',
    ],
    [
      { packageName: 'foo', versionRange: '', channels: ['beta', 'alpha'], installedVersion: undefined, catalogs: ['only'] },
      'no bundles found for package "foo" in channels [beta alpha]',
    ],
  ])('builds %j', (failure, want) => {
    expect(resolutionFailed(failure)).toBe(want);
  });
});
