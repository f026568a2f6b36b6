import { describe, expect, it } from 'vitest';
import type { Bundle, DeclarativeConfig } from '../../shared/fbc/types.ts';
import { resolve, type CatalogInput, type ResolveInput } from './index.ts';
import { formatLegacyVersion } from './release.ts';
import { bundle, channel, deprecation, partition } from '../../../test/support/fbc-builders.ts';

// stable: 1.0.0 -> 1.0.1 -> 2.0.0; beta: 2.0.0 -> 2.1.0-rc.1 -> 3.0.0; 0.5.0 is in no channel.
const FOO = partition({
  channels: [
    channel('stable', [{ name: 'foo.v1.0.0' }, { name: 'foo.v1.0.1', replaces: 'foo.v1.0.0' }, { name: 'foo.v2.0.0', replaces: 'foo.v1.0.1' }]),
    channel('beta', [
      { name: 'foo.v2.0.0' },
      { name: 'foo.v2.1.0-rc.1', replaces: 'foo.v2.0.0' },
      { name: 'foo.v3.0.0', replaces: 'foo.v2.1.0-rc.1' },
    ]),
  ],
  bundles: [
    bundle('foo.v0.5.0', '0.5.0'),
    bundle('foo.v1.0.0', '1.0.0'),
    bundle('foo.v1.0.1', '1.0.1'),
    bundle('foo.v2.0.0', '2.0.0'),
    bundle('foo.v2.1.0-rc.1', '2.1.0-rc.1'),
    bundle('foo.v3.0.0', '3.0.0'),
  ],
});

function one(fbc: DeclarativeConfig | null, name = 'cat'): CatalogInput[] {
  return [{ name, priority: 0, package: fbc }];
}

function run(input: Partial<ResolveInput>): string {
  const r = resolve({ packageName: 'foo', catalogs: one(FOO), ...input });
  return r.ok ? r.value.bundle.name : `error: ${r.error}`;
}

describe('resolve: filters in one catalog', () => {
  it.each<[string, Partial<ResolveInput>, string]>([
    ['no filters: highest version of any channel', {}, 'foo.v3.0.0'],
    ['version pin', { versionRange: '1.0.1' }, 'foo.v1.0.1'],
    ['version range', { versionRange: '>=1.0.0 <2.0.0' }, 'foo.v1.0.1'],
    ['range excludes pre-releases', { versionRange: '>=2.0.0 <3.0.0' }, 'foo.v2.0.0'],
    ['range with a pre-release includes them', { versionRange: '>=2.0.0-0 <3.0.0' }, 'foo.v2.1.0-rc.1'],
    ['channel', { channels: ['stable'] }, 'foo.v2.0.0'],
    ['channel and version (the range gates pre-releases out)', { channels: ['beta'], versionRange: '<3.0.0' }, 'foo.v2.0.0'],
    ['several channels', { channels: ['stable', 'beta'] }, 'foo.v3.0.0'],
    ['a missing channel name is ignored', { channels: ['nope', 'stable'] }, 'foo.v2.0.0'],
    ['bundles in no channel are candidates without channels', { versionRange: '<1.0.0' }, 'foo.v0.5.0'],
  ])('%s', (_, input, want) => {
    expect(run(input)).toBe(want);
  });

  it('picks a pre-release when it is the highest and no range is set', () => {
    const fbc = partition({ bundles: [bundle('foo.v1.0.0', '1.0.0'), bundle('foo.v2.0.0-rc.1', '2.0.0-rc.1')] });
    expect(run({ catalogs: one(fbc) })).toBe('foo.v2.0.0-rc.1');
  });
});

describe('resolve: "no bundles found" messages', () => {
  it.each<[string, Partial<ResolveInput>, string]>([
    ['package missing', { catalogs: one(null) }, 'no bundles found for package "foo"'],
    ['no catalogs at all', { catalogs: [] }, 'no bundles found for package "foo"'],
    ['version missing', { versionRange: '4.0.0' }, 'no bundles found for package "foo" matching version "4.0.0"'],
    ['channel missing', { channels: ['nope'] }, 'no bundles found for package "foo" in channels [nope]'],
    [
      'channel missing in the catalog',
      { channels: ['stable'], catalogs: one(partition({ bundles: [bundle('foo.v1', '1.0.0')] })) },
      'no bundles found for package "foo" in channels [stable]',
    ],
    [
      'version missing in the channel',
      {
        channels: ['beta'],
        versionRange: '3.0.0',
        catalogs: one(partition({ channels: [channel('beta', [{ name: 'foo.v1' }])], bundles: [bundle('foo.v1', '1.0.0')] })),
      },
      'no bundles found for package "foo" matching version "3.0.0" in channels [beta]',
    ],
    [
      'version outside the channel',
      { channels: ['stable'], versionRange: '3.0.0' },
      'no bundles found for package "foo" matching version "3.0.0" in channels [stable]',
    ],
    [
      'channels listed in spec order',
      { channels: ['beta', 'alpha'], versionRange: '9.0.0' },
      'no bundles found for package "foo" matching version "9.0.0" in channels [beta alpha]',
    ],
  ])('%s', (_, input, want) => {
    expect(run(input)).toBe(`error: ${want}`);
  });

  it('skips a partition holding only other documents without error', () => {
    const others: DeclarativeConfig = { ...partition({}), packages: [], others: [{ schema: 'x', package: 'foo', name: 'n', blob: '{}\n' }] };
    expect(run({ catalogs: one(others) })).toBe('error: no bundles found for package "foo"');
  });
});

