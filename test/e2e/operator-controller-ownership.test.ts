// operator-controller never takes over, fights over or deletes what is not its own (decision
// 0049): a bundle shipping a built-in ClusterRole, hand-made objects under bundle names, two
// extensions of one package, reinstall after uninstall (kept CRDs taken back), a webhook bundle
// without cert-manager (checked before the first write), an uninstall past an object the API
// server refuses to delete, and a version range walked hop by hop without outside help. Real API server, registry, catalogd and operator-controller.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import { createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import { waitUntil } from '../support/bundle-flow.ts';
import { waitForEvent } from '../support/events.ts';
import {
  applyAsAdmin,
  bundleFiles,
  clusterExtension,
  groupOf,
  installedAs,
  installerFor,
  objectExists,
  offerPackage,
  rbacFor,
  replacingChain,
  useExtensionStack,
  waitForExtension,
  type BundleSpec,
} from '../support/extensions.ts';

const run = randomBytes(3).toString('hex');
const suite = useExtensionStack();

const CE = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind };
const ceRef = (name: string) => ({ ...CE, name });
const cmRef = (ns: string, name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name });
const deployRef = (ns: string, name: string) => ({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name });
const crdRef = (name: string) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name });
const CONFLICT = 'failed to get release state using server-side dry-run: ';
/** Selects only the test's own catalog (named like its package): tests run concurrently. */
const own = (catalog: string) => ({ matchLabels: { 'olm.operatorframework.io/metadata.name': catalog } });

/** A catalog `<name>` offering `specs` of one package on one channel, each replacing the one before. */
async function offer(name: string, specs: BundleSpec[]): Promise<void> {
  await offerPackage(suite.stack, name, replacingChain(specs));
}

async function deleteExtension(name: string): Promise<void> {
  await suite.kube.client.delete(ceRef(name));
  await waitUntil(`${name} is gone`, async () => !(await objectExists(suite.kube.client, ceRef(name))), 60_000);
}

const resourceVersion = async (ref: { apiVersion: string; kind: string; name: string; namespace?: string }): Promise<string> =>
  (await suite.kube.client.get(ref)).metadata.resourceVersion ?? '';

/** Progressing Retrying with a refusal for the current generation. */
const refused = (e: Awaited<ReturnType<typeof waitForExtension>>): boolean =>
  e.cond('Progressing')?.reason === 'Retrying' && (e.cond('Progressing')?.message ?? '').includes('cannot be managed by operator-controller');

