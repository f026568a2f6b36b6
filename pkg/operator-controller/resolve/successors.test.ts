import { describe, expect, it } from 'vitest';
import { upgradeSuccessors } from './index.ts';
import { bundle, channel, deprecation, partition } from '../../../test/support/fbc-builders.ts';
import type { ResolveInput } from './types.ts';

const catalog = partition({
  channels: [
    channel('stable', [
      { name: 'foo.v1.0.0' },
      { name: 'foo.v1.0.1', replaces: 'foo.v1.0.0' },
      { name: 'foo.v1.1.0', replaces: 'foo.v1.0.1', skips: ['foo.v1.0.0'] },
      { name: 'foo.v1.2.0', skipRange: '>=1.0.0 <1.2.0' },
    ]),
    channel('fast', [{ name: 'foo.v2.0.0', replaces: 'foo.v1.0.0' }]),
  ],
  bundles: [
    bundle('foo.v1.0.0', '1.0.0'),
    bundle('foo.v1.0.1', '1.0.1'),
    bundle('foo.v1.1.0', '1.1.0'),
    bundle('foo.v1.2.0', '1.2.0'),
    bundle('foo.v2.0.0', '2.0.0'),
  ],
  deprecations: [deprecation([['olm.bundle', 'foo.v1.1.0', 'use 1.2.0']])],
});

function rows(input: Partial<ResolveInput>): string[] {
  return upgradeSuccessors({
    packageName: 'foo',
    installed: { name: 'foo.v1.0.0', version: '1.0.0' },
    catalogs: [{ name: 'c', priority: 0, package: catalog }],
    ...input,
  }).map(
    (s) =>
      `${s.catalog}/${s.channel ?? '-'} ${s.bundle} ${s.version} ${s.edge}${s.skipRange === undefined ? '' : ` ${s.skipRange}`}${s.inRange ? '' : ' out-of-range'}${s.deprecated ? ' deprecated' : ''}`,
  );
}

describe('upgradeSuccessors', () => {
  it('lists each edge from the installed bundle, highest version first', () => {
    expect(rows({})).toEqual([
      'c/fast foo.v2.0.0 2.0.0 replaces',
      'c/stable foo.v1.2.0 1.2.0 skipRange >=1.0.0 <1.2.0',
      'c/stable foo.v1.1.0 1.1.0 skips deprecated',
      'c/stable foo.v1.0.1 1.0.1 replaces',
    ]);
  });

  it('keeps to the selected channels and marks what the version range leaves out', () => {
    expect(rows({ channels: ['stable'], versionRange: '<1.2.0' })).toEqual([
      'c/stable foo.v1.2.0 1.2.0 skipRange >=1.0.0 <1.2.0 out-of-range',
      'c/stable foo.v1.1.0 1.1.0 skips deprecated',
      'c/stable foo.v1.0.1 1.0.1 replaces',
    ]);
  });

  it('SelfCertified: every higher version of the selected channels', () => {
    expect(rows({ channels: ['stable'], upgradeConstraintPolicy: 'SelfCertified', installed: { name: 'foo.v1.0.1', version: '1.0.1' } })).toEqual([
      'c/stable foo.v1.2.0 1.2.0 SelfCertified',
      'c/stable foo.v1.1.0 1.1.0 SelfCertified deprecated',
    ]);
  });

  it('nothing installed, an unparsable installed version, catalogs without the package or failing: none', () => {
    expect(rows({ installed: null })).toEqual([]);
    expect(rows({ installed: { name: 'foo.v1.0.0', version: 'not-semver' } })).toEqual([]);
    expect(
      rows({
        catalogs: [
          { name: 'c', priority: 0, package: null },
          { name: 'd', error: 'not served' },
        ],
      }),
    ).toEqual([]);
  });

  it('an edge to a bundle the catalog does not have is listed without a version, last', () => {
    const broken = partition({
      channels: [
        channel('stable', [
          { name: 'foo.v9', replaces: 'foo.v1.0.0' },
          { name: 'foo.v1.0.1', replaces: 'foo.v1.0.0' },
        ]),
      ],
      bundles: [bundle('foo.v1.0.1', '1.0.1')],
    });
    expect(rows({ catalogs: [{ name: 'c', priority: 0, package: broken }] })).toEqual([
      'c/stable foo.v1.0.1 1.0.1 replaces',
      'c/stable foo.v9  replaces',
    ]);
  });
});