describe('resolve: errors raised before and after choosing', () => {
  it('E-range is reported before any catalog is looked at', () => {
    const catalogs: CatalogInput[] = [{ name: 'broken', error: 'catalog "broken" is not being served' }];
    expect(run({ versionRange: 'foobar', catalogs })).toBe('error: desired version range "foobar" is invalid: improper constraint: "foobar"');
  });

  it('E-walk-2: one unreachable catalog fails the whole resolution', () => {
    const catalogs: CatalogInput[] = [
      { name: 'good', priority: 0, package: FOO },
      { name: 'broken', error: 'catalog "broken" is not being served' },
    ];
    expect(run({ catalogs })).toBe(
      'error: error walking catalogs: error getting package "foo" from catalog "broken": catalog "broken" is not being served',
    );
  });

  it('E-ver: the chosen bundle has no usable version', () => {
    const noProp: Bundle = { ...bundle('foo.noprop', '1.0.0'), properties: [] };
    expect(run({ catalogs: one(partition({ bundles: [noProp] })) })).toBe(
      'error: error getting resolved bundle version for bundle "foo.noprop": no package property found in bundle "foo.noprop"',
    );
    expect(run({ catalogs: one(partition({ bundles: [bundle('foo.bad', '1.0')] })) })).toBe(
      'error: error getting resolved bundle version for bundle "foo.bad": No Major.Minor.Patch elements found',
    );
  });

  it('sorts unparsable versions after every valid one', () => {
    const fbc = partition({ bundles: [bundle('foo.bad', 'v9.0.0'), bundle('foo.v0.1.0', '0.1.0')] });
    expect(run({ catalogs: one(fbc) })).toBe('foo.v0.1.0');
  });

  it('E-dep: a chosen bundle with dependencies is rejected, not skipped', () => {
    const fbc = partition({
      bundles: [
        bundle('foo.v1.0.0', '1.0.0'),
        bundle('foo.v2.0.0', '2.0.0', {
          properties: [
            { type: 'olm.gvk', value: { group: 'g', kind: 'K', version: 'v1' } },
            { type: 'olm.gvk.required', value: { group: 'g', kind: 'K', version: 'v1' } },
            { type: 'olm.package.required', value: { packageName: 'bar', versionRange: '>=1' } },
          ],
        }),
      ],
    });
    expect(run({ catalogs: one(fbc) })).toBe(
      'error: validating bundle "foo.v2.0.0": bundle "foo.v2.0.0" has a dependency declared via property "olm.gvk.required" which is currently not supported',
    );
    expect(run({ catalogs: one(fbc), versionRange: '1.x' })).toBe('foo.v1.0.0');
  });

  it.each(['olm.package.required', 'olm.constraint'])('E-dep also covers %s', (type) => {
    const fbc = partition({ bundles: [bundle('foo.v1.0.0', '1.0.0', { properties: [{ type, value: {} }] })] });
    expect(run({ catalogs: one(fbc) })).toBe(
      `error: validating bundle "foo.v1.0.0": bundle "foo.v1.0.0" has a dependency declared via property "${type}" which is currently not supported`,
    );
  });
});

describe('resolve: ordering inside one catalog', () => {
  it('prefers any non-deprecated bundle over a deprecated higher one', () => {
    const dep = deprecation([['olm.bundle', 'foo.v3.0.0', 'use 0.x']]);
    const r = resolve({ packageName: 'foo', catalogs: one({ ...FOO, deprecations: [dep] }) });
    expect(r.ok && r.value.bundle.name).toBe('foo.v2.1.0-rc.1');
    expect(r.ok && r.value.deprecation).toEqual(dep);
  });

  it('picks the highest deprecated bundle when every candidate is deprecated', () => {
    const dep = deprecation([
      ['olm.bundle', 'foo.v1.0.0', ''],
      ['olm.bundle', 'foo.v1.0.1', ''],
    ]);
    expect(run({ catalogs: one({ ...FOO, deprecations: [dep] }), versionRange: '1.x' })).toBe('foo.v1.0.1');
  });

  it('ignores package and channel deprecations when choosing', () => {
    const dep = deprecation([
      ['olm.package', undefined, 'gone'],
      ['olm.channel', 'beta', 'gone'],
    ]);
    expect(run({ catalogs: one({ ...FOO, deprecations: [dep] }) })).toBe('foo.v3.0.0');
  });

  it('breaks release ties: 1.0.0+2 > 1.0.0+1 > 1.0.0', () => {
    const fbc = partition({
      bundles: [bundle('foo.a', '1.0.0+1'), bundle('foo.b', '1.0.0+2'), bundle('foo.c', '1.0.0')],
    });
    const r = resolve({ packageName: 'foo', catalogs: one(fbc) });
    expect(r.ok && r.value.bundle.name).toBe('foo.b');
    expect(r.ok && formatLegacyVersion(r.value.versionRelease)).toBe('1.0.0+2');
  });

  it('orders equal versions by bundle name (decision 0030), whatever the input order', () => {
    const bundles = [bundle('foo.z', '1.0.0+001'), bundle('foo.m', '1.0.0+002'), bundle('foo.q', '1.0.0')];
    for (const order of [bundles, [...bundles].reverse()]) {
      expect(run({ catalogs: one(partition({ bundles: order })) })).toBe('foo.m');
    }
  });
});
