import { describe, expect, it } from 'vitest';
import type { DeclarativeConfig } from '../../shared/fbc/types.ts';
import { packagePartition } from './index.ts';
import { bundle, channel, deprecation } from '../../../test/support/fbc-builders.ts';

const catalog: DeclarativeConfig = {
  packages: [
    { schema: 'olm.package', name: 'foo', defaultChannel: 'stable' },
    { schema: 'olm.package', name: 'bar', defaultChannel: 'stable' },
  ],
  channels: [channel('stable', [{ name: 'foo.v1' }]), channel('stable', [{ name: 'bar.v1' }], 'bar'), channel('fast', [{ name: 'foo.v2' }])],
  bundles: [
    bundle('foo.v1', '1.0.0'),
    bundle('bar.v1', '1.0.0', { pkg: 'bar' }),
    bundle('foo.v2', '2.0.0'),
    // A later document in the same slot replaces the earlier one, keeping its position.
    { ...bundle('foo.v1', '1.0.1'), image: 'registry.example/foo/v1:second' },
  ],
  deprecations: [deprecation([['olm.package', undefined, 'first']]), deprecation([['olm.package', undefined, 'second']])],
  others: [
    { schema: 'x.thing', package: 'foo', name: '', blob: '{"a":1}\n' },
    { schema: 'x.thing', package: 'foo', name: '', blob: '{"a":2}\n' },
    { schema: 'x.other', package: 'bar', name: 'n', blob: '{}\n' },
  ],
};

describe('packagePartition', () => {
  const p = packagePartition(catalog, 'foo');

  it('keeps only the package’s documents', () => {
    expect(p.packages.map((x) => x.name)).toEqual(['foo']);
    expect(p.channels.map((c) => `${c.package}/${c.name}`)).toEqual(['foo/stable', 'foo/fast']);
  });

  it('keeps one document per (schema, name), the last one, at the first position', () => {
    expect(p.bundles.map((b) => b.name)).toEqual(['foo.v1', 'foo.v2']);
    expect(p.bundles[0]?.image).toBe('registry.example/foo/v1:second');
  });

  it('keeps a single deprecations object: the last one', () => {
    expect(p.deprecations.map((d) => d.entries[0]?.message)).toEqual(['second']);
  });

  it('slots nameless other documents by their schema', () => {
    expect(p.others.map((m) => m.blob)).toEqual(['{"a":2}\n']);
  });

  it('gives an empty partition for an unknown package and leaves the input alone', () => {
    const empty = packagePartition(catalog, 'nope');
    expect([empty.packages, empty.channels, empty.bundles, empty.deprecations, empty.others]).toEqual([[], [], [], [], []]);
    expect(catalog.bundles).toHaveLength(4);
  });
});
