// CRD upgrade safety end to end (decision 0047): real
// API server, registry, catalogd and operator-controller, as in
// operator-controller-install.test.ts. An upgrade whose CRD change could break stored objects
// is blocked with upstream's message while the installed version keeps running, and the block
// clears by itself when the catalog offers a safe bundle, when enforcement is set to None, or
// when the stored objects have been migrated off a removed version.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import { createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import {
  clusterExtension,
  groupOf,
  installedAs,
  installerFor,
  offerPackage,
  useExtensionStack,
  waitForExtension,
  type BundleSpec,
  type CrdVersionSpec,
  type OfferedBundle,
} from '../support/extensions.ts';

const run = randomBytes(3).toString('hex');
const suite = useExtensionStack();

/** Pushes the entries' bundles and publishes the catalog `<pkg>` listing them. */
const offer = (pkg: string, entries: OfferedBundle[]): Promise<Record<string, string>> => offerPackage(suite.stack, pkg, entries);

const crdName = (pkg: string): string => `widgets.${groupOf(pkg)}`;
const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };
const CE = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind };

/** `spec` properties of the installed CRD's version `version`. */
async function installedSpecProperties(pkg: string, version = 'v1'): Promise<Record<string, { enum?: string[] }>> {
  const crd = await suite.kube.client.get({ ...CRD, name: crdName(pkg) });
  const versions = (crd['spec'] as { versions: { name: string; schema: { openAPIV3Schema: { properties: { spec: { properties: object } } } } }[] })
    .versions;
  return versions.find((v) => v.name === version)?.schema.openAPIV3Schema.properties.spec.properties as Record<string, { enum?: string[] }>;
}

async function history(pkg: string): Promise<[number, string, string][]> {
  const records = await createReleaseStore({ client: suite.kube.client, namespace: 'olmv1-system' }).history(pkg);
  return records.map((r) => [r.revision, r.status, r.bundle.name]);
}

/** Waits until Progressing reports the CRD upgrade check's block. */
function blocked(pkg: string, what = 'upgrade blocked'): ReturnType<typeof waitForExtension> {
  return waitForExtension(suite.kube.client, pkg, what, (e) => (e.cond('Progressing')?.message ?? '').includes('validating upgrade for CRD'), 90_000);
}

/** A change of the annotations starts a reconcile now, as a person retrying by hand would (retries come anyway, with backoff). */
async function nudge(pkg: string, n: number): Promise<void> {
  await suite.kube.client.patch({ ...CE, name: pkg }, { metadata: { annotations: { 'olmv1.test/nudge': String(n) } } }, 'merge');
}

async function install(pkg: string, first: BundleSpec, more: BundleSpec[]): Promise<Record<string, string>> {
  await installerFor(suite.kube.client, pkg, 'installer', [first, ...more]);
  const images = await offer(pkg, [{ spec: first }]);
  await suite.kube.client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg }));
  await waitForExtension(suite.kube.client, pkg, 'installed', installedAs(`${pkg}.v${first.version}`), 90_000);
  return images;
}

const version = (name: string, spec: Record<string, unknown>, extra: Partial<CrdVersionSpec> = {}): CrdVersionSpec => ({ name, spec, ...extra });

