// Upstream's current ClusterExtension YAML (no spec.serviceAccount) on a stack whose
// operator-controller was deployed with a default install ServiceAccount (decision 0073): the
// config/default-installer component's ServiceAccount, bound to cluster-admin. The extension
// installs, is repaired and uninstalls as that identity; the same YAML with a serviceAccount
// still uses its own. Without a default the wait is in operator-controller-failures.test.ts.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import { waitUntil } from '../support/bundle-flow.ts';
import {
  applyAsAdmin,
  bundleFiles,
  clusterExtension,
  groupOf,
  installedAs,
  objectExists,
  packageCatalog,
  publishCatalog,
  pushBundle,
  useExtensionStack,
  waitForExtension,
  type BundleSpec,
} from '../support/extensions.ts';

const run = randomBytes(3).toString('hex');
const suite = useExtensionStack({ controller: { defaultInstallServiceAccount: { namespace: 'olmv1-system', name: 'olmv1-default-installer' } } });
const CE = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind };

async function component(): Promise<KubeObject[]> {
  const text = await readFile(new URL('../../config/default-installer/service-account.yaml', import.meta.url), 'utf8');
  return (loadAll(text) as KubeObject[]).filter((o) => o !== null);
}

describe('ClusterExtensions without spec.serviceAccount', () => {
  it('install, repair and uninstall as the default install ServiceAccount', async () => {
    const { kube } = suite;
    const pkg = `plain-${run}`;
    const spec: BundleSpec = { pkg, version: '1.0.0', configMaps: ['settings'] };
    await applyAsAdmin(kube.client, await component());
    await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: pkg } });
    const image = await pushBundle(bundleFiles(spec), `${suite.registry}/bundles/${pkg}:v1.0.0`);
    const files = packageCatalog(pkg, {
      defaultChannel: 'stable',
      channels: [{ name: 'stable', entries: [{ version: '1.0.0' }] }],
      bundles: [{ version: '1.0.0', image }],
    });
    await publishCatalog(suite.stack, `plain-${run}`, files);
    // Upstream's YAML: no serviceAccount (the suite's label and catalog selector added).
    const ce = clusterExtension(pkg, { namespace: pkg, serviceAccount: 'unused', packageName: pkg, version: '1.0.0' });
    delete (ce.spec as { serviceAccount?: unknown }).serviceAccount;
    await kube.client.create(ce);
    await waitForExtension(kube.client, pkg, 'installed', installedAs(`${pkg}.v1.0.0`));
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', namespace: pkg, name: `${pkg}-settings` };
    const live = await kube.client.get(cm);
    expect(live.metadata.labels?.['olm.operatorframework.io/owner-name']).toBe(pkg);
    // Drift is watched and repaired as that ServiceAccount too.
    await kube.client.delete(cm);
    await waitUntil('the ConfigMap is put back', () => objectExists(kube.client, cm), 30_000);
    await kube.client.delete({ ...CE, name: pkg });
    await waitUntil(`${pkg} is gone`, async () => !(await objectExists(kube.client, { ...CE, name: pkg })), 60_000);
    expect(await objectExists(kube.client, cm)).toBe(false);
    expect(
      await objectExists(kube.client, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: `widgets.${groupOf(pkg)}` }),
    ).toBe(true);
  });
});
