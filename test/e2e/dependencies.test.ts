// Dependencies declared by bundles (decision 0104) on the real API server, registry, catalogd and
// operator-controller: an extension whose bundle requires a package and an API that nothing on
// the cluster provides is not installed, and Progressing says which requirement and what the
// selected catalog offers for it; once the dependency is installed (its CRD served, its
// ClusterExtension installed), the waiting extension is reconciled again at once and installs.
// Then the dependency's upgrade out of the dependent's range is held until the dependent moves,
// and deleting the dependency is reported on the dependent, which stays installed.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fetchBundleFiles } from '../../cmd/olmv1/bundle-image.ts';
import { loadFS } from '../../pkg/shared/fbc/index.ts';
import { runResolve } from '../../cmd/olmv1/resolve.ts';
import { runInstall, type InstallDeps } from '../../cmd/olmv1/install.ts';
import { runUpgradePlan, type UpgradeCommandDeps } from '../../cmd/olmv1/upgrade.ts';
import { createCatalogClient, createCatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { waitForEvent } from '../support/events.ts';
import { readMetric } from '../support/operator-controller.ts';
import {
  bundleFiles,
  clusterExtension,
  groupOf,
  installedAs,
  installerFor,
  packageCatalog,
  publishCatalog,
  requestRefusedVersion,
  pushBundle,
  useExtensionStack,
  waitForExtension,
  type BundleSpec,
} from '../support/extensions.ts';

const run = randomBytes(3).toString('hex');
const suite = useExtensionStack();

/** `olmv1 upgrade plan NAME` in this process against the suite's cluster. */
async function plan(name: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
  const client = createCatalogClient();
  const deps: UpgradeCommandDeps = {
    connectCluster: () => Promise.resolve({ ...suite.kube, close: () => undefined }),
    catalogContent: createCatalogContentCache({ client }),
    fetchBundle: (ref, access) => fetchBundleFiles(ref, { insecureRegistries: ['127.0.0.1', 'localhost'], ...access }),
  };
  try {
    return { code: await runUpgradePlan([name], io, deps), stdout, stderr };
  } finally {
    client.close();
  }
}

/** `olmv1 resolve --cluster NAME` in this process against the suite's cluster: its JSON output. */
async function resolveCluster(name: string): Promise<{ code: number; out: Record<string, unknown> }> {
  let stdout = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: () => undefined } };
  const client = createCatalogClient();
  try {
    const connectCluster = () => Promise.resolve({ ...suite.kube, close: () => undefined });
    const code = await runResolve(['--cluster', name], io, {
      loadCatalogDir: loadFS,
      connectCluster,
      catalogContent: createCatalogContentCache({ client }),
    });
    return { code, out: JSON.parse(stdout) as Record<string, unknown> };
  } finally {
    client.close();
  }
}

/** `olmv1 install ARGS` in this process against the suite's cluster. */
async function install(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
  const client = createCatalogClient();
  const deps: InstallDeps = {
    connectCluster: () => Promise.resolve({ ...suite.kube, close: () => undefined }),
    catalogContent: createCatalogContentCache({ client }),
    fetchBundle: (ref, access) => fetchBundleFiles(ref, { insecureRegistries: ['127.0.0.1', 'localhost'], ...access }),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    now: () => Date.now(),
  };
  try {
    return { code: await runInstall(args, io, deps), stdout, stderr };
  } finally {
    client.close();
  }
}

