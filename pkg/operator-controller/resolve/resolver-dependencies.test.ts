import { describe, expect, it } from 'vitest';
import type { Bundle } from '../../shared/fbc/types.ts';
import { resolve } from './resolver.ts';
import { bundle, channel, partition } from '../../../test/support/fbc-builders.ts';

const needsEtcd = (name: string, version: string): Bundle =>
  bundle(name, version, { properties: [{ type: 'olm.package.required', value: { packageName: 'etcd', versionRange: '>=3.0.0' } }] });

const catalog = partition({
  channels: [
    channel('stable', [{ name: 'foo.v1.0.0' }, { name: 'foo.v1.1.0', replaces: 'foo.v1.0.0' }, { name: 'foo.v2.0.0', replaces: 'foo.v1.1.0' }]),
  ],
  bundles: [bundle('foo.v1.0.0', '1.0.0'), needsEtcd('foo.v1.1.0', '1.1.0'), needsEtcd('foo.v2.0.0', '2.0.0')],
});

describe('resolve with a dependency check (decision 0104)', () => {
  it("refuses a bundle that declares dependencies with upstream's text when no check is given", () => {
    const r = resolve({ packageName: 'foo', catalogs: [{ name: 'c', priority: 0, package: catalog }] });
    expect(r).toEqual({
      ok: false,
      error:
        'validating bundle "foo.v2.0.0": bundle "foo.v2.0.0" has a dependency declared via property "olm.package.required" which is currently not supported',
    });
  });

  it('takes the highest bundle when its dependencies are met, asking only about the winner', () => {
    const asked: string[] = [];
    const r = resolve({
      packageName: 'foo',
      catalogs: [{ name: 'c', priority: 0, package: catalog }],
      dependencies: (b) => {
        asked.push(b.name);
        return undefined;
      },
    });
    expect(r.ok && r.value.bundle.name).toBe('foo.v2.0.0');
    expect(r.ok && r.value.passedOver).toEqual([]);
    expect(asked).toEqual(['foo.v2.0.0']);
  });

  it('falls back to the best bundle whose dependencies are met, and says which it passed over', () => {
    const r = resolve({
      packageName: 'foo',
      catalogs: [{ name: 'c', priority: 0, package: catalog }],
      dependencies: (b) => (b.name === 'foo.v2.0.0' ? 'etcd too old for 2.0.0' : undefined),
    });
    expect(r.ok && r.value.bundle.name).toBe('foo.v1.1.0');
    expect(r.ok && r.value.passedOver).toEqual([{ bundle: 'foo.v2.0.0', catalog: 'c', reason: 'etcd too old for 2.0.0' }]);
  });

  it('goes below the declaring bundles to one without dependencies', () => {
    const declares = (b: Bundle): boolean => b.properties.some((p) => p.type === 'olm.package.required');
    const r = resolve({
      packageName: 'foo',
      catalogs: [{ name: 'c', priority: 0, package: catalog }],
      dependencies: (b) => (declares(b) ? `unmet ${b.name}` : undefined),
    });
    expect(r.ok && r.value.bundle.name).toBe('foo.v1.0.0');
    expect(r.ok && r.value.passedOver.map((p) => p.bundle)).toEqual(['foo.v2.0.0', 'foo.v1.1.0']);
  });

  it("reports the best bundle's reason when no bundle in range is left", () => {
    const r = resolve({
      packageName: 'foo',
      versionRange: '>=1.1.0',
      catalogs: [{ name: 'c', priority: 0, package: catalog }],
      dependencies: (b) => `unmet ${b.name}`,
    });
    expect(r).toEqual({ ok: false, error: 'unmet foo.v2.0.0' });
  });

  it('keeps the upgrade edges: a passed-over successor does not open a path that has no edge', () => {
    const r = resolve({
      packageName: 'foo',
      installed: { name: 'foo.v1.1.0', version: '1.1.0' },
      catalogs: [{ name: 'c', priority: 0, package: catalog }],
      dependencies: (b) => (b.name === 'foo.v2.0.0' ? 'unmet' : undefined),
    });
    // 2.0.0 is refused; the installed 1.1.0 itself is what remains.
    expect(r.ok && r.value.bundle.name).toBe('foo.v1.1.0');
  });

  it('never falls back below the installed bundle, even where SelfCertified allows any version', () => {
    const r = resolve({
      packageName: 'foo',
      installed: { name: 'foo.v1.1.0', version: '1.1.0' },
      upgradeConstraintPolicy: 'SelfCertified',
      catalogs: [{ name: 'c', priority: 0, package: catalog }],
      dependencies: (b) => `unmet ${b.name}`,
    });
    expect(r).toEqual({ ok: false, error: 'unmet foo.v2.0.0' });
  });
});
