// Upstream's documentation examples (test/fixtures/upstream-docs) installed on a stack like
// `npm start`'s: catalogd, and operator-controller with the default install ServiceAccount of
// config/default-installer (none of the examples names a ServiceAccount, as upstream's current
// docs do not). The public catalogs cannot be reached here, so local catalogs serve generated
// bundles under the packages, channels and versions the examples ask for, and under the catalog
// names and labels the catalog-selection page uses.
//
// What the environment forces and nothing more is changed: the namespaces the examples install
// into and watch exist beforehand (upstream's pages list that as a prerequisite). The admission
// suite (test/integration/upstream-docs-examples.test.ts) has the verdicts; here the admitted
// examples are created as they are, the tutorials' sequences are followed, the templates are
// filled in with the values their pages suggest, and the draft examples that both CRDs refuse
// are installed with what their pages omit added, so that the behaviour they describe is
// checked too. Each test removes its extension and waits until it is gone, since many examples
// share a name.
import { readFile } from 'node:fs/promises';
import { loadAll } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { isAlreadyExists, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { waitUntil } from '../support/bundle-flow.ts';
import {
  applyAsAdmin,
  bundleFiles,
  type BundleSpec,
  type CatalogChannel,
  getExtension,
  installedAs,
  objectExists,
  packageCatalog,
  publishCatalog,
  pushBundle,
  useExtensionStack,
  waitForExtension,
} from '../support/extensions.ts';
import { type DocExample, fillPlaceholders, upstreamDocExample, upstreamDocExamples } from '../support/upstream-docs.ts';

const suite = useExtensionStack({ controller: { defaultInstallServiceAccount: { namespace: 'olmv1-system', name: 'olmv1-default-installer' } } });
const CE = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind };

/** One package in one local catalog: its channels (entries replace the previous one) and install modes. */
interface LocalPackage {
  pkg: string;
  channels: Record<string, string[]>;
  installModes?: string[];
}

// argocd-operator as the examples use it: the tutorials' 0.2.0 -> 0.2.1 upgrade edge and 0.6.0;
// a `stable` channel whose head is the 1.3.2 one example excludes; `preview` and `dev-preview`
// holding the 2.3.x z-stream and the 3.x range. Own, Single and AllNamespaces, as the draft
// install-mode page needs.
const ARGOCD: LocalPackage = {
  pkg: 'argocd-operator',
  channels: { alpha: ['0.2.0', '0.2.1', '0.6.0'], stable: ['1.3.1', '1.3.2'], preview: ['2.3.0', '2.3.1'], 'dev-preview': ['3.0.0', '3.5.0'] },
  installModes: ['OwnNamespace', 'SingleNamespace', 'AllNamespaces'],
};

/**
 * The local catalogs. `operatorhubio` (upstream's getting-started name for the OperatorHub
 * catalog) carries every package; `catalog-a` and `catalog-b` are the catalog-selection page's
 * end-to-end example (labels and priorities as there); `catalog-gold` and `unwanted-catalog`
 * give its `In` and `NotIn` selectors something to select and exclude. Each of those holds a
 * version of argocd-operator no other catalog has, so the installed version shows which catalog
 * was chosen; `unwanted-catalog` has the highest priority and would win wherever it is selected.
 */
const CATALOGS: { name: string; labels?: Record<string, string>; priority?: number; packages: LocalPackage[] }[] = [
  {
    name: 'operatorhubio',
    packages: [
      ARGOCD,
      { pkg: 'my-package', channels: { stable: ['1.0.0'] }, installModes: ['OwnNamespace'] },
      { pkg: 'monitor-operator', channels: { stable: ['1.0.0'] }, installModes: ['SingleNamespace'] },
      { pkg: 'global-operator', channels: { stable: ['1.0.0'] } },
      { pkg: 'camel-k', channels: { stable: ['1.3.1'], fast: ['1.3.1'] } },
      { pkg: 'production-operator', channels: { stable: ['1.2.3'] }, installModes: ['SingleNamespace', 'AllNamespaces'] },
    ],
  },
  {
    name: 'catalog-a',
    labels: { 'example.com/support': 'true' },
    priority: 1000,
    packages: [
      { pkg: 'my-operator', channels: { stable: ['1.0.0'] } },
      { pkg: 'argocd-operator', channels: { alpha: ['1.0.0'] } },
    ],
  },
  {
    name: 'catalog-b',
    labels: { 'example.com/support': 'false' },
    priority: 500,
    packages: [{ pkg: 'my-operator', channels: { stable: ['2.0.0'] } }],
  },
  { name: 'catalog-gold', labels: { 'example.com/support': 'gold' }, packages: [{ pkg: 'argocd-operator', channels: { alpha: ['1.1.0'] } }] },
  {
    name: 'unwanted-catalog',
    labels: { 'example.com/support': 'false' },
    priority: 2000,
    packages: [{ pkg: 'argocd-operator', channels: { alpha: ['9.9.9'] } }],
  },
];

