// The installed and resolve steps' decision tables with fakes of their ports: what is
// installed, which bundle becomes the target (the resolved one, or the installed one when the
// catalogs cannot offer it), and when resolution fails the reconcile. End to end:
// test/e2e/operator-controller-install.test.ts and operator-controller-failures.test.ts.
import { describe, expect, it } from 'vitest';
import { catalogSource, chainedPackage, MemoryReleaseStore, recordingDrift, recordingEvents } from '../../../test/support/extension-ports.ts';
import { extensionState } from '../../../test/support/extension-state.ts';
import { gunzipSync, gzipSync } from 'node:zlib';
import { fakeSecrets, type SecretStore } from '../../../test/support/fake-secrets.ts';
import { createReleaseStore, type HistoryOptions, type Release, Manifest } from '../release/index.ts';
import type { CatalogSource } from '../dependencyview/index.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { BundleBudget } from '../bundlepull/index.ts';
import { installedStep, resolveStep, type InstalledPorts, type ResolvePorts } from './steps.ts';

const V1 = { package: 'p', name: 'p.v1.0.0', version: '1.0.0', image: 'registry.example/p-bundle:v1.0.0' };

const deployed = (revision = 1, status: Release['status'] = 'deployed'): Release => ({
  extension: 'ext',
  extensionUID: 'u',
  revision,
  status,
  bundle: V1,
  manifest: Manifest.ofObjects([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p', namespace: 'ns' } }]),
  properties: [],
  description: 'Install complete',
});

function condition(s: ExtensionState, type: string) {
  return s.ce.status?.conditions?.find((c) => c.type === type);
}

const resolveWith = async (catalogs: CatalogSource, s: ExtensionState, events: string[] = []) =>
  resolveStep({ catalogs, features: { bundleReleaseSupport: false }, events: recordingEvents(events) } satisfies ResolvePorts).run(s);

describe('installed step', () => {
  it('takes the deployed revision as installed and has the drift watches follow its objects', async () => {
    const releases = new MemoryReleaseStore();
    await releases.create(deployed(1, 'superseded'));
    await releases.create(deployed(2));
    const calls: string[] = [];
    const s = extensionState();
    expect(await installedStep({ releases, drift: recordingDrift(calls) } satisfies InstalledPorts).run(s)).toBeUndefined();
    expect(s.history.map((r) => r.revision)).toEqual([2, 1]);
    expect(s.installed?.revision).toBe(2);
    expect(calls).toEqual(['track ext 1 objects']);
  });

  it('reads the records within their budget and holds the share until the reconcile ends', async () => {
    const budget = new BundleBudget(100);
    const sizes: number[] = [];
    const releases = {
      history: async (_name: string, options?: HistoryOptions) => {
        await options?.admit?.(70);
        sizes.push(70);
        return [deployed(1)];
      },
    };
    const ports = { releases, drift: recordingDrift([]), records: { budget } } satisfies InstalledPorts;
    const first = extensionState();
    await installedStep(ports).run(first);
    expect(budget.held).toBe(70);
    // A second reconcile's records do not fit beside the first's: it waits, reading nothing.
    const second = extensionState();
    const reading = installedStep(ports).run(second);
    await new Promise((resolve) => setImmediate(resolve));
    expect(budget.waiting).toBe(1);
    expect(sizes).toEqual([70]);
    // The first reconcile ends (the StepReconciler disposes what it held).
    first.held.dispose();
    await reading;
    expect(sizes).toEqual([70, 70]);
    expect(second.installed?.revision).toBe(1);
    second.held.dispose();
    expect(budget.held).toBe(0);
  });

  it('with no records: nothing installed, nothing watched', async () => {
    const calls: string[] = [];
    const s = extensionState();
    await installedStep({ releases: new MemoryReleaseStore(), drift: recordingDrift(calls) }).run(s);
    expect(s.installed).toBeUndefined();
    expect(calls).toEqual([]);
  });

  it('records that cannot be read: Installed Unknown with the error, Progressing Retrying, thrown', async () => {
    const releases = new MemoryReleaseStore();
    releases.failure = new Error('secrets is forbidden');
    const s = extensionState();
    await expect(installedStep({ releases, drift: recordingDrift([]) }).run(s)).rejects.toThrow('secrets is forbidden');
    expect(condition(s, 'Installed')).toMatchObject({ status: 'Unknown', reason: 'Failed', message: 'secrets is forbidden' });
    expect(condition(s, 'Progressing')).toMatchObject({ status: 'True', reason: 'Retrying', message: 'retrying to get installed bundle' });
  });

  it("reads a record's objects lazily: watches from its text without parsing it, and a corrupt manifest fails as an unreadable record", async () => {
    const secrets: SecretStore = new Map();
    const releases = createReleaseStore({ client: fakeSecrets(secrets).client, namespace: 'sys' });
    await releases.create(deployed());
    const calls: string[] = [];
    const s = extensionState();
    await installedStep({ releases, drift: recordingDrift(calls) }).run(s);
    expect(calls).toEqual(['track ext 1 objects']);
    // Held as the record's text, never turned into objects.
    expect(s.installed?.manifest).toHaveProperty('source', expect.any(String));

    // The record's manifest replaced by an object without metadata.
    const index = secrets.get('sh.helm.release.v1.ext.v1');
    const data = index?.['data'] as Record<string, string>;
    const doc = JSON.parse(gunzipSync(Buffer.from(data['chunk'] ?? '', 'base64')).toString()) as Record<string, unknown>;
    data['chunk'] = gzipSync(JSON.stringify({ ...doc, manifest: '{"apiVersion":"v1","kind":"ConfigMap"}\n' })).toString('base64');
    const t = extensionState();
    await expect(installedStep({ releases, drift: recordingDrift([]) }).run(t)).rejects.toThrow(
      /release record Secret "sys\/sh.helm.release.v1.ext.v1" is corrupt/,
    );
    expect(condition(t, 'Installed')).toMatchObject({ status: 'Unknown', reason: 'Failed' });
    expect(condition(t, 'Progressing')).toMatchObject({ status: 'True', reason: 'Retrying' });
    expect(t.installed).toBeUndefined();
  });
});

describe('resolve step', () => {
  const catalog = catalogSource(chainedPackage('p', ['1.0.0', '1.1.0']));

  it('nothing installed: the newest bundle of the default channel is the target, deprecation conditions set', async () => {
    const s = extensionState();
    expect(await resolveWith(catalog, s)).toBeUndefined();
    expect(s.target).toEqual({
      bundle: { package: 'p', name: 'p.v1.1.0', version: '1.1.0', image: 'registry.example/p-bundle:v1.1.0' },
      resolution: { request: expect.objectContaining({ packageName: 'p', installed: null }), deprecation: null },
    });
    expect(s.ce.status?.conditions?.map((c) => `${c.type}=${c.status}`)).toEqual([
      'Deprecated=False',
      'PackageDeprecated=False',
      'ChannelDeprecated=False',
      // No bundle installed yet: whether it is deprecated is unknown (upstream's table).
      'BundleDeprecated=Unknown',
    ]);
  });

  it('installed: the successor is the target, and the request names the installed bundle', async () => {
    const s = extensionState({ installed: deployed(), history: [deployed()] });
    await resolveWith(catalog, s);
    expect(s.target?.bundle.name).toBe('p.v1.1.0');
    expect(s.target?.resolution?.request.installed).toEqual({ name: 'p.v1.0.0', version: '1.0.0', release: null });
  });

  it("nothing installed and no such version: fails with upstream's message, Installed False, Progressing Retrying, the hints in a Warning Event", async () => {
    const s = extensionState({ spec: { source: { sourceType: 'Catalog', catalog: { packageName: 'p', version: '9.9.9' } } } });
    const events: string[] = [];
    const err: unknown = await resolveWith(catalog, s, events).catch((e: unknown) => e);
    if (!(err instanceof Error)) throw new Error('resolve did not fail');
    expect(err.message).toBe('no bundles found for package "p" matching version "9.9.9"');
    expect(condition(s, 'Progressing')).toMatchObject({ status: 'True', reason: 'Retrying', message: err.message });
    expect(condition(s, 'Installed')).toMatchObject({ status: 'False', message: 'No bundle installed' });
    expect(events).toEqual(['Warning ResolutionFailed: no bundles found for package "p" matching version "9.9.9"\nversions: 1.1.0, 1.0.0']);
  });

  it('records the Warning Event once per change of its text, and again after a success', async () => {
    const events: string[] = [];
    const ports = { catalogs: catalog, features: { bundleReleaseSupport: false }, events: recordingEvents(events) } satisfies ResolvePorts;
    const step = resolveStep(ports);
    const asking = (version: string) => extensionState({ spec: { source: { sourceType: 'Catalog', catalog: { packageName: 'p', version } } } });
    for (const version of ['9.9.9', '9.9.9', '8.8.8', '8.8.8']) await expect(step.run(asking(version))).rejects.toThrow(/no bundles found/);
    expect(events.map((e) => e.split('\n')[0])).toEqual([
      'Warning ResolutionFailed: no bundles found for package "p" matching version "9.9.9"',
      'Warning ResolutionFailed: no bundles found for package "p" matching version "8.8.8"',
    ]);
    // Another extension's failure is its own.
    await expect(
      step.run(extensionState({ uid: 'other', spec: { source: { sourceType: 'Catalog', catalog: { packageName: 'p', version: '8.8.8' } } } })),
    ).rejects.toThrow();
    expect(events).toHaveLength(3);
    expect(await step.run(asking('1.0.0'))).toBeUndefined();
    await expect(step.run(asking('8.8.8'))).rejects.toThrow();
    expect(events).toHaveLength(4);
  });

  it('installed and another version asked for that the catalogs lack: fails, Installed stays True', async () => {
    const s = extensionState({
      spec: { source: { sourceType: 'Catalog', catalog: { packageName: 'p', version: '9.9.9' } } },
      installed: deployed(),
      history: [deployed()],
    });
    await expect(resolveWith(catalog, s)).rejects.toThrow(/matching version "9\.9\.9"/);
    expect(condition(s, 'Installed')).toMatchObject({ status: 'True', message: 'Installed bundle registry.example/p-bundle:v1.0.0 successfully' });
  });

  it('50 failing extensions: one Warning Event each, none more while they keep failing alike', async () => {
    const events: string[] = [];
    const step = resolveStep({
      catalogs: catalog,
      features: { bundleReleaseSupport: false },
      events: recordingEvents(events),
    } satisfies ResolvePorts);
    const failing = (i: number) =>
      extensionState({
        name: `ext-${i}`,
        uid: `u-${i}`,
        spec: { source: { sourceType: 'Catalog', catalog: { packageName: 'p', version: '9.9.9' } } },
      });
    for (let round = 0; round < 3; round++) for (let i = 0; i < 50; i++) await expect(step.run(failing(i))).rejects.toThrow(/no bundles found/);
    expect(events).toHaveLength(50);
    expect(new Set(events).size).toBe(1);
  });

  it('installed and no catalog matches the selector (deleted): the installed bundle stays the target, no error kept', async () => {
    const s = extensionState({ installed: deployed(), history: [deployed()] });
    const events: string[] = [];
    await resolveWith(catalogSource(chainedPackage('p', ['1.0.0']), {}), s, events);
    expect(s.target).toEqual({ bundle: V1 });
    expect(s.resolutionError).toBeUndefined();
    expect(events).toEqual([]);
  });

  it('installed and the matching catalog cannot offer it (not served): installed bundle applied, the error kept for after the apply', async () => {
    const s = extensionState({ installed: deployed(), history: [deployed()] });
    const events: string[] = [];
    await resolveWith(catalogSource(chainedPackage('p', ['1.0.0']), { c: { serving: 'False' } }), s, events);
    expect(s.target).toEqual({ bundle: V1 });
    expect(s.resolutionError?.message).toMatch(/catalog "c"/);
    expect(events).toEqual([`Warning ResolutionFailed: ${s.resolutionError?.message ?? ''}`]);
  });

  it('a selector that cannot be used fails even with a bundle installed', async () => {
    const s = extensionState({
      spec: { source: { sourceType: 'Catalog', catalog: { packageName: 'p', selector: { matchExpressions: [{ key: 'k', operator: 'Near' }] } } } },
      installed: deployed(),
      history: [deployed()],
    });
    await expect(resolveWith(catalog, s)).rejects.toThrow();
    expect(s.target).toBeUndefined();
    expect(condition(s, 'Progressing')).toMatchObject({ status: 'True', reason: 'Retrying' });
  });
});
