// `olmv1 uninstall NAME --delete-crds` on the real API server, registry, catalogd and
// operator-controller (issue 63 item 4, decision 0119): an extension with two CRDs and custom
// resources in two namespaces, and a second extension whose bundle requires one of those APIs
// (in its catalog entry, as a CSV's required CRDs are): the preview refuses, naming it; once that
// one is uninstalled, the preview counts the custom resources per namespace, --yes deletes
// exactly what it listed (the API server deleting the custom resources with their CRDs) and its
// summary equals the preview; the other extension's kept CRD and custom resource stay.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runUninstall } from '../../cmd/olmv1/uninstall.ts';
import { createCatalogClient, createCatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import {
  bundleFiles,
  clusterExtension,
  groupOf,
  installedAs,
  installerFor,
  objectExists,
  packageCatalog,
  publishCatalog,
  pushBundle,
  useExtensionStack,
  waitForExtension,
  type BundleSpec,
} from '../support/extensions.ts';

const run = randomBytes(3).toString('hex');
const suite = useExtensionStack();

/** `olmv1 uninstall ARGS` in this process as the suite's admin, reading catalogs through catalogd. */
async function uninstall(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
  const client = createCatalogClient();
  try {
    const code = await runUninstall(args, io, {
      connectCluster: () => Promise.resolve({ ...suite.kube, close: () => undefined }),
      catalogContent: createCatalogContentCache({ client }),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      now: () => Date.now(),
    });
    return { code, stdout, stderr };
  } finally {
    client.close();
  }
}

/** One package's catalog with one bundle on `stable`, with extra catalog properties. */
async function catalogOf(spec: BundleSpec, extra: object[] = []): Promise<Record<string, string>> {
  const image = await pushBundle(bundleFiles(spec), `${suite.registry}/bundles/${spec.pkg}:v${spec.version}`);
  const files = packageCatalog(spec.pkg, {
    defaultChannel: 'stable',
    channels: [{ name: 'stable', entries: [{ version: spec.version }] }],
    bundles: [{ version: spec.version, image }],
  });
  const path = `${spec.pkg}/catalog.json`;
  const docs = (files[path] ?? '').split('\n').map((line) => JSON.parse(line) as { schema: string; properties?: object[] });
  for (const d of docs) if (d.schema === 'olm.bundle') d.properties = [...(d.properties ?? []), ...extra];
  return { [path]: docs.map((d) => JSON.stringify(d)).join('\n') };
}

const crdRef = (name: string) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name });

describe('olmv1 uninstall --delete-crds', () => {
  it('refuses a CRD another extension requires; then previews per namespace, deletes exactly that, and nothing else', async () => {
    const { client } = suite.kube;
    const dep: BundleSpec = { pkg: `crdgo-${run}`, version: '1.0.0', crds: ['widgets', 'gadgets'] };
    const app: BundleSpec = { pkg: `crduse-${run}`, version: '1.0.0' };
    const group = groupOf(dep.pkg);
    await installerFor(client, dep.pkg, 'installer', [dep]);
    await installerFor(client, app.pkg, 'installer', [app]);
    const requires = [{ type: 'olm.gvk.required', value: { group, version: 'v1', kind: 'Gadget' } }];
    await publishCatalog(suite.stack, `crdgo-${run}`, { ...(await catalogOf(dep)), ...(await catalogOf(app, requires)) });
    await client.create(clusterExtension(dep.pkg, { namespace: dep.pkg, serviceAccount: 'installer', packageName: dep.pkg }));
    await waitForExtension(client, dep.pkg, 'installed', installedAs(`${dep.pkg}.v1.0.0`), 90_000);
    await client.create(clusterExtension(app.pkg, { namespace: app.pkg, serviceAccount: 'installer', packageName: app.pkg }));
    await waitForExtension(client, app.pkg, 'installed', installedAs(`${app.pkg}.v1.0.0`), 90_000);

    const [nsA, nsB] = [`crd-a-${run}`, `crd-b-${run}`];
    for (const ns of [nsA, nsB]) await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const cr = (g: string, kind: string, name: string, namespace: string): KubeObject => ({
      apiVersion: `${g}/v1`,
      kind,
      metadata: { name, namespace },
      spec: { size: 1 },
    });
    for (const o of [
      cr(group, 'Widget', 'w1', nsA),
      cr(group, 'Widget', 'w2', nsA),
      cr(group, 'Widget', 'w3', nsB),
      cr(group, 'Gadget', 'g1', nsA),
      cr(groupOf(app.pkg), 'Widget', 'bystander', nsA),
    ])
      await client.create(o);

    // The other extension requires Gadget: refused, naming it; nothing deleted, the extension stays.
    const refused = await uninstall([dep.pkg, '--delete-crds', '--yes']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `refusing to delete the CustomResourceDefinitions of ClusterExtension "${dep.pkg}"; nothing was deleted:\n` +
        `  CustomResourceDefinition gadgets.${group}: ClusterExtension "${app.pkg}" requires API ${group}/v1 Gadget (olm.gvk.required)\n`,
    );
    expect(await objectExists(client, { ...CLUSTER_EXTENSION, name: dep.pkg })).toBe(true);
    expect(await objectExists(client, { apiVersion: `${group}/v1`, kind: 'Gadget', name: 'g1', namespace: nsA })).toBe(true);

    // Once it is uninstalled (its CRD kept, as always), the preview counts per namespace and deletes nothing.
    expect((await uninstall([app.pkg, '--timeout', '90s'])).code).toBe(0);
    const previewed = await uninstall([dep.pkg, '--delete-crds', '-o', 'json']);
    expect(previewed.code, previewed.stderr).toBe(0);
    const preview = JSON.parse(previewed.stdout) as { deleted: boolean; customResourceDefinitions: unknown[] };
    expect(preview).toEqual({
      extension: dep.pkg,
      deleted: false,
      customResourceDefinitions: [
        { name: `gadgets.${group}`, group, kind: 'Gadget', scope: 'Namespaced', customResources: [{ namespace: nsA, count: 1 }] },
        {
          name: `widgets.${group}`,
          group,
          kind: 'Widget',
          scope: 'Namespaced',
          customResources: [
            { namespace: nsA, count: 2 },
            { namespace: nsB, count: 1 },
          ],
        },
      ],
    });
    expect(await objectExists(client, { ...CLUSTER_EXTENSION, name: dep.pkg })).toBe(true);

    // With --yes: uninstalled, then everything the preview listed is gone, and the summary equals it.
    const done = await uninstall([dep.pkg, '--delete-crds', '--yes', '-o', 'json', '--timeout', '90s']);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toEqual({ ...preview, deleted: true });
    expect(await objectExists(client, { ...CLUSTER_EXTENSION, name: dep.pkg })).toBe(false);
    for (const plural of ['widgets', 'gadgets']) expect(await objectExists(client, crdRef(`${plural}.${group}`))).toBe(false);
    // Nothing else: the other extension's kept CRD and custom resource, and the namespaces.
    expect(await objectExists(client, crdRef(`widgets.${groupOf(app.pkg)}`))).toBe(true);
    expect(await objectExists(client, { apiVersion: `${groupOf(app.pkg)}/v1`, kind: 'Widget', name: 'bystander', namespace: nsA })).toBe(true);
    for (const ns of [nsA, nsB]) expect(await objectExists(client, { apiVersion: 'v1', kind: 'Namespace', name: ns })).toBe(true);
  });
});