/** One package's catalog: `bundles` in order on channel `stable`, each replacing the one before, with their extra properties. */
async function catalogOf(pkg: string, bundles: { version: string; requires?: object[] }[]): Promise<Record<string, string>> {
  const images: Record<string, string> = {};
  for (const b of bundles)
    images[b.version] = await pushBundle(bundleFiles({ pkg, version: b.version }), `${suite.registry}/bundles/${pkg}:v${b.version}`);
  const files = packageCatalog(pkg, {
    defaultChannel: 'stable',
    channels: [{ name: 'stable', entries: bundles.map((b, i) => ({ version: b.version, ...(i > 0 ? { replaces: bundles[i - 1]?.version } : {}) })) }],
    bundles: bundles.map((b) => ({ version: b.version, image: images[b.version] ?? '' })),
  });
  const path = `${pkg}/catalog.json`;
  const docs = (files[path] ?? '').split('\n').map((line) => JSON.parse(line) as { schema: string; name?: string; properties?: object[] });
  for (const d of docs) {
    const extra = bundles.find((b) => `${pkg}.v${b.version}` === d.name)?.requires ?? [];
    if (d.schema === 'olm.bundle') d.properties = [...(d.properties ?? []), ...extra];
  }
  return { [path]: docs.map((d) => JSON.stringify(d)).join('\n') };
}