/** Namespaces the examples install into or watch; upstream's pages expect them to exist. */
const NAMESPACES = [
  'argocd',
  'argocd-watch',
  'camel-k',
  'my-operator-ns',
  'ops-system',
  'dev-team-a',
  'operators',
  'my-namespace',
  'production-operators',
  'production-workloads',
];

async function publishLocalCatalogs(): Promise<void> {
  const { kube, registry } = suite;
  const images = new Map<string, string>();
  for (const catalog of CATALOGS) {
    let files: Record<string, string> = {};
    for (const p of catalog.packages) {
      const versions = [...new Set(Object.values(p.channels).flat())];
      for (const version of versions) {
        const key = `${p.pkg}@${version}`;
        if (images.has(key)) continue;
        const spec: BundleSpec = { pkg: p.pkg, version, ...(p.installModes === undefined ? {} : { installModes: p.installModes }) };
        images.set(key, await pushBundle(bundleFiles(spec), `${registry}/bundles/${p.pkg}:v${version}`));
      }
      const channels: CatalogChannel[] = Object.entries(p.channels).map(([name, vs]) => ({
        name,
        entries: vs.map((version, i) => ({ version, ...(i === 0 ? {} : { replaces: vs[i - 1] }) })),
      }));
      const bundles = versions.map((version) => ({ version, image: images.get(`${p.pkg}@${version}`) ?? '' }));
      files = { ...files, ...packageCatalog(p.pkg, { defaultChannel: Object.keys(p.channels)[0] ?? '', channels, bundles }) };
    }
    await publishCatalog(suite.stack, catalog.name, files, catalog.priority === undefined ? {} : { priority: catalog.priority });
    if (catalog.labels !== undefined) {
      await kube.client.patch(
        { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', name: catalog.name },
        { metadata: { labels: catalog.labels } },
        'merge',
      );
    }
  }
}

beforeAll(async () => {
  const { kube } = suite;
  const component = await readFile(new URL('../../config/default-installer/service-account.yaml', import.meta.url), 'utf8');
  await applyAsAdmin(
    kube.client,
    (loadAll(component) as (KubeObject | null)[]).filter((o) => o !== null),
  );
  for (const name of NAMESPACES) await createUnlessExists({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await publishLocalCatalogs();
});

// Runs before the stack stops (after-hooks run in reverse): a test that failed half-way may
// leave its extension; it is uninstalled while operator-controller still runs.
afterAll(async () => {
  for (const name of new Set(upstreamDocExamples().map((e) => e.extension.metadata.name ?? ''))) await removeExtension(name);
  await removeExtension('my-camel-k');
});

async function createUnlessExists(obj: KubeObject): Promise<void> {
  await suite.kube.client.create(obj, { fieldValidation: 'Strict' }).catch((err: unknown) => {
    if (!isAlreadyExists(err)) throw err;
  });
}

async function removeExtension(name: string): Promise<void> {
  const client = suite.kube.client;
  if (!(await objectExists(client, { ...CE, name }))) return;
  await client.delete({ ...CE, name });
  await waitUntil(`${name} is uninstalled and gone`, async () => !(await objectExists(client, { ...CE, name })), 60_000);
}

/**
 * Creates the example's objects in order, as `kubectl apply -f` would (a Namespace the block
 * carries is left if it exists already), with strict field validation, and waits until it is
 * installed as `bundle`. The extension is removed when the test ends.
 */
async function install(example: DocExample, bundle: string): Promise<void> {
  const name = example.extension.metadata.name ?? '';
  onTestFinished(() => removeExtension(name));
  for (const obj of example.objects) {
    if (obj === example.extension) await suite.kube.client.create(obj, { fieldValidation: 'Strict' });
    else await createUnlessExists(obj);
  }
  await waitForExtension(suite.kube.client, name, `installed as ${bundle}`, installedAs(bundle));
}

/**
 * Replaces the spec of the installed extension with the example's, as `kubectl apply -f` of a
 * changed file or `kubectl edit` do, and waits until the new generation is installed as `bundle`.
 */
async function change(example: DocExample, bundle: string): Promise<void> {
  const { client } = suite.kube;
  const name = example.extension.metadata.name ?? '';
  const live = await client.get({ ...CE, name });
  const updated = await client.update({ ...live, spec: example.extension.spec }, { fieldValidation: 'Strict' });
  await waitForExtension(
    client,
    name,
    `generation ${updated.metadata.generation} installed as ${bundle}`,
    (e) => installedAs(bundle)(e) && e.cond('Progressing')?.observedGeneration === updated.metadata.generation,
  );
}

/** The example with `edit` applied to a copy of its ClusterExtension. */
function edited(example: DocExample, edit: (spec: Record<string, unknown>) => void): DocExample {
  const extension = structuredClone(example.extension);
  edit(extension.spec as Record<string, unknown>);
  return { ...example, objects: example.objects.map((o) => (o === example.extension ? extension : o)), extension };
}

/** Adds the `configType: Inline` upstream's CRD requires and the draft pages leave out. */
const withConfigType = (example: DocExample): DocExample =>
  edited(example, (spec) => {
    spec.config = { configType: 'Inline', ...(spec.config as object) };
  });

/** The live Deployment `<pkg>-controller` in `namespace` (the generated bundles' one Deployment). */
async function deploymentOf(
  pkg: string,
  namespace: string,
): Promise<{ spec: { template: { metadata?: { annotations?: object }; spec: Record<string, unknown> } } }> {
  return (await suite.kube.client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: `${pkg}-controller` })) as never;
}

/** Fixture id -> the bundle it installs, for the examples created exactly as upstream's pages show them. */
const UNCHANGED: [string, string][] = [
  ['config/samples/olm_v1_clusterextension', 'argocd-operator.v0.6.0'],
  // Catalog selection: the installed version tells the catalog (see CATALOGS).
  ['docs/concepts/controlling-catalog-selection-1', 'argocd-operator.v3.5.0'], // operatorhubio, by name
  ['docs/concepts/controlling-catalog-selection-2', 'argocd-operator.v1.0.0'], // catalog-a, support "true"
  ['docs/concepts/controlling-catalog-selection-3', 'argocd-operator.v1.1.0'], // catalog-gold, In [gold, platinum]
  ['docs/concepts/controlling-catalog-selection-4', 'argocd-operator.v1.0.0'], // all but unwanted-catalog: catalog-a's priority
  ['docs/concepts/controlling-catalog-selection-5', 'argocd-operator.v3.5.0'], // the one catalog without the label
  ['docs/concepts/controlling-catalog-selection-6', 'my-operator.v1.0.0'], // catalog-a, not catalog-b's 2.0.0
  ['docs/concepts/crd-upgrade-safety-1', 'argocd-operator.v0.6.0'],
  ['docs/concepts/upgrade-support-2', 'argocd-operator.v0.6.0'],
  ['docs/draft/howto/configure-bundles-1', 'my-package.v1.0.0'], // OwnNamespace only, watching its own namespace
  ['docs/draft/howto/configure-bundles-2', 'monitor-operator.v1.0.0'], // SingleNamespace only, watching dev-team-a
  ['docs/draft/howto/configure-bundles-3', 'global-operator.v1.0.0'],
  ['docs/howto/how-to-channel-based-upgrades-1', 'argocd-operator.v3.5.0'], // newest in dev-preview and preview
  ['docs/howto/how-to-channel-based-upgrades-2', 'argocd-operator.v1.3.1'], // stable's head 1.3.2 excluded
  ['docs/howto/how-to-pin-version-1', 'argocd-operator.v0.6.0'],
  ['docs/howto/how-to-version-range-upgrades-1', 'argocd-operator.v3.5.0'],
  ['docs/howto/how-to-z-stream-upgrades-1', 'argocd-operator.v2.3.1'],
];

/** Fixture ids the tests below cover otherwise (sequences, templates, drafts). */
const COVERED_BELOW = [
  'docs/tutorials/upgrade-extension-1',
  'docs/tutorials/upgrade-extension-2',
  'docs/tutorials/downgrade-extension-1',
  'docs/tutorials/downgrade-extension-2',
  'docs/tutorials/downgrade-extension-3',
  'docs/tutorials/install-extension-1',
  'docs/concepts/upgrade-support-1',
  'docs/draft/howto/single-ownnamespace-install-1',
  'docs/draft/howto/single-ownnamespace-install-2',
  'docs/draft/howto/customize-operator-deployments-1',
  'docs/draft/howto/customize-operator-deployments-2',
  'docs/draft/howto/customize-operator-deployments-3',
];

describe('upstream documentation examples', () => {
  it('are all installed below, and none names a ServiceAccount', () => {
    const ids = upstreamDocExamples().map((e) => e.id);
    expect([...UNCHANGED.map(([id]) => id), ...COVERED_BELOW].sort()).toEqual(ids);
    // One that did would need that ServiceAccount with the RBAC `olmv1 rbac` prints (rbacFor).
    expect(upstreamDocExamples().filter((e) => (e.extension.spec as { serviceAccount?: unknown }).serviceAccount !== undefined)).toEqual([]);
  });

  it.each(UNCHANGED)('%s installs unchanged as %s', async (id, bundle) => {
    await install(upstreamDocExample(id), bundle);
  });

  it('upgrade-extension: 0.2.0, then the 0.2.1 manifest applied over it, upgrades along the catalog edge', async () => {
    await install(upstreamDocExample('docs/tutorials/upgrade-extension-1'), 'argocd-operator.v0.2.0');
    await change(upstreamDocExample('docs/tutorials/upgrade-extension-2'), 'argocd-operator.v0.2.1');
  });

  it('downgrade-extension: safety off, then SelfCertified, then the target version (filled in: 0.2.0) downgrades', async () => {
    await install(upstreamDocExample('docs/tutorials/downgrade-extension-1'), 'argocd-operator.v0.6.0');
    await change(upstreamDocExample('docs/tutorials/downgrade-extension-2'), 'argocd-operator.v0.6.0');
    await change(fillPlaceholders(upstreamDocExample('docs/tutorials/downgrade-extension-3')), 'argocd-operator.v0.2.0');
  });

  it.each([['docs/tutorials/install-extension-1'], ['docs/concepts/upgrade-support-1']])(
    '%s, filled in with the values its page suggests, installs',
    async (id) => {
      await install(fillPlaceholders(upstreamDocExample(id)), 'camel-k.v1.3.1');
    },
  );

  describe('draft pages refused by both CRDs install with spec.config.configType: Inline added', () => {
    it.each([['docs/draft/howto/single-ownnamespace-install-1'], ['docs/draft/howto/single-ownnamespace-install-2']])('%s', async (id) => {
      const example = withConfigType(upstreamDocExample(id));
      await install(example, 'argocd-operator.v0.2.1');
      // The watched namespace is the one configured (SingleNamespace or OwnNamespace).
      const watch = (example.extension.spec as { config: { inline: { watchNamespace: string } } }).config.inline.watchNamespace;
      const d = await deploymentOf('argocd-operator', 'argocd');
      expect(JSON.stringify(d.spec.template.metadata?.annotations)).toContain(`"olm.targetNamespaces":"${watch}"`);
    });

    it('customize-operator-deployments-1: the deploymentConfig reaches the Deployment', async () => {
      await install(withConfigType(upstreamDocExample('docs/draft/howto/customize-operator-deployments-1')), 'my-operator.v1.0.0');
      const d = await deploymentOf('my-operator', 'my-namespace');
      const [container] = d.spec.template.spec.containers as { env?: object[]; resources?: object }[];
      expect(container?.env).toContainEqual({ name: 'LOG_LEVEL', value: 'debug' });
      expect(container?.resources).toEqual({ requests: { memory: '256Mi', cpu: '100m' }, limits: { memory: '512Mi', cpu: '200m' } });
    });

    it('customize-operator-deployments-2: watchNamespace and every deploymentConfig field reach the Deployment', async () => {
      await install(withConfigType(upstreamDocExample('docs/draft/howto/customize-operator-deployments-2')), 'production-operator.v1.2.3');
      const d = await deploymentOf('production-operator', 'production-operators');
      const pod = d.spec.template;
      expect(pod.metadata?.annotations).toMatchObject({ 'olm.targetNamespaces': 'production-workloads', 'prometheus.io/scrape': 'true' });
      expect(pod.spec.nodeSelector).toEqual({ 'node-role.kubernetes.io/operator': '' });
      expect(pod.spec.tolerations).toContainEqual({ key: 'node-role.kubernetes.io/operator', operator: 'Exists', effect: 'NoSchedule' });
      expect(pod.spec.volumes).toContainEqual({ name: 'operator-cache', emptyDir: { sizeLimit: '2Gi' } });
      const [container] = pod.spec.containers as { env?: object[]; envFrom?: object[]; volumeMounts?: object[] }[];
      expect(container?.env).toContainEqual({ name: 'METRICS_PORT', value: '8080' });
      expect(container?.envFrom).toContainEqual({ secretRef: { name: 'operator-credentials' } });
      expect(container?.volumeMounts).toContainEqual({ name: 'operator-cache', mountPath: '/var/cache/operator' });
    });

    it('customize-operator-deployments-3: also with `channel: stable` written as the API has it, `channels: [stable]`', async () => {
      const example = edited(withConfigType(upstreamDocExample('docs/draft/howto/customize-operator-deployments-3')), (spec) => {
        const catalog = (spec.source as { catalog: Record<string, unknown> }).catalog;
        catalog.channels = [catalog.channel];
        delete catalog.channel;
      });
      await install(example, 'my-operator.v1.0.0');
      const [container] = (await deploymentOf('my-operator', 'operators')).spec.template.spec.containers as { env?: object[] }[];
      expect(container?.env).toContainEqual({ name: 'LOG_LEVEL', value: 'debug' });
      expect((await getExtension(suite.kube.client, 'my-operator')).cond('Installed')?.status).toBe('True');
    });
  });
});
