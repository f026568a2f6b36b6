import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFS } from '../../shared/fbc/index.ts';
import type { Bundle, DeclarativeConfig } from '../../shared/fbc/types.ts';
import { dependencyClosure } from './closure.ts';
import { DEFAULT_LIMITS } from './limits.ts';

const docs: DeclarativeConfig = await loadFS(join(import.meta.dirname, 'testdata', 'docs-examples'));
const catalogs = [{ name: 'docs', priority: 0, content: [docs] }];
const named = (name: string): Bundle => {
  const b = docs.bundles.find((x) => x.name === name);
  if (b === undefined) throw new Error(name);
  return b;
};

describe('dependencyClosure', () => {
  it("lists each requirement with the catalogs' providers, best first", () => {
    expect(dependencyClosure(named('app.package-range'), catalogs, DEFAULT_LIMITS)).toEqual([
      {
        bundle: 'app.package-range',
        property: 'olm.package.required',
        requirement: 'package "etcd" in range ">3.1.0"',
        providers: [{ catalog: 'docs', packageName: 'etcd', bundle: 'etcd.v3.2.0', version: '3.2.0' }],
      },
    ]);
    const any = dependencyClosure(named('app.any'), catalogs, DEFAULT_LIMITS);
    expect(any[0]?.providers.map((p) => p.bundle)).toEqual(['blue.v1.1.0', 'blue.v1.0.0', 'blue.v0.9.0']);
    expect(any[0]?.failureMessage).toBe('Any required constraint to be satisfied');
  });

  it('follows the preferred provider’s own requirements, once per bundle, cycles included', () => {
    const cyclic: Bundle = {
      ...named('etcd.v3.2.0'),
      properties: [...named('etcd.v3.2.0').properties, { type: 'olm.package.required', value: { packageName: 'app', versionRange: '1.0.0' } }],
    };
    const withCycle: DeclarativeConfig = { ...docs, bundles: docs.bundles.map((b) => (b.name === cyclic.name ? cyclic : b)) };
    const out = dependencyClosure(named('app.package-range'), [{ name: 'docs', priority: 0, content: [withCycle] }], DEFAULT_LIMITS);
    expect(out.map((e) => `${e.bundle} -> ${e.providers[0]?.bundle ?? 'nothing'}`)).toEqual([
      'app.package-range -> etcd.v3.2.0',
      'etcd.v3.2.0 -> app.package-range',
    ]);
    expect(out).toHaveLength(2);
  });

  it('reports a requirement nothing offers, and a malformed declaration', () => {
    const lonely: Bundle = {
      ...named('app.gvk'),
      properties: [{ type: 'olm.gvk.required', value: { group: 'nope.example.com', version: 'v1', kind: 'Nope' } }],
    };
    expect(dependencyClosure(lonely, catalogs, DEFAULT_LIMITS)).toMatchObject([{ requirement: 'API nope.example.com/v1 Nope', providers: [] }]);
    const bad: Bundle = { ...lonely, properties: [{ type: 'olm.constraint', value: {} }] };
    expect(dependencyClosure(bad, catalogs, DEFAULT_LIMITS)[0]?.error).toContain('property olm.constraint #0');
  });
});
