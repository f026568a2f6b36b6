import { describe, expect, it } from 'vitest';
import { APPROVED_BUNDLE_ANNOTATION } from '../../shared/api/index.ts';
import type { KubeObject } from '../../shared/unstructured/index.ts';
import { resolve } from '../resolve/index.ts';
import { readExtensionView, rollbackPatch, versionPin, type ExtensionView } from './patch.ts';

const bundle = (version: string, release?: string) => ({
  package: 'foo',
  name: `foo.v${version}`,
  version,
  image: 'img',
  ...(release === undefined ? {} : { release }),
});

function extension(catalog: Record<string, unknown>, annotations?: Record<string, string>, install?: unknown): KubeObject {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name: 'foo', resourceVersion: '42', ...(annotations === undefined ? {} : { annotations }) },
    spec: {
      namespace: 'ns',
      source: { sourceType: 'Catalog', catalog: { packageName: 'foo', ...catalog } },
      ...(install === undefined ? {} : { install }),
    },
  };
}

function view(obj: KubeObject): ExtensionView {
  const v = readExtensionView(obj);
  if (!v.ok) throw new Error(v.error);
  return v.value;
}

/** The bundle resolution picks from a catalog offering `versions` (one channel, no edges) for range `pin`, installed at `installed`. */
function resolvedWith(pin: string, versions: string[], installed = '9.0.0'): string {
  const bundles = versions.map((v) => ({
    schema: 'olm.bundle' as const,
    name: `foo.v${v}`,
    package: 'foo',
    image: `registry.example/foo:v${v}`,
    properties: [{ type: 'olm.package', value: { packageName: 'foo', version: v } }],
  }));
  const r = resolve({
    packageName: 'foo',
    versionRange: pin,
    upgradeConstraintPolicy: 'SelfCertified',
    installed: { name: `foo.v${installed}`, version: installed },
    catalogs: [
      {
        name: 'c',
        priority: 0,
        package: {
          packages: [{ schema: 'olm.package', name: 'foo', defaultChannel: 'stable' }],
          channels: [{ schema: 'olm.channel', name: 'stable', package: 'foo', entries: versions.map((v) => ({ name: `foo.v${v}` })) }],
          bundles,
          deprecations: [],
          others: [],
        },
      },
    ],
  });
  return r.ok ? r.value.bundle.name : r.error;
}

describe('versionPin', () => {
  it.each([
    ['1.0.0', '1.0.0', false],
    ['1.0.0-rc.1', '1.0.0-rc.1', false],
    ['1.0.0+2', '1.0.0', true],
    ['2.3.4-beta+build.7', '2.3.4-beta', true],
  ])('%s pins %s (ambiguous %s)', (version, pin, ambiguous) => {
    expect(versionPin(bundle(version))).toEqual({ ok: true, value: { pin, ambiguous } });
  });

  it('is ambiguous for an explicit release', () => {
    expect(versionPin(bundle('1.0.0', '3'))).toEqual({ ok: true, value: { pin: '1.0.0', ambiguous: true } });
  });

  it('makes resolution pick exactly that bundle, pre-releases included, going down from the installed one', () => {
    const offered = ['0.9.9', '1.0.0-rc', '1.0.0-rc.1', '1.0.0-rc.2', '1.0.0', '1.0.1', '1.1.0', '9.0.0'];
    for (const version of ['1.0.0', '1.0.0-rc.1', '0.9.9']) {
      const pin = versionPin(bundle(version));
      if (!pin.ok) throw new Error(pin.error);
      expect(resolvedWith(pin.value.pin, offered)).toBe(`foo.v${version}`);
    }
  });

  it('cannot tell releases of one version apart (build metadata is never compared): the highest wins, hence `ambiguous`', () => {
    const pin = versionPin(bundle('1.0.0+1'));
    if (!pin.ok) throw new Error(pin.error);
    expect(pin.value).toEqual({ pin: '1.0.0', ambiguous: true });
    expect(resolvedWith(pin.value.pin, ['1.0.0+1', '1.0.0+2', '1.1.0'])).toBe('foo.v1.0.0+2');
  });

  it('refuses a version that is not semver', () => {
    const r = versionPin(bundle('1.0'));
    expect(r.ok ? '' : r.error).toMatch(/^bundle foo.v1.0 has version "1.0", which is not semver/);
  });
});

