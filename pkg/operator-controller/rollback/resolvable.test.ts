import { describe, expect, it } from 'vitest';
import { chainedPackage } from '../../../test/support/extension-ports.ts';
import { err, ok } from '../../shared/errors/index.ts';
import type { ResolveInput } from '../resolve/index.ts';
import { checkRollbackResolves } from './target.ts';
import { rev } from '../../../test/support/release-revisions.ts';

/** The spec a rollback of `foo` from 1.1.0 writes (pin, SelfCertified) over catalogs named `names`, each offering `versions`. */
function input(versions: string[], names = ['c']): ResolveInput {
  return {
    packageName: 'foo',
    channels: [],
    versionRange: '1.0.0',
    upgradeConstraintPolicy: 'SelfCertified',
    installed: { name: 'foo.v1.1.0', version: '1.1.0', release: null },
    catalogs: names.map((name, i) => ({ name, priority: i === 0 ? 1 : 0, package: chainedPackage('foo', versions) })),
  };
}

const target = rev(1, 'superseded', '1.0.0');

describe('checkRollbackResolves', () => {
  it('passes when the selected catalogs still offer the bundle', () => {
    expect(checkRollbackResolves('ext', target, '1.0.0', ok(input(['1.0.0', '1.1.0'])))).toEqual(ok({ warning: undefined }));
  });

  it('refuses when no selected catalog offers it: names the bundle, its version, the catalogs searched, the error and what to do', () => {
    const r = checkRollbackResolves('ext', target, '1.0.0', ok(input(['1.1.0', '1.2.0'], ['a', 'b'])));
    if (r.ok) throw new Error('not refused');
    expect(r.error.split('\n')).toEqual([
      'refusing to roll back "ext" to revision 1 (foo.v1.0.0, version 1.0.0): no catalog the extension selects offers foo.v1.0.0 at version 1.0.0. Nothing was changed.',
      'catalogs searched: "a", "b"',
      'operator-controller would report: error upgrading from currently installed version "1.1.0": no bundles found for package "foo" matching version "1.0.0"',
      'versions: 1.2.0, 1.1.0',
      'Written anyway, the extension would retry that error and hold upgrades with the pin. To go back, publish foo.v1.0.0 in a catalog that spec.source.catalog.selector selects (or widen the selector), then run the rollback again.',
    ]);
  });

  it('refuses when no catalog is selected, or the catalogs cannot be selected', () => {
    const none = checkRollbackResolves('ext', target, '1.0.0', ok({ ...input([]), catalogs: [] }));
    expect(!none.ok && none.error.split('\n').slice(1, 3)).toEqual([
      'catalogs searched: none',
      'operator-controller would report: error upgrading from currently installed version "1.1.0": no bundles found for package "foo" matching version "1.0.0"',
    ]);
    const bad = checkRollbackResolves(
      'ext',
      target,
      '1.0.0',
      err('desired catalog selector is invalid: "Near" is not a valid label selector operator'),
    );
    expect(!bad.ok && bad.error.split('\n').slice(1, 3)).toEqual([
      'catalogs searched: none',
      'operator-controller would report: desired catalog selector is invalid: "Near" is not a valid label selector operator',
    ]);
  });

  it('refuses when a selected catalog cannot be read, with the fetch error', () => {
    const i = input(['1.0.0']);
    const r = checkRollbackResolves(
      'ext',
      target,
      '1.0.0',
      ok({ ...i, catalogs: [...i.catalogs, { name: 'd', error: 'catalog "d" is not being served' }] }),
    );
    expect(!r.ok && r.error).toContain(
      'operator-controller would report: error walking catalogs: error getting package "foo" from catalog "d": catalog "d" is not being served',
    );
  });
});
