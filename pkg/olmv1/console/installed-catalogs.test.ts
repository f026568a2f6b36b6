import { describe, expect, it } from 'vitest';
import type { DeclarativeConfig } from '../../shared/fbc/index.ts';
import { installedCatalogs, installedFrom } from './installed-catalogs.ts';

const content = (bundles: { name: string; image: string }[]): DeclarativeConfig =>
  ({
    packages: [],
    channels: [],
    bundles: bundles.map((b) => ({ ...b, package: 'p', properties: [] })),
    deprecations: [],
    others: [],
  }) as unknown as DeclarativeConfig;

const ce = (status: object, selector?: object) => ({
  spec: { source: { sourceType: 'Catalog', catalog: { packageName: 'p', ...(selector === undefined ? {} : { selector }) } } },
  status,
});

const installed = (image: string) => ({
  install: { bundle: { name: 'p.v1', version: '1.0.0' } },
  conditions: [{ type: 'Installed', status: 'True', reason: 'Succeeded', message: `Installed bundle ${image} successfully` }],
});

describe('the catalog an extension was installed from (issue 71)', () => {
  const a = { catalog: 'a', content: content([{ name: 'p.v1', image: 'r/a:1' }]) };
  const b = { catalog: 'b', content: content([{ name: 'p.v1', image: 'r/b:1' }]) };
  const c = { catalog: 'c', content: content([{ name: 'p.v2', image: 'r/c:2' }]) };

  it('reads the package, installed bundle, its image and a pinned catalog', () => {
    expect(installedFrom(ce(installed('r/a:1'), { matchLabels: { 'olm.operatorframework.io/metadata.name': 'a' } }))).toEqual({
      package: 'p',
      bundle: 'p.v1',
      image: 'r/a:1',
      pinned: 'a',
    });
    expect(installedFrom({})).toEqual({ package: '', bundle: '', image: '', pinned: '' });
  });

  it('marks only the catalog serving the installed bundle with its image', () => {
    expect(installedCatalogs(installedFrom(ce(installed('r/b:1'))), [a, b, c])).toEqual(['b']);
    expect(installedCatalogs(installedFrom(ce(installed('r/a:1'))), [a, b, c])).toEqual(['a']);
  });

  it('falls back to the bundle name when no catalog gives that image, and to the pinned catalog', () => {
    expect(installedCatalogs(installedFrom(ce(installed('r/elsewhere:1'))), [a, b, c])).toEqual(['a', 'b']);
    const pinned = ce({}, { matchLabels: { 'olm.operatorframework.io/metadata.name': 'c' } });
    expect(installedCatalogs(installedFrom(pinned), [a, b, c])).toEqual(['c']);
  });

  it('marks every candidate while nothing is installed yet', () => {
    expect(installedCatalogs(installedFrom(ce({})), [a, b])).toEqual(['a', 'b']);
  });
});