describe('bundle dependencies', () => {
  it('refuses an install whose requirements nothing meets and installs it once they are met; holds an upgrade that would break it until it moves; reports a deleted dependency on it', async () => {
    const { kube } = suite;
    const dep: BundleSpec = { pkg: `dep-${run}`, version: '1.2.0' };
    const app: BundleSpec = { pkg: `app-${run}`, version: '1.0.0' };
    await installerFor(kube.client, dep.pkg, 'installer', [dep, { ...dep, version: '2.0.0' }]);
    await installerFor(kube.client, app.pkg, 'installer', [app, { ...app, version: '1.1.0' }]);
    const requires = [
      {
        type: 'olm.constraint',
        value: { failureMessage: `app needs ${dep.pkg} 1.1 or later`, package: { packageName: dep.pkg, versionRange: '>=1.1.0 <2.0.0' } },
      },
      // Met only by the API server once the dependency's CRD is installed: the catalog does not list the API.
      { type: 'olm.gvk.required', value: { group: groupOf(dep.pkg), version: 'v1', kind: 'Widget' } },
    ];
    const catalog = `deps-${run}`;
    await publishCatalog(suite.stack, catalog, {
      ...(await catalogOf(dep.pkg, [{ version: '1.2.0' }])),
      ...(await catalogOf(app.pkg, [{ version: '1.0.0', requires }])),
    });

    await kube.client.create(clusterExtension(app.pkg, { namespace: app.pkg, serviceAccount: 'installer', packageName: app.pkg }));
    const refused = await waitForExtension(kube.client, app.pkg, 'refused for its dependency', (e) =>
      (e.cond('Progressing')?.message ?? '').includes('has an unmet dependency'),
    );
    expect(refused.cond('Progressing')).toMatchObject({
      status: 'True',
      reason: 'Retrying',
      message:
        `bundle "${app.pkg}.v1.0.0" has an unmet dependency: app needs ${dep.pkg} 1.1 or later ` +
        `(olm.constraint: package "${dep.pkg}" in range ">=1.1.0 <2.0.0"), met by no installed ClusterExtension and no API the cluster serves; ` +
        `the selected catalogs offer it: package "${dep.pkg}" (bundle "${dep.pkg}.v1.2.0", catalog "${catalog}"); install one with a ClusterExtension`,
    });
    expect(refused.cond('Installed')).toMatchObject({ status: 'False' });
    expect(refused.install).toBeUndefined();
    // olmv1 resolve --cluster checks dependencies as the controller does, with its text.
    expect(await resolveCluster(app.pkg)).toMatchObject({ code: 1, out: { error: refused.cond('Progressing')?.message } });

    // The dependency is installed as any extension; the waiting one follows without a nudge.
    await kube.client.create(clusterExtension(dep.pkg, { namespace: dep.pkg, serviceAccount: 'installer', packageName: dep.pkg }));
    await waitForExtension(kube.client, dep.pkg, 'installed', installedAs(`${dep.pkg}.v1.2.0`), 90_000);
    const installed = await waitForExtension(kube.client, app.pkg, 'installed once its dependency is', installedAs(`${app.pkg}.v1.0.0`), 90_000);
    expect(installed.cond('Progressing')).toMatchObject({ status: 'True', reason: 'Succeeded' });
    expect(await resolveCluster(app.pkg)).toMatchObject({ code: 0, out: { bundle: { name: `${app.pkg}.v1.0.0` } } });

    // dep 2.0.0 is out of app 1.0.0's range: dep's upgrade is held, naming app, and dep stays at 1.2.0.
    const app11 = { version: '1.1.0', requires: [{ type: 'olm.package.required', value: { packageName: dep.pkg, versionRange: '>=1.1.0' } }] };
    const depFiles = await catalogOf(dep.pkg, [{ version: '1.2.0' }, { version: '2.0.0' }]);
    await publishCatalog(suite.stack, catalog, { ...depFiles, ...(await catalogOf(app.pkg, [{ version: '1.0.0', requires }])) });
    const held = await waitForExtension(kube.client, dep.pkg, 'upgrade held', (e) => (e.cond('Progressing')?.message ?? '').includes('held'), 90_000);
    expect(held.cond('Progressing')?.message).toBe(
      `upgrade to bundle "${dep.pkg}.v2.0.0" held: it would leave ClusterExtension "${app.pkg}" with an unmet dependency: ` +
        `app needs ${dep.pkg} 1.1 or later (olm.constraint: package "${dep.pkg}" in range ">=1.1.0 <2.0.0")`,
    );
    expect(held.install?.bundle.name).toBe(`${dep.pkg}.v1.2.0`);
    // olmv1 upgrade plan says so too.
    const planned = await plan(dep.pkg);
    expect(planned.stderr).not.toContain('error');
    expect(planned.stdout).toContain(`Next: ${dep.pkg}.v2.0.0 (2.0.0) from catalog ${catalog}`);
    expect(planned.stdout).toContain(`Held for a dependent: ${held.cond('Progressing')?.message ?? ''}\n`);

    // The dependent moves to a bundle that accepts 2.0.0: the held upgrade goes ahead at once.
    await publishCatalog(suite.stack, catalog, { ...depFiles, ...(await catalogOf(app.pkg, [{ version: '1.0.0', requires }, app11])) });
    await waitForExtension(kube.client, app.pkg, 'upgraded', installedAs(`${app.pkg}.v1.1.0`), 90_000);
    await waitForExtension(kube.client, dep.pkg, 'upgrade released', installedAs(`${dep.pkg}.v2.0.0`), 90_000);

    // Deleting the dependency is the administrator's call: it goes, and app reports what it lost.
    await kube.client.delete({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension', name: dep.pkg });
    const lost = await waitForExtension(
      kube.client,
      app.pkg,
      'reports the lost dependency',
      (e) => (e.cond('Progressing')?.message ?? '').includes('has an unmet dependency'),
      90_000,
    );
    expect(lost.cond('Progressing')?.message).toContain(
      `bundle "${app.pkg}.v1.1.0" has an unmet dependency: package "${dep.pkg}" in range ">=1.1.0" (olm.package.required)`,
    );
    expect(lost.cond('Installed')).toMatchObject({ status: 'True' });
    expect(lost.install?.bundle.name).toBe(`${app.pkg}.v1.1.0`);
    const warning = await waitForEvent(kube.client, 'ClusterExtension', app.pkg, 'ResolutionFailed');
    expect(warning.type).toBe('Warning');
    expect(await readMetric(suite.stack.controller.healthUrl, 'olmv1_extension_dependency_unmet', { name: app.pkg })).toBe(1);
  });

  it('passes over a bundle whose CSV minKubeVersion is newer than the API server, and refuses it when asked for', async () => {
    const { kube } = suite;
    const pkg = `kubever-${run}`;
    await installerFor(kube.client, pkg, 'installer', [
      { pkg, version: '1.0.0' },
      { pkg, version: '2.0.0' },
    ]);
    const tooNew = [{ type: 'olm.csv.metadata', value: { minKubeVersion: '99.0.0' } }];
    await publishCatalog(suite.stack, `kubever-${run}`, await catalogOf(pkg, [{ version: '1.0.0' }, { version: '2.0.0', requires: tooNew }]));
    await kube.client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg }));
    await waitForExtension(kube.client, pkg, 'installed below the bundle too new for the cluster', installedAs(`${pkg}.v1.0.0`), 90_000);
    const resolved = await resolveCluster(pkg);
    expect(resolved).toMatchObject({ code: 0, out: { bundle: { name: `${pkg}.v1.0.0` } } });
    expect(resolved.out).not.toHaveProperty('dependencyNote');
    const passed = await waitForEvent(kube.client, 'ClusterExtension', pkg, 'BundlePassedOver');
    expect(passed.type).toBe('Normal');
    expect(passed.note).toMatch(
      new RegExp(
        `^chose bundle ${pkg}\\.v1\\.0\\.0; passed over:\\n${pkg}\\.v2\\.0\\.0: bundle "${pkg}\\.v2\\.0\\.0": CSV version requirement not met: minKubeVersion \\(99\\.0\\.0\\) > server version \\(1\\.\\d+\\.\\d+\\)$`,
      ),
    );
    const refused = await requestRefusedVersion(kube.client, pkg, '2.0.0');
    expect(refused.cond('Progressing')?.message).toMatch(
      /^bundle "kubever-[0-9a-f]+\.v2\.0\.0": CSV version requirement not met: minKubeVersion \(99\.0\.0\) > server version \(1\.\d+\.\d+\)$/,
    );
    expect(refused.install?.bundle.name).toBe(`${pkg}.v1.0.0`);
  });

  it('olmv1 install --with-dependencies installs the dependency the cluster lacks first, with its own ServiceAccount, and refuses a requirement no catalog provides', async () => {
    const { kube } = suite;
    const base = `base-${run}`;
    const top = `top-${run}`;
    const lonely = `lonely-${run}`;
    const needs = (pkg: string) => [{ type: 'olm.package.required', value: { packageName: pkg, versionRange: '>=1.0.0' } }];
    const catalog = `withdeps-${run}`;
    await publishCatalog(suite.stack, catalog, {
      ...(await catalogOf(base, [{ version: '1.0.0' }, { version: '1.1.0' }])),
      ...(await catalogOf(top, [{ version: '1.0.0', requires: needs(base) }])),
      ...(await catalogOf(lonely, [{ version: '1.0.0', requires: needs(`missing-${run}`) }])),
    });
    const labels =
      (await kube.client.get({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', name: catalog })).metadata.labels ?? {};
    // The suite's own catalogs only: other files' catalogs on the shared API server may be unserved.
    const sel = Object.entries(labels)
      .filter(([k]) => !k.startsWith('olm.operatorframework.io/'))
      .map(([k, v]) => `${k}=${v}`)
      .join(',');

    const refused = await install([lonely, '-l', sel, '--with-dependencies']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `nothing installed: bundle "${lonely}.v1.0.0" has an unmet dependency: package "missing-${run}" in range ">=1.0.0" (olm.package.required)`,
    );
    expect(refused.stderr).toContain('no selected catalog provides it');
    await expect(kube.client.get({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension', name: lonely })).rejects.toThrow();

    const done = await install([top, '-l', sel, '--with-dependencies', '--timeout', '90s']);
    expect(done.stderr).not.toContain('error');
    expect(done.code).toBe(0);
    expect(done.stderr).toContain(`dependency 1 of ${top}: installing package ${base} (${base}.v1.1.0 from catalog ${catalog})`);
    // Dependencies first: base's ClusterExtension is created (and Installed) before top's.
    const created = done.stderr.split('\n').filter((l) => l.startsWith('created ClusterExtension'));
    expect(created).toEqual([`created ClusterExtension ${base}`, `created ClusterExtension ${top}`]);
    expect(done.stdout).toContain(`installed ${top}: ${top}.v1.0.0 (1.0.0)`);
    const dep = await waitForExtension(kube.client, base, 'installed as a dependency', installedAs(`${base}.v1.1.0`));
    expect(dep.obj['spec']).toMatchObject({ namespace: base, serviceAccount: { name: `${base}-installer` } });
    await kube.client.get({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: base, name: `${base}-installer` });
    await waitForExtension(kube.client, top, 'installed', installedAs(`${top}.v1.0.0`));
  });
});
