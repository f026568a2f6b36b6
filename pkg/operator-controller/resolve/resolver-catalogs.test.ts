import { describe, expect, it } from 'vitest';
import type { Bundle, DeclarativeConfig, Deprecation } from '../../shared/fbc/types.ts';
import { resolve, type CatalogInput, type ResolveInput } from './index.ts';
import { bundle, deprecation, partition } from '../../../test/support/fbc-builders.ts';

function pkg(bundles: Bundle[], deps: Deprecation[] = []): DeclarativeConfig {
  return partition({ bundles, deprecations: deps });
}

function cat(name: string, priority: number, fbc: DeclarativeConfig | null): CatalogInput {
  return { name, priority, package: fbc };
}

function run(catalogs: CatalogInput[], extra: Partial<ResolveInput> = {}): string {
  const r = resolve({ packageName: 'foo', catalogs, ...extra });
  return r.ok ? `${r.value.catalog}/${r.value.bundle.name}` : `error: ${r.error}`;
}

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((x, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [x, ...rest]));
}

describe('several catalogs', () => {
  it('picks the strictly higher priority, even with a lower version', () => {
    const catalogs = [cat('a', 1, pkg([bundle('foo.v1', '1.0.0')])), cat('b', 0, pkg([bundle('foo.v2', '2.0.0')]))];
    for (const order of permutations(catalogs)) expect(run(order)).toBe('a/foo.v1');
  });

  it('accepts negative priorities', () => {
    const catalogs = [cat('a', -5, pkg([bundle('foo.v1', '1.0.0')])), cat('b', -10, pkg([bundle('foo.v2', '2.0.0')]))];
    expect(run(catalogs)).toBe('a/foo.v1');
  });

  it('never breaks an equal-priority tie by version', () => {
    const catalogs = [cat('b', 0, pkg([bundle('foo.v2', '2.0.0')])), cat('a', 0, pkg([bundle('foo.v1', '1.0.0')]))];
    expect(run(catalogs)).toBe('error: found bundles for package "foo" in multiple catalogs with the same priority [a b]');
  });

  it('names every remaining catalog in the ambiguity error, lower priorities included', () => {
    const b = (v: string) => pkg([bundle(`foo.v${v}`, v)]);
    const catalogs = [cat('c', 1, b('1.0.1')), cat('a', 1, b('1.0.0')), cat('b', 0, b('1.0.1'))];
    expect(run(catalogs, { versionRange: '>=1.0.0 <=1.0.1' })).toBe(
      'error: found bundles for package "foo" matching version ">=1.0.0 <=1.0.1" in multiple catalogs with the same priority [a b c]',
    );
  });

  it('builds the full ambiguity message with every part', () => {
    const b = partition({
      channels: [{ schema: 'olm.channel', name: 'stable', package: 'foo', entries: [{ name: 'foo.v1' }] }],
      bundles: [bundle('foo.v1', '1.0.0')],
    });
    expect(
      run([cat('x', 0, b), cat('test', 0, b)], {
        channels: ['stable'],
        versionRange: '1.0.0',
        installed: { name: 'foo.v1', version: '1.0.0' },
      }),
    ).toBe(
      'error: error upgrading from currently installed version "1.0.0": found bundles for package "foo" matching version "1.0.0" in channels [stable] in multiple catalogs with the same priority [test x]',
    );
  });

  it('lets a non-deprecated offer beat a deprecated one regardless of priority', () => {
    const depHigh = deprecation([['olm.bundle', 'foo.v2', 'deprecated']]);
    const catalogs = [cat('high', 1000, pkg([bundle('foo.v2', '2.0.0')], [depHigh])), cat('low', -100, pkg([bundle('foo.v1', '1.0.0')]))];
    for (const order of permutations(catalogs)) expect(run(order)).toBe('low/foo.v1');
  });

  it('uses priority among deprecated offers when all are deprecated', () => {
    const dep = (name: string) => [deprecation([['olm.bundle', name, '']])];
    const catalogs = [
      cat('a', 1, pkg([bundle('foo.v1', '1.0.0')], dep('foo.v1'))),
      cat('b', 2, pkg([bundle('foo.v2', '2.0.0')], dep('foo.v2'))),
      cat('c', 2, pkg([bundle('foo.v3', '3.0.0')], dep('foo.v3'))),
    ];
    expect(run(catalogs.slice(0, 2))).toBe('b/foo.v2');
    expect(run(catalogs)).toBe('error: found bundles for package "foo" in multiple catalogs with the same priority [a b c]');
  });

  it('ignores catalogs that have the package but no candidate', () => {
    const catalogs = [cat('a', 5, pkg([bundle('foo.v3', '3.0.0')])), cat('b', 0, pkg([bundle('foo.v1', '1.0.0')])), cat('c', 9, null)];
    const r = resolve({ packageName: 'foo', catalogs, versionRange: '1.x' });
    expect(r.ok && [r.value.catalog, r.value.bundle.name, r.value.deprecation]).toEqual(['b', 'foo.v1', null]);
  });

  it('returns the winning catalog’s deprecation object (decision 0030)', () => {
    const depA = deprecation([['olm.package', undefined, 'a says the package is deprecated']]);
    const depB = deprecation([['olm.package', undefined, 'b says so too']]);
    const catalogs = [cat('a', 10, pkg([bundle('foo.v1', '1.0.0')], [depA])), cat('b', 0, pkg([bundle('foo.v1', '1.0.0')], [depB]))];
    for (const order of permutations(catalogs)) {
      const r = resolve({ packageName: 'foo', catalogs: order });
      expect(r.ok && [r.value.catalog, r.value.deprecation]).toEqual(['a', depA]);
    }
  });

  it('does not depend on catalog order for the chosen bundle', () => {
    const dep = deprecation([['olm.bundle', 'foo.v9', '']]);
    const catalogs = [
      cat('a', 0, pkg([bundle('foo.v9', '9.0.0')], [dep])),
      cat('b', 3, pkg([bundle('foo.v1', '1.0.0')])),
      cat('c', 1, pkg([bundle('foo.v2', '2.0.0')])),
      cat('d', 7, pkg([])),
    ];
    for (const order of permutations(catalogs)) expect(run(order)).toBe('b/foo.v1');
  });

  it('reports the first failure in catalog order', () => {
    const good = cat('good', 0, pkg([bundle('foo.v1', '1.0.0')]));
    const broken: CatalogInput = { name: 'broken', error: 'cache for catalog "broken" not found' };
    const installed = { name: 'foo.v1', version: 'bad' };
    const walk = 'error: error walking catalogs: ';
    expect(run([good, broken], { installed })).toBe(
      `${walk}error finding upgrade edges: failed to get version and release of installed bundle: No Major.Minor.Patch elements found`,
    );
    expect(run([broken, good], { installed })).toBe(`${walk}error getting package "foo" from catalog "broken": cache for catalog "broken" not found`);
    // An empty partition does not trigger the installed-version check.
    expect(run([cat('empty', 0, null), broken], { installed })).toMatch(/from catalog "broken"/);
  });
});
