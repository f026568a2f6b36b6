import { describe, expect, it } from 'vitest';
import type { DeclarativeConfig } from '../../shared/fbc/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import { catalogSource, chainedPackage, mergedConfig } from '../../../test/support/extension-ports.ts';
import { clusterCatalogObject } from '../../../test/support/cluster-catalogs.ts';
import type { CatalogSource } from './catalogs.ts';
import { InstalledIndex } from './installed-index.ts';

function ce(name: string, version: string, generation = 1): KubeObject {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name, generation },
    spec: { namespace: name, serviceAccount: { name: 'installer' }, source: { sourceType: 'Catalog', catalog: { packageName: name } } },
    status: { install: { bundle: { name: `${name}.v${version}`, version } } },
  };
}

/** Packages a, b, c and `extra` more at 1.0.0 and 1.1.0; b's bundles require package a. */
function content(extra = 0): DeclarativeConfig {
  const names = ['a', 'b', 'c', ...Array.from({ length: extra }, (_, i) => `p${i}`)];
  const parts = names.map((p) => chainedPackage(p, ['1.0.0', '1.1.0']));
  for (const b of parts[1]?.bundles ?? []) b.properties.push({ type: 'olm.package.required', value: { packageName: 'a', versionRange: '>=1.0.0' } });
  return mergedConfig(parts);
}

/** A catalog source counting package lookups, its catalogs' digest changeable. */
function countingSource(extra = 0): { source: CatalogSource; lookups: () => number; newDigest: (digest: string) => void } {
  const base = catalogSource(content(extra));
  let lookups = 0;
  let catalogs = base.catalogs.list();
  const source: CatalogSource = {
    catalogs: { list: () => catalogs },
    content: {
      ...base.content,
      getPackage: (ref, name, signal) => {
        lookups++;
        return base.content.getPackage(ref, name, signal);
      },
    },
  };
  return { source, lookups: () => lookups, newDigest: (digest) => void (catalogs = [clusterCatalogObject('c', { digest })]) };
}

const names = (entries: readonly { name: string }[]): string[] => entries.map((e) => e.name);
const requirementsOf = async (index: InstalledIndex, source: CatalogSource, name: string) =>
  (await index.dependentsOf(source, undefined, '')).find((e) => e.name === name)?.requirements ?? [];

describe('InstalledIndex', () => {
  it('reads each installed bundle from the catalogs once, and again only for what changed', async () => {
    const { source, lookups, newDigest } = countingSource();
    const index = InstalledIndex.of([ce('a', '1.0.0'), ce('b', '1.0.0'), ce('c', '1.0.0')]);

    // b depends on a; a depends on nothing.
    expect(names(await index.dependentsOf(source, index.provided('a'), 'a'))).toEqual(['b']);
    expect(lookups()).toBe(3);
    const bNeeds = await requirementsOf(index, source, 'b');
    expect(bNeeds).toHaveLength(1);
    expect((await index.candidatesFor(source, bNeeds, 'b'))[0]?.candidate.source).toBe('ClusterExtension "a"');

    // Another check, nothing changed: no lookup at all.
    await index.dependentsOf(source, index.provided('c'), 'c');
    expect(lookups()).toBe(3);

    // c's object changed but not its installed bundle (a status write): still none.
    index.note('update', ce('c', '1.0.0', 2));
    await index.dependentsOf(source, undefined, 'a');
    expect(lookups()).toBe(3);

    // c upgraded: c alone is read again.
    index.note('update', ce('c', '1.1.0', 3));
    expect(index.provided('c')).toBeUndefined();
    await index.dependentsOf(source, undefined, 'a');
    expect(lookups()).toBe(4);
    expect(index.provided('c')).toEqual({ packages: ['c'], gvks: [] });

    // New catalog content: everyone is read again, once.
    newDigest(`sha256:${'b'.repeat(64)}`);
    await index.dependentsOf(source, undefined, 'a');
    expect(lookups()).toBe(7);
    await index.dependentsOf(source, undefined, 'a');
    expect(lookups()).toBe(7);
  });

  it('costs a check what its own dependencies name, not the number of installed extensions', async () => {
    const { source, lookups } = countingSource(500);
    const index = new InstalledIndex();
    for (let i = 0; i < 500; i++) index.note('add', ce(`p${i}`, '1.0.0'));
    for (const n of ['a', 'b', 'c']) index.note('add', ce(n, '1.0.0'));
    await index.dependentsOf(source, undefined, '');
    expect(lookups()).toBe(503);

    // An upgrade of p7: nobody depends on it; nothing read, nothing handed out.
    expect(await index.providedNow(source, 'p7', 'p7.v1.0.0')).toEqual({ packages: ['p7'], gvks: [] });
    expect(await index.dependentsOf(source, index.provided('p7'), 'p7')).toEqual([]);
    // An upgrade of a: its one dependent, checked against the one extension its requirement names.
    const dependents = await index.dependentsOf(source, index.provided('a'), 'a');
    expect(names(dependents)).toEqual(['b']);
    expect(names(await index.candidatesFor(source, dependents[0]?.requirements ?? [], 'b'))).toEqual(['a']);
    // 500 status writes and one upgrade: one lookup, for the upgrade.
    for (let i = 0; i < 500; i++) index.note('update', ce(`p${i}`, '1.0.0', 2));
    index.note('update', ce('p3', '1.1.0', 3));
    expect(await index.dependentsOf(source, index.provided('a'), 'a')).toHaveLength(1);
    expect(lookups()).toBe(504);
  });

  it('drops extensions deleted or not installed', async () => {
    const { source } = countingSource();
    const notInstalled: KubeObject = { ...ce('c', '1.0.0'), status: {} };
    const index = InstalledIndex.of([ce('a', '1.0.0'), ce('b', '1.0.0'), notInstalled]);
    const bNeeds = await requirementsOf(index, source, 'b');
    expect(names(await index.candidatesFor(source, [...bNeeds, ...bNeeds], 'x'))).toEqual(['a']);
    expect(names(await index.dependentsOf(source, undefined, 'x'))).toEqual(['b']);
    index.note('delete', ce('b', '1.0.0'));
    expect(await index.dependentsOf(source, undefined, 'x')).toEqual([]);
    index.note('delete', ce('a', '1.0.0'));
    expect(await index.candidatesFor(source, bNeeds, 'x')).toEqual([]);
  });

  it('knows a bundle the catalogs do not have by its package and version, and asks for it again next time', async () => {
    const { source, lookups } = countingSource();
    const index = InstalledIndex.of([ce('a', '9.9.9'), ce('b', '1.0.0')]);
    const bNeeds = await requirementsOf(index, source, 'b');
    const [gone] = await index.candidatesFor(source, bNeeds, 'x');
    expect(gone?.candidate.properties).toEqual([{ type: 'olm.package', value: { packageName: 'a', version: '9.9.9' } }]);
    expect(gone?.requirements).toEqual([]);
    await index.candidatesFor(source, bNeeds, 'x');
    expect(lookups()).toBe(4);
  });
});