describe('CRD upgrade safety', () => {
  it('blocks an unsafe upgrade naming the CRD, version, field and rule, keeps the installed version, and clears when the catalog offers a safe bundle', async () => {
    const pkg = `crdblock-${run}`;
    const mode = { type: 'string', enum: ['Fast', 'Slow'] };
    const v1: BundleSpec = {
      pkg,
      version: '1.0.0',
      crdVersions: [version('v1', { size: { type: 'integer', description: 'How big.' }, color: { type: 'string' }, mode })],
    };
    // Drops `color` and turns `size` into a string: stored widgets would no longer be valid.
    const unsafe: BundleSpec = { pkg, version: '2.0.0', crdVersions: [version('v1', { size: { type: 'string', description: 'How big.' }, mode })] };
    // A new description, an added enum value and a new optional field: all safe.
    const safe: BundleSpec = {
      pkg,
      version: '2.0.1',
      crdVersions: [
        version('v1', {
          size: { type: 'integer', description: 'How big, in units.' },
          color: { type: 'string' },
          mode: { type: 'string', enum: ['Fast', 'Slow', 'Auto'] },
          shape: { type: 'string' },
        }),
      ],
    };
    const images = await install(pkg, v1, [unsafe, safe]);

    await offer(pkg, [{ spec: v1 }, { spec: unsafe, replaces: '1.0.0' }]);
    const ext = await blocked(pkg);
    expect(ext.cond('Progressing')).toMatchObject({ status: 'True', reason: 'Retrying' });
    expect(ext.cond('Progressing')?.message).toBe(
      `error for resolved bundle "${pkg}.v2.0.0" with version "2.0.0": validating upgrade for CRD "${crdName(pkg)}": ` +
        'existingFieldRemoval: removed field : v1.^.spec.color\n' +
        'v1: ^.spec.color: type: type changed : "string" -> ""\n' +
        'v1: ^.spec.size: type: type changed : "integer" -> "string"',
    );
    expect(ext.cond('Installed')).toMatchObject({ status: 'True', reason: 'Succeeded', message: `Installed bundle ${images['1.0.0']} successfully` });
    expect(ext.install?.bundle.name).toBe(`${pkg}.v1.0.0`);
    // Nothing was applied: no new revision, the CRD unchanged.
    expect(await history(pkg)).toEqual([[1, 'deployed', `${pkg}.v1.0.0`]]);
    expect(Object.keys(await installedSpecProperties(pkg)).sort()).toEqual(['color', 'mode', 'size']);

    await offer(pkg, [{ spec: v1 }, { spec: unsafe, replaces: '1.0.0' }, { spec: safe, replaces: '1.0.0', skips: ['2.0.0'] }]);
    await waitForExtension(suite.kube.client, pkg, 'upgraded to the safe bundle', installedAs(`${pkg}.v2.0.1`), 90_000);
    const props = await installedSpecProperties(pkg);
    expect(Object.keys(props).sort()).toEqual(['color', 'mode', 'shape', 'size']);
    expect(props['mode']?.enum).toEqual(['Fast', 'Slow', 'Auto']);
    expect(await history(pkg)).toEqual([
      [2, 'deployed', `${pkg}.v2.0.1`],
      [1, 'superseded', `${pkg}.v1.0.0`],
    ]);
  });

  it('lets a blocked upgrade through once enforcement is None', async () => {
    const pkg = `crdnone-${run}`;
    const v1: BundleSpec = { pkg, version: '1.0.0', crdVersions: [version('v1', { size: { type: 'integer' }, color: { type: 'string' } })] };
    const v2: BundleSpec = { pkg, version: '2.0.0', crdVersions: [version('v1', { size: { type: 'integer' } })] };
    await install(pkg, v1, [v2]);
    await offer(pkg, [{ spec: v1 }, { spec: v2, replaces: '1.0.0' }]);
    const ext = await blocked(pkg);
    expect(ext.cond('Progressing')?.message).toContain('existingFieldRemoval: removed field : v1.^.spec.color');

    await suite.kube.client.patch({ ...CE, name: pkg }, { spec: { install: { preflight: { crdUpgradeSafety: { enforcement: 'None' } } } } }, 'merge');
    await waitForExtension(suite.kube.client, pkg, 'upgraded without the check', installedAs(`${pkg}.v2.0.0`), 90_000);
    expect(Object.keys(await installedSpecProperties(pkg))).toEqual(['size']);
  });

  it('refuses to remove a version while status.storedVersions lists it, and upgrades once objects are migrated', async () => {
    const pkg = `crdstored-${run}`;
    const spec = { size: { type: 'integer' } };
    const alpha: BundleSpec = { pkg, version: '1.0.0', crdVersions: [version('v1alpha1', spec)] };
    const both: BundleSpec = {
      pkg,
      version: '1.1.0',
      crdVersions: [version('v1', spec, { storage: true }), version('v1alpha1', spec, { storage: false })],
    };
    const ga: BundleSpec = { pkg, version: '2.0.0', crdVersions: [version('v1', spec)] };
    await install(pkg, alpha, [both, ga]);
    const widget: KubeObject = {
      apiVersion: `${groupOf(pkg)}/v1alpha1`,
      kind: 'Widget',
      metadata: { name: 'w', namespace: pkg },
      spec: { size: 3 },
    };
    await suite.kube.client.create(widget);

    // 2.0.0 drops v1alpha1, in which the widget is stored.
    await offer(pkg, [{ spec: alpha }, { spec: ga, replaces: '1.0.0' }]);
    const ext = await blocked(pkg);
    expect(ext.cond('Progressing')?.message).toBe(
      `error for resolved bundle "${pkg}.v2.0.0" with version "2.0.0": validating upgrade for CRD "${crdName(pkg)}": storedVersionRemoval: stored versions removed : [v1alpha1]`,
    );
    expect(ext.install?.bundle.name).toBe(`${pkg}.v1.0.0`);

    // 1.1.0 stores v1 and still serves v1alpha1: safe. 2.0.0 stays blocked while v1alpha1 is stored.
    await offer(pkg, [{ spec: alpha }, { spec: both, replaces: '1.0.0' }, { spec: ga, replaces: '1.1.0' }]);
    // The next hop, to 2.0.0, is tried right after the upgrade (a further hop requeues at once),
    // so Progressing may already name 2.0.0 by the time 1.1.0 is seen installed.
    await waitForExtension(
      suite.kube.client,
      pkg,
      'upgraded to 1.1.0',
      (e) => e.cond('Installed')?.status === 'True' && e.install?.bundle.name === `${pkg}.v1.1.0`,
      90_000,
    );
    await nudge(pkg, 1);
    const still = await waitForExtension(
      suite.kube.client,
      pkg,
      'blocked at 2.0.0',
      (e) => (e.cond('Progressing')?.message ?? '').includes(`"${pkg}.v2.0.0"`),
      90_000,
    );
    expect(still.cond('Progressing')?.message).toContain('storedVersionRemoval: stored versions removed : [v1alpha1]');

    // The administrator migrates: every widget rewritten (now stored as v1), then v1alpha1 dropped from storedVersions.
    const current = await suite.kube.client.get({ apiVersion: `${groupOf(pkg)}/v1`, kind: 'Widget', name: 'w', namespace: pkg });
    await suite.kube.client.update(current);
    await suite.kube.client.patch({ ...CRD, name: crdName(pkg) }, { status: { storedVersions: ['v1'] } }, 'merge', { subresource: 'status' });
    await nudge(pkg, 2);
    await waitForExtension(suite.kube.client, pkg, 'upgraded to 2.0.0', installedAs(`${pkg}.v2.0.0`), 90_000);
    const crd = await suite.kube.client.get({ ...CRD, name: crdName(pkg) });
    expect((crd['spec'] as { versions: { name: string }[] }).versions.map((v) => v.name)).toEqual(['v1']);
  });
});
