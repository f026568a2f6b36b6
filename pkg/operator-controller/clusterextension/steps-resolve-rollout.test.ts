// The resolve step under the BoxcutterRuntime while a revision rolls out (decision 0125): as
// upstream, the catalogs are not asked, the rolling-out revision's bundle is the target and the
// deprecation conditions say Unknown with upstream's texts; unlike upstream, a failed rollout is
// resolved past. The Helm runtime always resolves. Assembled: reconcilers-boxcutter.test.ts.
import { describe, expect, it } from 'vitest';
import { catalogSource, chainedPackage, recordingEvents } from '../../../test/support/extension-ports.ts';
import { extensionState } from '../../../test/support/extension-state.ts';
import { Manifest, type Release } from '../release/index.ts';
import type { CatalogSource } from '../dependencyview/index.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { resolveStep, type ResolvePorts } from './steps.ts';
import { revisionRollingOut } from './rolling-out.ts';

const bundle = (version: string) => ({ package: 'p', name: `p.v${version}`, version, image: `registry.example/p-bundle:v${version}` });

const revision = (n: number, version: string, status: Release['status']): Release => ({
  extension: 'ext',
  extensionUID: 'u',
  revision: n,
  status,
  bundle: bundle(version),
  manifest: Manifest.ofObjects([]),
  properties: [],
  description: '',
});

/** A catalog offering 1.0.0 to 1.2.0 that counts how often it is asked. */
function countingCatalog(): { source: CatalogSource; asked: () => number } {
  const inner = catalogSource(chainedPackage('p', ['1.0.0', '1.1.0', '1.2.0']));
  let asked = 0;
  const source: CatalogSource = {
    ...inner,
    catalogs: {
      list: (...args: Parameters<CatalogSource['catalogs']['list']>) => {
        asked++;
        return inner.catalogs.list(...args);
      },
    },
  };
  return { source, asked: () => asked };
}

const resolveWith = (catalogs: CatalogSource, s: ExtensionState, holdWhileRollingOut?: boolean) =>
  resolveStep({
    catalogs,
    features: { bundleReleaseSupport: false },
    events: recordingEvents([]),
    ...(holdWhileRollingOut === undefined ? {} : { holdWhileRollingOut }),
  } satisfies ResolvePorts).run(s);

function deprecation(s: ExtensionState): string[] {
  return ['Deprecated', 'PackageDeprecated', 'ChannelDeprecated', 'BundleDeprecated'].map((t) => {
    const c = s.ce.status?.conditions?.find((x) => x.type === t);
    return `${t}: ${c?.status} ${c?.reason} ${JSON.stringify(c?.message)}`;
  });
}

describe('revisionRollingOut', () => {
  const installed = revision(1, '1.0.0', 'deployed');

  it('none rolls out: nothing installed and no records, or only the installed and superseded ones', () => {
    expect(revisionRollingOut([], undefined)).toBeUndefined();
    expect(revisionRollingOut([installed, revision(0, '0.9.0', 'superseded')], installed)).toBeUndefined();
  });

  it('the newest revision rolling out after the installed one, first install or upgrade', () => {
    expect(revisionRollingOut([revision(1, '1.0.0', 'pending-install')], undefined)?.revision).toBe(1);
    expect(revisionRollingOut([revision(2, '1.1.0', 'pending-upgrade'), installed], installed)?.revision).toBe(2);
    // A failed one beside a newer one still under way: the newer one is kept.
    const history = [revision(3, '1.2.0', 'pending-upgrade'), revision(2, '1.1.0', 'failed'), installed];
    expect(revisionRollingOut(history, installed)?.revision).toBe(3);
  });

  it('the newest one failed (Blocked, past its deadline): none, the catalogs are asked again', () => {
    expect(revisionRollingOut([revision(1, '1.0.0', 'failed')], undefined)).toBeUndefined();
    expect(revisionRollingOut([revision(3, '1.2.0', 'failed'), revision(2, '1.1.0', 'pending-upgrade'), installed], installed)).toBeUndefined();
  });

  it('a revision older than the installed one that never succeeded (about to be archived) is not rolling out', () => {
    const newer = revision(2, '1.1.0', 'deployed');
    expect(revisionRollingOut([newer, revision(1, '1.0.0', 'pending-install')], newer)).toBeUndefined();
  });
});

describe('resolve step while a revision rolls out (BoxcutterRuntime)', () => {
  it("upgrade rolling out: its bundle is the target, the catalogs are not asked, deprecation Unknown with upstream's texts", async () => {
    const { source, asked } = countingCatalog();
    const installed = revision(1, '1.0.0', 'deployed');
    const s = extensionState({ installed, history: [revision(2, '1.1.0', 'pending-upgrade'), installed] });
    expect(await resolveWith(source, s, true)).toBeUndefined();
    expect(s.target).toEqual({ bundle: bundle('1.1.0') });
    expect(asked()).toBe(0);
    expect(deprecation(s)).toEqual([
      'Deprecated: Unknown DeprecationStatusUnknown "deprecation status unknown: catalog data unavailable"',
      'PackageDeprecated: Unknown DeprecationStatusUnknown "deprecation status unknown: catalog data unavailable"',
      'ChannelDeprecated: Unknown DeprecationStatusUnknown "deprecation status unknown: catalog data unavailable"',
      'BundleDeprecated: Unknown DeprecationStatusUnknown "deprecation status unknown: catalog data unavailable"',
    ]);
  });

  it('first install rolling out: its bundle stays the target although the catalog now offers a newer one; BundleDeprecated Absent', async () => {
    const { source, asked } = countingCatalog();
    const s = extensionState({ history: [revision(1, '1.0.0', 'pending-install')] });
    await resolveWith(source, s, true);
    expect(s.target).toEqual({ bundle: bundle('1.0.0') });
    expect(asked()).toBe(0);
    expect(deprecation(s).at(-1)).toBe('BundleDeprecated: Unknown Absent "no bundle installed yet"');
  });

  it('the rollout failed: resolved again, so the newest bundle the catalog offers can replace it', async () => {
    const { source, asked } = countingCatalog();
    const s = extensionState({ history: [revision(1, '1.0.0', 'failed')] });
    await resolveWith(source, s, true);
    expect(s.target?.bundle).toEqual(bundle('1.2.0'));
    expect(asked()).toBe(1);
    expect(deprecation(s)[0]).toBe('Deprecated: False NotDeprecated "not deprecated"');
  });

  it('the Helm runtime (no hold) resolves whatever its records say', async () => {
    const { source, asked } = countingCatalog();
    const s = extensionState({ history: [revision(1, '1.0.0', 'pending-install')] });
    await resolveWith(source, s);
    expect(s.target?.bundle).toEqual(bundle('1.2.0'));
    expect(asked()).toBe(1);
  });
});
