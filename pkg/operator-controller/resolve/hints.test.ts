import { describe, expect, it } from 'vitest';
import { packageMissing, resolutionHints, similarNames } from './hints.ts';
import { resolve } from './resolver.ts';
import { bundle, channel, partition } from '../../../test/support/fbc-builders.ts';
import type { ResolveInput } from './types.ts';

// foo: stable 1.0.0 -> 1.1.0 (replaces) -> 1.2.0 (replaces); 2.0.0 in stable without an edge; fast: 3.0.0.
const fbc = partition({
  channels: [
    channel('stable', [
      { name: 'foo.v1.0.0' },
      { name: 'foo.v1.1.0', replaces: 'foo.v1.0.0' },
      { name: 'foo.v1.2.0', replaces: 'foo.v1.1.0' },
      { name: 'foo.v2.0.0' },
    ]),
    channel('fast', [{ name: 'foo.v3.0.0' }]),
  ],
  bundles: [
    bundle('foo.v1.0.0', '1.0.0'),
    bundle('foo.v1.1.0', '1.1.0'),
    bundle('foo.v1.2.0', '1.2.0'),
    bundle('foo.v2.0.0', '2.0.0'),
    bundle('foo.v3.0.0', '3.0.0'),
  ],
});
const input = (extra: Partial<ResolveInput>): ResolveInput => ({
  packageName: 'foo',
  catalogs: [{ name: 'cat', priority: 0, package: fbc }],
  ...extra,
});

describe('resolutionHints', () => {
  it('names packages close to a typo when the selected catalogs lack the package', () => {
    const typo = { packageName: 'fooo', catalogs: [{ name: 'cat', priority: 0, package: null }] };
    expect(packageMissing(typo)).toBe(true);
    expect(resolutionHints(typo, ['foo', 'bar', 'fooo-operator'])).toEqual([
      'the selected catalogs have no package "fooo"; packages with similar names: "foo", "fooo-operator"',
    ]);
    // Nothing close: a few packages are all named, many are not.
    expect(resolutionHints({ ...typo, packageName: 'zzz' }, ['foo', 'bar', 'foo'])).toEqual([
      'the selected catalogs have no package "zzz"; their packages: "bar", "foo"',
    ]);
    const many = Array.from({ length: 11 }, (_, i) => `pkg-${i}`);
    expect(resolutionHints({ ...typo, packageName: 'zzz' }, many)).toEqual(['the selected catalogs have no package "zzz"']);
    expect(resolutionHints({ ...typo, packageName: 'zzz' }, [])).toEqual(['the selected catalogs have no package "zzz"']);
  });

  it('finds a long name with a transposed pair and a dropped letter (3 Levenshtein edits, 2 with transpositions)', () => {
    const typo = { packageName: 'exmaple-operatr', catalogs: [{ name: 'cat', priority: 0, package: null }] };
    const names = ['example-operator', 'other', ...Array.from({ length: 20 }, (_, i) => `unrelated-package-${i}`)];
    expect(resolutionHints(typo, names)).toEqual([
      'the selected catalogs have no package "exmaple-operatr"; packages with similar names: "example-operator"',
    ]);
  });

  it("lists the package's channels for a wrong one", () => {
    const i = input({ channels: ['stabel'] });
    expect(resolve(i)).toMatchObject({ ok: false });
    expect(resolutionHints(i)).toEqual(['package "foo" has no channel "stabel"; its channels: "fast", "stable" (default "stable")']);
  });

  it('lists the versions of the channels for a range outside them', () => {
    expect(resolutionHints(input({ channels: ['stable'], versionRange: '>=5.0.0' }))).toEqual([
      'versions in channels "stable": 2.0.0, 1.2.0, 1.1.0, 1.0.0',
    ]);
  });

  it('says which versions are successors of the installed one, and that SelfCertified would allow the jump', () => {
    const i = input({ channels: ['stable'], versionRange: '2.0.0', installed: { name: 'foo.v1.0.0', version: '1.0.0' } });
    expect(resolve(i)).toEqual({
      ok: false,
      error:
        'error upgrading from currently installed version "1.0.0": no bundles found for package "foo" matching version "2.0.0" in channels [stable]',
    });
    expect(resolutionHints(i)).toEqual([
      'versions in channels "stable": 2.0.0, 1.2.0, 1.1.0, 1.0.0',
      'successors of the installed version "1.0.0" in channels "stable": 1.1.0',
      'upgradeConstraintPolicy: SelfCertified would allow any version of the channel, downgrades too',
    ]);
  });
});

describe('similarNames', () => {
  it('ranks by edit distance (then name), then containment', () => {
    expect(similarNames('argocd-operator', ['argocd-operatr', 'argo-cd-operator', 'argocd-operator-helm', 'argocd-oprator-x', 'prometheus'])).toEqual(
      ['argo-cd-operator', 'argocd-operatr', 'argocd-oprator-x', 'argocd-operator-helm'],
    );
  });

  it('counts a transposition as one edit, and allows more edits for longer names', () => {
    // Short names: one edit; a swap of two letters is one.
    expect(similarNames('fpo', ['foo', 'fop', 'oof'])).toEqual(['foo', 'fop']);
    // 5-9 characters: two edits, never three.
    expect(similarNames('prmoetheus', ['prometheus'])).toEqual(['prometheus']);
    expect(similarNames('etcdx', ['xdcte'])).toEqual([]);
    // 15 characters: three edits.
    expect(similarNames('cert-managr-opx', ['cert-manager-operator'])).toEqual([]);
    expect(similarNames('cert-mangaer-op', ['cert-manager-operator'])).toEqual([]);
    expect(similarNames('cetr-manager-oprator', ['cert-manager-operator'])).toEqual(['cert-manager-operator']);
  });
});
