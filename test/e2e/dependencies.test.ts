// Dependencies declared by bundles (decision 0104) on the real API server, registry, catalogd and
// operator-controller: an extension whose bundle requires a package and an API that nothing on
// the cluster provides is not installed, and Progressing says which requirement and what the
// selected catalog offers for it; once the dependency is installed (its CRD served, its
// ClusterExtension installed), the waiting extension is reconciled again at once and installs.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
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

/** The one-package catalog of `spec` with `requires` added to its bundle's properties. */
async function catalogOf(spec: BundleSpec, requires: object[] = []): Promise<Record<string, string>> {
  const image = await pushBundle(bundleFiles(spec), `${suite.registry}/bundles/${spec.pkg}:v${spec.version}`);
  const files = packageCatalog(spec.pkg, {
    defaultChannel: 'stable',
    channels: [{ name: 'stable', entries: [{ version: spec.version }] }],
    bundles: [{ version: spec.version, image }],
  });
  const path = `${spec.pkg}/catalog.json`;
  const docs = (files[path] ?? '').split('\n').map((line) => JSON.parse(line) as { schema: string; properties?: object[] });
  for (const d of docs) if (d.schema === 'olm.bundle') d.properties = [...(d.properties ?? []), ...requires];
  return { [path]: docs.map((d) => JSON.stringify(d)).join('\n') };
}

describe('bundle dependencies', () => {
  it('refuses an install whose requirements nothing meets, then installs once the dependency is installed', async () => {
    const { kube } = suite;
    const dep: BundleSpec = { pkg: `dep-${run}`, version: '1.2.0' };
    const app: BundleSpec = { pkg: `app-${run}`, version: '1.0.0' };
    await installerFor(kube.client, dep.pkg, 'installer', [dep]);
    await installerFor(kube.client, app.pkg, 'installer', [app]);
    const requires = [
      {
        type: 'olm.constraint',
        value: { failureMessage: `app needs ${dep.pkg} 1.1 or later`, package: { packageName: dep.pkg, versionRange: '>=1.1.0' } },
      },
      // Met only by the API server once the dependency's CRD is installed: the catalog does not list the API.
      { type: 'olm.gvk.required', value: { group: groupOf(dep.pkg), version: 'v1', kind: 'Widget' } },
    ];
    const catalog = `deps-${run}`;
    await publishCatalog(suite.stack, catalog, { ...(await catalogOf(dep)), ...(await catalogOf(app, requires)) });

    await kube.client.create(clusterExtension(app.pkg, { namespace: app.pkg, serviceAccount: 'installer', packageName: app.pkg }));
    const refused = await waitForExtension(kube.client, app.pkg, 'refused for its dependency', (e) =>
      (e.cond('Progressing')?.message ?? '').includes('has an unmet dependency'),
    );
    expect(refused.cond('Progressing')).toMatchObject({
      status: 'True',
      reason: 'Retrying',
      message:
        `bundle "${app.pkg}.v1.0.0" has an unmet dependency: app needs ${dep.pkg} 1.1 or later ` +
        `(olm.constraint: package "${dep.pkg}" in range ">=1.1.0"), met by no installed ClusterExtension and no API the cluster serves; ` +
        `the selected catalogs offer it: package "${dep.pkg}" (bundle "${dep.pkg}.v1.2.0", catalog "${catalog}"); install one with a ClusterExtension`,
    });
    expect(refused.cond('Installed')).toMatchObject({ status: 'False' });
    expect(refused.install).toBeUndefined();

    // The dependency is installed as any extension; the waiting one follows without a nudge.
    await kube.client.create(clusterExtension(dep.pkg, { namespace: dep.pkg, serviceAccount: 'installer', packageName: dep.pkg }));
    await waitForExtension(kube.client, dep.pkg, 'installed', installedAs(`${dep.pkg}.v1.2.0`), 90_000);
    const installed = await waitForExtension(kube.client, app.pkg, 'installed once its dependency is', installedAs(`${app.pkg}.v1.0.0`), 90_000);
    expect(installed.cond('Progressing')).toMatchObject({ status: 'True', reason: 'Succeeded' });
  });
});