describe('operator-controller and objects it does not own', () => {
  it.concurrent('refuses a bundle shipping a built-in ClusterRole, even with every permission granted, and leaves it on uninstall', async () => {
    const { kube } = suite;
    const pkg = `builtin-${run}`;
    const hostile = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'system:basic-user' },
      rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
    };
    const spec: BundleSpec = { pkg, version: '1.0.0', extraObjects: [hostile] };
    const roleRef = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'system:basic-user' };
    const before = await kube.client.get(roleRef);
    await installerFor(kube.client, pkg, 'installer', [spec]);
    await offer(`builtin-${run}`, [spec]);
    await kube.client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg, selector: own(pkg) }));
    const ext = await waitForExtension(kube.client, pkg, 'refused', refused);
    expect(ext.cond('Progressing')?.message).toBe(
      `error for resolved bundle "${pkg}.v1.0.0" with version "1.0.0": ${CONFLICT}ClusterRole 'system:basic-user' already exists in namespace '' and cannot be managed by operator-controller`,
    );
    expect(ext.cond('Installed')).toMatchObject({ status: 'False', message: 'No bundle installed' });
    expect(await objectExists(kube.client, crdRef(`widgets.${groupOf(pkg)}`))).toBe(false);
    await deleteExtension(pkg);
    const after = await kube.client.get(roleRef);
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect((after as KubeObject & { rules?: unknown }).rules).toEqual((before as KubeObject & { rules?: unknown }).rules);
  });

  it.concurrent('refuses hand-made objects under bundle names, applies nothing and deletes none of them on uninstall', async () => {
    const { kube } = suite;
    const pkg = `handmade-${run}`;
    const spec: BundleSpec = { pkg, version: '1.0.0', configMaps: ['settings'] };
    await installerFor(kube.client, pkg, 'installer', [spec]);
    await kube.client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${pkg}-settings`, namespace: pkg }, data: { mine: 'yes' } });
    const selector = { matchLabels: { app: 'users-own' } };
    await kube.client.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: `${pkg}-controller`, namespace: pkg },
      spec: {
        replicas: 0,
        selector,
        template: { metadata: { labels: selector.matchLabels }, spec: { containers: [{ name: 'c', image: 'registry.invalid/user:1' }] } },
      },
    });
    const versions = [await resourceVersion(cmRef(pkg, `${pkg}-settings`)), await resourceVersion(deployRef(pkg, `${pkg}-controller`))];
    await offer(`handmade-${run}`, [spec]);
    await kube.client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg, selector: own(pkg) }));
    const ext = await waitForExtension(kube.client, pkg, 'refused', refused);
    expect(ext.cond('Progressing')?.message).toMatch(
      new RegExp(
        `^error for resolved bundle "${pkg}.v1.0.0" with version "1.0.0": ${CONFLICT}(ConfigMap '${pkg}-settings'|Deployment '${pkg}-controller') already exists in namespace '${pkg}' and cannot be managed by operator-controller$`,
      ),
    );
    // Nothing applied, nothing recorded.
    expect(await objectExists(kube.client, crdRef(`widgets.${groupOf(pkg)}`))).toBe(false);
    expect(await objectExists(kube.client, { apiVersion: 'v1', kind: 'ServiceAccount', namespace: pkg, name: `${pkg}-controller` })).toBe(false);
    expect(await createReleaseStore({ client: kube.client, namespace: 'olmv1-system' }).history(pkg)).toEqual([]);
    await deleteExtension(pkg);
    expect([await resourceVersion(cmRef(pkg, `${pkg}-settings`)), await resourceVersion(deployRef(pkg, `${pkg}-controller`))]).toEqual(versions);
  });

  it.concurrent(
    'refuses a second extension of an installed package without touching the first, and deleting it deletes nothing of the first',
    async () => {
      const { kube } = suite;
      const pkg = `twins-${run}`;
      const spec: BundleSpec = { pkg, version: '1.0.0', configMaps: ['settings'] };
      await installerFor(kube.client, pkg, 'installer', [spec]);
      await offer(`twins-${run}`, [spec]);
      const [first, second] = [`${pkg}-first`, `${pkg}-second`];
      await kube.client.create(clusterExtension(first, { namespace: pkg, serviceAccount: 'installer', packageName: pkg, selector: own(pkg) }));
      await waitForExtension(kube.client, first, 'installed', installedAs(`${pkg}.v1.0.0`));
      const firsts = [cmRef(pkg, `${pkg}-settings`), deployRef(pkg, `${pkg}-controller`), crdRef(`widgets.${groupOf(pkg)}`)];
      const versions = await Promise.all(firsts.map(resourceVersion));
      await kube.client.create(clusterExtension(second, { namespace: pkg, serviceAccount: 'installer', packageName: pkg, selector: own(pkg) }));
      const ext = await waitForExtension(kube.client, second, 'refused', refused);
      const message = ext.cond('Progressing')?.message;
      expect(message).toBe(
        // The first shared object in the release's (Helm's install) order.
        `error for resolved bundle "${pkg}.v1.0.0" with version "1.0.0": ${CONFLICT}ServiceAccount '${pkg}-controller' already exists in namespace '${pkg}' and cannot be managed by operator-controller`,
      );
      // The refusal is retried with backoff, each one recorded in the OwnershipConflict Event's
      // series: after several of them, the first's objects are still untouched.
      await waitForEvent(kube.client, 'ClusterExtension', second, 'OwnershipConflict', (e) => e.count >= 8);
      expect(await Promise.all(firsts.map(resourceVersion))).toEqual(versions);
      expect((await waitForExtension(kube.client, second, 'still refused', () => true)).cond('Progressing')?.message).toBe(message);
      await deleteExtension(second);
      expect(await Promise.all(firsts.map(resourceVersion))).toEqual(versions);
      await waitForExtension(kube.client, first, 'still installed', installedAs(`${pkg}.v1.0.0`));
    },
  );

  it.concurrent('takes back the CRDs an uninstall of the same package kept, under another extension name', async () => {
    const { kube } = suite;
    const pkg = `again-${run}`;
    const spec: BundleSpec = { pkg, version: '1.0.0' };
    await installerFor(kube.client, pkg, 'installer', [spec]);
    await offer(`again-${run}`, [spec]);
    const crd = crdRef(`widgets.${groupOf(pkg)}`);
    await kube.client.create(clusterExtension(`${pkg}-one`, { namespace: pkg, serviceAccount: 'installer', packageName: pkg, selector: own(pkg) }));
    await waitForExtension(kube.client, `${pkg}-one`, 'installed', installedAs(`${pkg}.v1.0.0`));
    await deleteExtension(`${pkg}-one`);
    const kept = await kube.client.get(crd);
    expect(kept.metadata.annotations?.['olm.operatorframework.io/kept-for-package']).toBe(pkg);
    await kube.client.create(clusterExtension(`${pkg}-two`, { namespace: pkg, serviceAccount: 'installer', packageName: pkg, selector: own(pkg) }));
    await waitForExtension(kube.client, `${pkg}-two`, 'installed', installedAs(`${pkg}.v1.0.0`));
    const taken = await kube.client.get(crd);
    expect(taken.metadata.labels?.['olm.operatorframework.io/owner-name']).toBe(`${pkg}-two`);
    expect(taken.metadata.annotations?.['olm.operatorframework.io/kept-for-package']).toBeUndefined();
  });

  it.concurrent('checks a webhook bundle before the first write: without cert-manager nothing is applied, and uninstall completes', async () => {
    const { kube } = suite;
    const pkg = `hooks-${run}`;
    const spec: BundleSpec = { pkg, version: '1.0.0', webhook: true };
    await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: pkg } });
    await applyAsAdmin(kube.client, await rbacFor(bundleFiles(spec), pkg, 'installer', ['--cert-provider', 'cert-manager']));
    await offer(`hooks-${run}`, [spec]);
    await kube.client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg, selector: own(pkg) }));
    const ext = await waitForExtension(kube.client, pkg, 'refused by the dry run', (e) =>
      (e.cond('Progressing')?.message ?? '').includes('no matches for kind'),
    );
    // Upstream's text (pkg/operator-controller/applier/missing-kinds.ts): every object of an
    // unserved kind, in Helm's order (kinds unknown to Helm alphabetically), not just the first.
    const cert = `${pkg}-controller-service-cert`;
    const notFound = (name: string, kind: string): string =>
      `resource mapping not found for name: "${name}" namespace: "${pkg}" from "": no matches for kind "${kind}" in version "cert-manager.io/v1"\nensure CRDs are installed first`;
    expect(ext.cond('Progressing')?.message).toBe(
      `error for resolved bundle "${pkg}.v1.0.0" with version "1.0.0": ${CONFLICT}error while running post render on files: postrenderer[0] (*client.ownerPostRenderer) failed: ` +
        `[${notFound(cert, 'Certificate')}, ${notFound(`${cert}-selfsigned-issuer`, 'Issuer')}]`,
    );
    expect(ext.cond('Installed')?.status).toBe('False');
    expect(await objectExists(kube.client, crdRef(`widgets.${groupOf(pkg)}`))).toBe(false);
    expect(await objectExists(kube.client, deployRef(pkg, `${pkg}-controller`))).toBe(false);
    // As upstream, whose Helm maps every object before its dry run: nothing recorded either.
    expect(await createReleaseStore({ client: kube.client, namespace: 'olmv1-system' }).history(pkg)).toEqual([]);
    await deleteExtension(pkg);
  });

  it.concurrent('uninstalls past an object the API server refuses to delete, leaving it and deleting the rest', async () => {
    const { kube } = suite;
    const pkg = `locked-${run}`;
    const spec: BundleSpec = { pkg, version: '1.0.0', configMaps: ['locked', 'free'] };
    await installerFor(kube.client, pkg, 'installer', [spec]);
    await offer(`locked-${run}`, [spec]);
    await kube.client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg, selector: own(pkg) }));
    await waitForExtension(kube.client, pkg, 'installed', installedAs(`${pkg}.v1.0.0`));
    const policy = `keep-${pkg}`;
    const admission = 'admissionregistration.k8s.io/v1';
    await kube.client.create({
      apiVersion: admission,
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: policy },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['configmaps'] }] },
        validations: [{ expression: `oldObject.metadata.name != '${pkg}-locked'`, message: 'this ConfigMap is kept' }],
      },
    });
    await kube.client.create({
      apiVersion: admission,
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: policy },
      spec: { policyName: policy, validationActions: ['Deny'] },
    });
    try {
      // The policy is in force once a dry-run delete is refused.
      await waitUntil('the policy refuses the delete', () =>
        kube.client.delete(cmRef(pkg, `${pkg}-locked`), { dryRun: true }).then(
          () => false,
          () => true,
        ),
      );
      await deleteExtension(pkg);
      expect(await objectExists(kube.client, cmRef(pkg, `${pkg}-locked`))).toBe(true);
      expect(await objectExists(kube.client, cmRef(pkg, `${pkg}-free`))).toBe(false);
      expect(await objectExists(kube.client, deployRef(pkg, `${pkg}-controller`))).toBe(false);
    } finally {
      await kube.client.delete({ apiVersion: admission, kind: 'ValidatingAdmissionPolicyBinding', name: policy });
      await kube.client.delete({ apiVersion: admission, kind: 'ValidatingAdmissionPolicy', name: policy });
    }
  });

  it.concurrent('walks a version range to its top hop by hop without outside help', async () => {
    const { kube } = suite;
    const pkg = `hops-${run}`;
    const specs: BundleSpec[] = ['1.0.0', '1.1.0', '1.2.0', '1.3.0'].map((version) => ({
      pkg,
      version,
      configMaps: [`v${version.replace(/\./g, '')}`],
    }));
    await installerFor(kube.client, pkg, 'installer', specs);
    await offer(`hops-${run}`, specs);
    await kube.client.create(
      clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg, version: '1.0.0', selector: own(pkg) }),
    );
    await waitForExtension(kube.client, pkg, 'installed 1.0.0', installedAs(`${pkg}.v1.0.0`));
    await kube.client.patch(ceRef(pkg), { spec: { source: { catalog: { version: '>=1.0.0' } } } }, 'merge');
    await waitForExtension(kube.client, pkg, 'walked to 1.3.0', installedAs(`${pkg}.v1.3.0`), 90_000);
    const history = await createReleaseStore({ client: kube.client, namespace: 'olmv1-system' }).history(pkg);
    expect(history.map((r) => [r.bundle.version, r.status])).toEqual([
      ['1.3.0', 'deployed'],
      ['1.2.0', 'superseded'],
      ['1.1.0', 'superseded'],
      ['1.0.0', 'superseded'],
    ]);
  });
});