describe('rollbackPatch', () => {
  it('pins the version, sets SelfCertified and the approval, with the resourceVersion precondition', () => {
    const ext = view(
      extension({ version: '>=1.0.0', upgradeConstraintPolicy: 'CatalogProvided' }, { [APPROVED_BUNDLE_ANNOTATION]: 'foo.v2.0.0', other: 'x' }),
    );
    const r = rollbackPatch(ext, bundle('1.0.0'));
    if (!r.ok) throw new Error(r.error);
    expect(r.value.patch).toEqual({
      metadata: { resourceVersion: '42', annotations: { [APPROVED_BUNDLE_ANNOTATION]: 'foo.v1.0.0' } },
      spec: { source: { catalog: { version: '1.0.0', upgradeConstraintPolicy: 'SelfCertified' } } },
    });
    expect(r.value.changes).toEqual([
      { field: 'spec.source.catalog.version', from: '>=1.0.0', to: '1.0.0' },
      { field: 'spec.source.catalog.upgradeConstraintPolicy', from: 'CatalogProvided', to: 'SelfCertified' },
      { field: `metadata.annotations[${APPROVED_BUNDLE_ANNOTATION}]`, from: 'foo.v2.0.0', to: 'foo.v1.0.0' },
    ]);
    expect(r.value.restore).toEqual({
      metadata: { annotations: { [APPROVED_BUNDLE_ANNOTATION]: 'foo.v2.0.0' } },
      spec: { source: { catalog: { version: '>=1.0.0', upgradeConstraintPolicy: 'CatalogProvided' } } },
    });
  });

  it('restores fields that were not set by deleting them (null)', () => {
    const r = rollbackPatch(view(extension({})), bundle('1.0.0'));
    if (!r.ok) throw new Error(r.error);
    expect(r.value.changes.map((c) => c.from)).toEqual([undefined, undefined, undefined]);
    expect(r.value.restore).toEqual({
      metadata: { annotations: { [APPROVED_BUNDLE_ANNOTATION]: null } },
      spec: { source: { catalog: { version: null, upgradeConstraintPolicy: null } } },
    });
  });

  it('refuses a revision of another package than the extension now names', () => {
    const r = rollbackPatch(view(extension({})), { ...bundle('1.0.0'), package: 'bar' });
    expect(r.ok ? '' : r.error).toBe('the revision installed package "bar" but ClusterExtension "foo" now names package "foo"');
  });

  it('refuses without a resourceVersion (the patch would not be conditional)', () => {
    const obj = extension({});
    delete obj.metadata.resourceVersion;
    const r = rollbackPatch(view(obj), bundle('1.0.0'));
    expect(r.ok ? '' : r.error).toBe('ClusterExtension "foo" has no metadata.resourceVersion');
  });
});

describe('readExtensionView', () => {
  it('reads the enforcement and tolerates odd shapes', () => {
    expect(view(extension({}, undefined, { preflight: { crdUpgradeSafety: { enforcement: 'None' } } })).enforcement).toBe('None');
    expect(view(extension({ version: 5 }, undefined, 'junk'))).toMatchObject({ version: undefined, enforcement: undefined });
  });

  it('refuses an extension without a package name', () => {
    const obj = extension({});
    (obj['spec'] as { source: unknown }).source = null;
    const r = readExtensionView(obj);
    expect(r.ok ? '' : r.error).toBe('ClusterExtension "foo" has no spec.source.catalog.packageName');
  });
});
