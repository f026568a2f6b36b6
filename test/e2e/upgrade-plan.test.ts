// `olmv1 upgrade plan` and `olmv1 upgrade approve` on the real API server, registry, catalogd
// and operator-controller (issue 29): the plan printed before an upgrade held by the Manual
// update policy names exactly the object changes and permission gains the upgrade then
// records; an approval for another version than the picked one is refused; a Secret's values
// never reach the plan.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runUpgradeApprove, runUpgradePlan, type UpgradeCommandDeps } from '../../cmd/olmv1/upgrade.ts';
import { fetchBundleFiles } from '../../cmd/olmv1/bundle-image.ts';
import { createCatalogClient, createCatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { createReleaseStore, deployedRelease } from '../../pkg/operator-controller/release/index.ts';
import { objectDiff, permissionDelta } from '../../pkg/operator-controller/upgradeplan/index.ts';
import { APPROVED_BUNDLE_ANNOTATION, CLUSTER_EXTENSION, UPDATE_POLICY_ANNOTATION, UpdatePolicy } from '../../pkg/shared/api/index.ts';
import type { UpgradePlan } from '../../pkg/olmv1/upgrade/index.ts';
import {
  bundleFiles,
  clusterExtension,
  groupOf,
  installedAs,
  installerFor,
  packageCatalog,
  publishCatalog,
  pushBundle,
  useExtensionStack,
  waitForExtension,
  type BundleSpec,
} from '../support/extensions.ts';

const run = randomBytes(3).toString('hex');
const suite = useExtensionStack();

const secret = (pkg: string, password: string): object => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: `${pkg}-creds` },
  data: { password: Buffer.from(password).toString('base64') },
});

/** Runs `upgrade plan` or `upgrade approve` in-process against the suite's cluster. */
async function cli(command: 'plan' | 'approve', args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
  const client = createCatalogClient();
  const deps: UpgradeCommandDeps = {
    // The suite's admin connection, kept open by the suite.
    connectCluster: () => Promise.resolve({ ...suite.kube, close: () => undefined }),
    catalogContent: createCatalogContentCache({ client }),
    fetchBundle: (ref, access) => fetchBundleFiles(ref, { insecureRegistries: ['127.0.0.1', 'localhost'], ...access }),
  };
  try {
    const code = await (command === 'plan' ? runUpgradePlan : runUpgradeApprove)(args, io, deps);
    return { code, stdout, stderr };
  } finally {
    client.close();
  }
}

