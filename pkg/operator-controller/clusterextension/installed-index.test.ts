import { describe, expect, it } from 'vitest';
import type { DeclarativeConfig } from '../../shared/fbc/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import { catalogSource, chainedPackage } from '../../../test/support/extension-ports.ts';
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

/** Packages a, b and c at 1.0.0 and 1.1.0; b's bundles require package a. */
function content(): DeclarativeConfig {
  const parts = ['a', 'b', 'c'].map((p) => chainedPackage(p, ['1.0.0', '1.1.0']));
  for (const b of parts[1]?.bundles ?? []) b.properties.push({ type: 'olm.package.required', value: { packageName: 'a', versionRange: '>=1.0.0' } });
  return {
    packages: parts.flatMap((p) => p.packages),
    channels: parts.flatMap((p) => p.channels),
    bundles: parts.flatMap((p) => p.bundles),
    deprecations: [],
    others: [],
  };
}

/** A catalog source counting package lookups, its catalogs' digest changeable. */
function countingSource(): { source: CatalogSource; lookups: () => number; newDigest: (digest: string) => void } {
  const base = catalogSource(content());
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

describe('InstalledIndex', () => {
  it('reads each installed bundle from the catalogs once, and again only for what changed', async () => {
    const { source, lookups, newDigest } = countingSource();
    let objects = [ce('a', '1.0.0'), ce('b', '1.0.0'), ce('c', '1.0.0')];
    const extensions = { list: () => objects };
    const index = new InstalledIndex();

    const first = await index.others(extensions, source, 'a');
    expect(first.map((e) => e.name)).toEqual(['b', 'c']);
    expect(first.map((e) => e.requirements.length)).toEqual([1, 0]);
    expect(first[0]?.candidate.source).toBe('ClusterExtension "b"');
    expect(lookups()).toBe(3);

    // Another upgrade's check, nothing changed: no lookup at all.
    await index.others(extensions, source, 'c');
    expect(lookups()).toBe(3);

    // c's object changed but not its installed bundle (a status write): still none.
    objects = [objects[0]!, objects[1]!, ce('c', '1.0.0', 2)];
    await index.others(extensions, source, 'a');
    expect(lookups()).toBe(3);

    // c upgraded: c alone is read again.
    objects = [objects[0]!, objects[1]!, ce('c', '1.1.0', 3)];
    const upgraded = await index.others(extensions, source, 'a');
    expect(lookups()).toBe(4);
    expect(upgraded[1]?.candidate.properties).toEqual([{ type: 'olm.package', value: { packageName: 'c', version: '1.1.0' } }]);

    // New catalog content: everyone is read again, once.
    newDigest(`sha256:${'b'.repeat(64)}`);
    await index.others(extensions, source, 'a');
    expect(lookups()).toBe(7);
    await index.others(extensions, source, 'a');
    expect(lookups()).toBe(7);
  });

  it('drops extensions gone from the informer and those not installed', async () => {
    const { source } = countingSource();
    const notInstalled: KubeObject = { ...ce('c', '1.0.0'), status: {} };
    let objects = [ce('a', '1.0.0'), ce('b', '1.0.0'), notInstalled];
    const index = new InstalledIndex();
    expect((await index.others({ list: () => objects }, source, 'x')).map((e) => e.name)).toEqual(['a', 'b']);
    objects = [ce('a', '1.0.0')];
    expect((await index.others({ list: () => objects }, source, 'x')).map((e) => e.name)).toEqual(['a']);
  });

  it('knows a bundle the catalogs do not have by its package and version, and asks for it again next time', async () => {
    const { source, lookups } = countingSource();
    const index = new InstalledIndex();
    const objects = [ce('a', '9.9.9')];
    const [gone] = await index.others({ list: () => objects }, source, 'x');
    expect(gone?.candidate.properties).toEqual([{ type: 'olm.package', value: { packageName: 'a', version: '9.9.9' } }]);
    expect(gone?.requirements).toEqual([]);
    await index.others({ list: () => objects }, source, 'x');
    expect(lookups()).toBe(2);
  });
});