describe('olmv1 upgrade plan and approve', () => {
  it('plans the upgrade a Manual policy holds, and the approved upgrade does what the plan said', async () => {
    const { kube } = suite;
    const pkg = `plan-${run}`;
    const v1: BundleSpec = { pkg, version: '1.0.0', configMaps: ['old', 'kept'], extraObjects: [secret(pkg, 'hunter2-first')] };
    // 1.1.0: a ConfigMap added, one removed, one changed; a second CRD and the rule to read it; the Secret's value changed.
    const v2: BundleSpec = {
      pkg,
      version: '1.1.0',
      crds: ['widgets', 'gadgets'],
      configMaps: ['new', 'kept'],
      extraObjects: [secret(pkg, 'hunter2-second')],
    };
    await installerFor(kube.client, pkg, 'installer', [v1, v2]);
    const images = [await pushBundle(bundleFiles(v1), `${suite.registry}/bundles/${pkg}:v1.0.0`)];
    const catalog = (entries: { version: string; replaces?: string }[]) =>
      packageCatalog(pkg, {
        defaultChannel: 'stable',
        channels: [{ name: 'stable', entries }],
        bundles: entries.map((e, i) => ({ version: e.version, image: images[i] ?? '' })),
      });
    await publishCatalog(suite.stack, pkg, catalog([{ version: '1.0.0' }]));
    const ce = clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg, channels: ['stable'] });
    ce.metadata.annotations = { [UPDATE_POLICY_ANNOTATION]: UpdatePolicy.Manual };
    await kube.client.create(ce);
    await waitForExtension(kube.client, pkg, 'installed at 1.0.0', installedAs(`${pkg}.v1.0.0`));

    const upToDate = await cli('plan', [pkg]);
    expect(upToDate.code).toBe(0);
    expect(upToDate.stdout).toContain('Up to date: ');
    expect((await cli('approve', [pkg])).code).toBe(1);

    images.push(await pushBundle(bundleFiles(v2), `${suite.registry}/bundles/${pkg}:v1.1.0`));
    await publishCatalog(suite.stack, pkg, catalog([{ version: '1.0.0' }, { version: '1.1.0', replaces: '1.0.0' }]));
    // The controller sees the upgrade and holds it (the Manual policy) until approved.
    const held = await waitForExtension(
      kube.client,
      pkg,
      'upgrade to 1.1.0 held',
      (e) => e.cond('UpgradeAvailable')?.status === 'True' && e.install?.bundle.name === `${pkg}.v1.0.0`,
    );
    const store = createReleaseStore({ client: kube.client, namespace: 'olmv1-system' });
    const before = deployedRelease(await store.history(pkg));
    expect(before?.bundle.name).toBe(`${pkg}.v1.0.0`);

    const json = await cli('plan', [pkg, '-o', 'json']);
    expect(json.stderr).toContain(`pulling bundle image ${images[1]}`);
    expect(json.code).toBe(0);
    const plan = JSON.parse(json.stdout) as UpgradePlan;
    expect(plan.successors).toEqual([
      { catalog: pkg, channel: 'stable', bundle: `${pkg}.v1.1.0`, version: '1.1.0', edge: 'replaces', inRange: true, deprecated: false },
    ]);
    expect(plan.pick).toMatchObject({ bundle: `${pkg}.v1.1.0`, version: '1.1.0', catalog: pkg });
    expect(plan.pick?.reason).toBe('1.1.0 is the highest of 1 successor, reached by its replaces edge');
    expect(plan.policy).toMatchObject({ policy: 'Manual', decision: 'hold', approveCommand: `olmv1 upgrade approve ${pkg} 1.1.0` });
    // Held for the reasons operator-controller gives: the policy, and the permission it gains.
    expect(plan.policy?.reason).toBe(
      `the update policy is Manual; it grants more permissions: +1 rule: cluster: get,list,watch ${groupOf(pkg)}/gadgets`,
    );
    expect(held.cond('UpgradeAvailable')?.message).toContain(
      `waits for approval: ${plan.policy?.reason ?? ''}; objects: 4 added, 3 removed, 3 changed; CRD upgrade safety: safe.`,
    );
    const changes = plan.changes;
    if (changes === undefined) throw new Error('no changes in the plan');
    expect(changes.objects.added).toEqual(
      expect.arrayContaining([`ConfigMap ${pkg}/${pkg}-new`, `CustomResourceDefinition gadgets.${groupOf(pkg)}`]),
    );
    // The generated ClusterRole (and its binding) is named after the bundle: renamed, which is no permission change.
    expect(changes.objects.removed).toEqual([
      `ConfigMap ${pkg}/${pkg}-old`,
      expect.stringMatching(new RegExp(`^ClusterRole ${pkg}\\.v1\\.0\\.0-`)),
      expect.stringMatching(new RegExp(`^ClusterRoleBinding ${pkg}\\.v1\\.0\\.0-`)),
    ]);
    const changed = Object.fromEntries(changes.objects.changed.map((c) => [c.object, c.lines]));
    expect(changed[`ConfigMap ${pkg}/${pkg}-kept`]).toEqual(['- data.version: "1.0.0"', '+ data.version: "1.1.0"']);
    expect(changed[`Secret ${pkg}/${pkg}-creds`]).toEqual(['- data.password: (redacted)', '+ data.password: (redacted)']);
    expect(changes.permissions.gained.map((g) => [g.scope, g.summary, g.escalates])).toEqual([
      ['cluster', `get,list,watch ${groupOf(pkg)}/gadgets`, false],
    ]);
    expect(changes.permissions.lost).toEqual([]);
    expect(changes.crdUpgradeSafety).toEqual({
      enforcement: 'Strict',
      crds: [
        { name: `gadgets.${groupOf(pkg)}`, verdict: 'new', violations: [] },
        { name: `widgets.${groupOf(pkg)}`, verdict: 'safe', violations: [] },
      ].sort((a, b) => (a.name < b.name ? -1 : 1)),
    });
    expect(json.stdout).not.toMatch(/hunter2|aHVudGVy/);
    // operator-controller runs here as a process, with its default gates: no Deployment to read them from.
    expect(plan.gates).toEqual({
      source: 'defaults',
      from: "operator-controller's defaults: no Deployment operator-controller-controller-manager (or one labelled app.kubernetes.io/name=operator-controller) in olmv1-system",
      values: {
        SingleOwnNamespaceInstallSupport: true,
        DeploymentConfig: true,
        WebhookProviderCertManager: true,
        WebhookProviderOpenshiftServiceCA: true,
      },
    });

    const text = await cli('plan', [pkg]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`Next: ${pkg}.v1.1.0 (1.1.0) from catalog ${pkg}`);
    expect(text.stdout).toMatch(
      /\nFeature gates: DeploymentConfig=true, .* \(from operator-controller's defaults: .*\)\nObjects: 4 added, 3 removed, 3 changed\n/,
    );
    expect(text.stdout).toContain(`  ~ Secret ${pkg}/${pkg}-creds\n      - data.password: (redacted)\n      + data.password: (redacted)\n`);
    expect(text.stdout).toContain(`approve it with: olmv1 upgrade approve ${pkg} 1.1.0`);
    expect(text.stdout).not.toMatch(/hunter2|aHVudGVy/);

    const refused = await cli('approve', [pkg, '2.0.0']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`the next upgrade of ${pkg} installs ${pkg}.v1.1.0 (1.1.0), not 2.0.0`);
    expect(refused.stderr).toContain('spec.source.catalog.version');
    const dry = await cli('approve', [pkg, '1.1.0', '--dry-run']);
    expect(dry).toMatchObject({ code: 0, stdout: expect.stringContaining('would approve') as unknown });
    const unapproved = await kube.client.get({ ...CLUSTER_EXTENSION, name: pkg });
    expect(unapproved.metadata.annotations?.[APPROVED_BUNDLE_ANNOTATION]).toBeUndefined();

    const approved = await cli('approve', [pkg, '1.1.0']);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain(`approved ${pkg}.v1.1.0`);
    await waitForExtension(kube.client, pkg, 'upgraded to 1.1.0', installedAs(`${pkg}.v1.1.0`), 90_000);

    const after = deployedRelease(await store.history(pkg));
    if (before === undefined || after === undefined) throw new Error('release records missing');
    expect(after.bundle.name).toBe(`${pkg}.v1.1.0`);
    // What the upgrade recorded is what the plan said.
    expect(objectDiff(before.manifest.objects(), after.manifest.objects())).toEqual(changes.objects);
    const recorded = permissionDelta(before.manifest.objects(), after.manifest.objects());
    expect({ gained: recorded.gained, lost: recorded.lost }).toEqual({ gained: changes.permissions.gained, lost: changes.permissions.lost });

    expect((await cli('approve', [pkg])).stderr).toContain('is up to date');
    const missing = await cli('plan', [`absent-${run}`]);
    expect(missing).toMatchObject({ code: 1, stderr: expect.stringContaining(`ClusterExtension "absent-${run}" not found`) as unknown });
  });
});
