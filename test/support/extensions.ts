/**
 * Test helpers for operator-controller end-to-end suites: registry+v1 bundles generated per
 * test run (unique package, CRD group and cluster-scoped names, so tests can share the API
 * server), pushed as real bundle images; file-based catalogs that reference them; the
 * ServiceAccount and the RBAC `olmv1 rbac` prints for it; and waits on ClusterExtension status.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import { CLUSTER_CATALOG, CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { buildImage, createImageClient } from '../../pkg/shared/image/index.ts';
import { connect, isAlreadyExists, isNotFound, type KubeClient, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import type { OperatorControllerOptions } from '../../cmd/operator-controller/options.ts';
import type { CatalogdOptions } from '../../cmd/catalogd/options.ts';
import type { ControlPlaneInfo } from '../envtest/index.ts';
import { startCatalogd, type TestCatalogd } from './catalogd.ts';
import { condition, pushCatalog, waitForCatalog, writeCatalogFiles } from './catalogs.ts';
import { installOlmConfig } from './olm-config.ts';
import { startOperatorController, type TestOperatorController } from './operator-controller.ts';
import { type BundleText, runRbacCommand, waitUntil, writeBundleDir } from './bundle-flow.ts';
import { bundleFiles, type BundleSpec } from './bundle-gen.ts';
import { withTempDir } from './temp-dir.ts';

export { bundleFiles, groupOf, type BundleSpec, type CrdVersionSpec } from './bundle-gen.ts';

/**
 * Test files share one API server, and an extension without a selector resolves against every
 * catalog, so a catalog another file left unserved would block it (upstream's rule). Catalogs
 * published here carry this label with a value unique to the test file's module instance, and
 * extensions select it unless a test gives its own selector.
 */
export const SUITE_LABEL = 'olmv1.test/suite';
const SUITE = randomBytes(4).toString('hex');

/** Pushes `files` as a bundle image to `ref` on a loopback registry; returns `<repo>@<digest>`. */
export async function pushBundle(files: BundleText, ref: string): Promise<string> {
  const client = createImageClient({ insecureRegistries: ['127.0.0.1'] });
  try {
    const image = buildImage({
      files: new Map([...files].map(([p, t]) => [p, t] as const)),
      labels: {
        'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
        'operators.operatorframework.io.bundle.package.v1': files.get('metadata/annotations.yaml')?.match(/package\.v1: (\S+)/)?.[1] ?? '',
      },
    });
    const digest = await client.push(ref, image);
    return `${ref.replace(/:[^:/]+$/, '')}@${digest}`;
  } finally {
    client.close();
  }
}

/** One bundle as a catalog lists it. */
export interface CatalogBundle {
  version: string;
  image: string;
  skipRange?: string;
}

/** One channel: entry names are `<pkg>.v<version>`; `replaces` edges as given. */
export interface CatalogChannel {
  name: string;
  entries: { version: string; replaces?: string; skips?: string[]; skipRange?: string }[];
}

/** A file-based catalog (`<pkg>/catalog.json`) for one package. */
export function packageCatalog(
  pkg: string,
  opts: { defaultChannel: string; channels: CatalogChannel[]; bundles: CatalogBundle[]; deprecations?: object[] },
): Record<string, string> {
  const docs: object[] = [{ schema: 'olm.package', name: pkg, defaultChannel: opts.defaultChannel }];
  for (const ch of opts.channels) {
    docs.push({
      schema: 'olm.channel',
      package: pkg,
      name: ch.name,
      entries: ch.entries.map((e) => ({
        name: `${pkg}.v${e.version}`,
        ...(e.replaces === undefined ? {} : { replaces: `${pkg}.v${e.replaces}` }),
        ...(e.skips === undefined ? {} : { skips: e.skips.map((s) => `${pkg}.v${s}`) }),
        ...(e.skipRange === undefined ? {} : { skipRange: e.skipRange }),
      })),
    });
  }
  for (const b of opts.bundles) {
    docs.push({
      schema: 'olm.bundle',
      package: pkg,
      name: `${pkg}.v${b.version}`,
      image: b.image,
      properties: [{ type: 'olm.package', value: { packageName: pkg, version: b.version } }],
    });
  }
  if (opts.deprecations !== undefined) docs.push({ schema: 'olm.deprecations', package: pkg, entries: opts.deprecations });
  return { [`${pkg}/catalog.json`]: docs.map((d) => JSON.stringify(d)).join('\n') };
}

/**
 * The catalog of `pkg` offering `versions` on channel `stable`, each replacing the one before,
 * the bundle of each at `images[version]`.
 */
export function chainedPackageCatalog(pkg: string, versions: readonly string[], images: Readonly<Record<string, string>>): Record<string, string> {
  return packageCatalog(pkg, {
    defaultChannel: 'stable',
    channels: [{ name: 'stable', entries: versions.map((version, i) => ({ version, ...(i > 0 ? { replaces: versions[i - 1] } : {}) })) }],
    bundles: versions.map((version) => ({ version, image: images[version] ?? '' })),
  });
}

/** The RBAC `olmv1 rbac` prints for `files` installed into `namespace` by `serviceAccount` (ServiceAccount included), with `extraArgs`. */
export async function rbacFor(
  files: BundleText,
  namespace: string,
  serviceAccount: string,
  extraArgs: readonly string[] = [],
): Promise<KubeObject[]> {
  const out = await withTempDir('bundle-', async (tmp) => {
    const dir = await writeBundleDir(join(tmp, 'b'), files);
    return runRbacCommand([dir, '--install-namespace', namespace, '--service-account', serviceAccount, ...extraArgs]);
  });
  if (out.code !== 0) throw new Error(`olmv1 rbac failed: ${out.stderr}`);
  return out.objects;
}

/** Server-side applies `objects` as the test's admin. */
export async function applyAsAdmin(client: KubeClient, objects: readonly KubeObject[]): Promise<void> {
  for (const obj of objects) await client.apply(obj, { fieldManager: 'e2e-admin', force: true });
}

/** A ClusterExtension manifest. */
export function clusterExtension(
  name: string,
  spec: {
    namespace: string;
    serviceAccount: string;
    packageName: string;
    channels?: string[];
    version?: string;
    upgradeConstraintPolicy?: string;
    selector?: object;
    config?: object;
  },
): KubeObject {
  return {
    apiVersion: CLUSTER_EXTENSION.apiVersion,
    kind: CLUSTER_EXTENSION.kind,
    metadata: { name, labels: { [SUITE_LABEL]: SUITE } },
    spec: {
      namespace: spec.namespace,
      serviceAccount: { name: spec.serviceAccount },
      source: {
        sourceType: 'Catalog',
        catalog: {
          packageName: spec.packageName,
          ...(spec.channels === undefined ? {} : { channels: spec.channels }),
          ...(spec.version === undefined ? {} : { version: spec.version }),
          ...(spec.upgradeConstraintPolicy === undefined ? {} : { upgradeConstraintPolicy: spec.upgradeConstraintPolicy }),
          selector: spec.selector ?? { matchLabels: { [SUITE_LABEL]: SUITE } },
        },
      },
      ...(spec.config === undefined ? {} : { config: { configType: 'Inline', inline: spec.config } }),
    },
  };
}

/** A condition of a ClusterExtension. */
export interface ExtCondition {
  type: string;
  status: string;
  reason: string;
  message: string;
  observedGeneration?: number;
}

/** The current ClusterExtension and its conditions by type. */
export async function getExtension(
  client: KubeClient,
  name: string,
): Promise<{
  obj: KubeObject;
  cond: (type: string) => ExtCondition | undefined;
  install: { bundle: { name: string; version: string } } | undefined;
}> {
  const obj = await client.get({ apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind, name });
  const status = (obj.status ?? {}) as { conditions?: ExtCondition[]; install?: { bundle: { name: string; version: string } } };
  return { obj, cond: (type) => status.conditions?.find((c) => c.type === type), install: status.install };
}

/**
 * Waits until `check` holds for the ClusterExtension `name` (polled every 50 ms); the timeout
 * error shows the last conditions seen.
 */
export async function waitForExtension(
  client: KubeClient,
  name: string,
  what: string,
  check: (ext: Awaited<ReturnType<typeof getExtension>>) => boolean,
  timeoutMs = 60_000,
): Promise<Awaited<ReturnType<typeof getExtension>>> {
  let last: Awaited<ReturnType<typeof getExtension>> | undefined;
  try {
    await waitUntil(
      `${name}: ${what}`,
      async () => {
        last = await getExtension(client, name);
        return check(last);
      },
      timeoutMs,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; last status: ${JSON.stringify(last?.obj.status ?? null)}`, { cause: err });
  }
  if (last === undefined) throw new Error('unreachable');
  return last;
}

/**
 * Sets `spec.source.catalog.version` of the ClusterExtension `name` and waits until Progressing
 * is Retrying for that generation (a refused version change); returns the extension then.
 */
export async function requestRefusedVersion(client: KubeClient, name: string, version: string): Promise<Awaited<ReturnType<typeof getExtension>>> {
  const ref = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind, name };
  await client.patch(ref, { spec: { source: { catalog: { version } } } }, 'merge');
  return waitForExtension(
    client,
    name,
    `version ${version} refused`,
    (e) => e.cond('Progressing')?.reason === 'Retrying' && e.cond('Progressing')?.observedGeneration === e.obj.metadata.generation,
  );
}

/** True when the object exists, false when the API server says it does not. */
export async function objectExists(
  client: KubeClient,
  ref: { apiVersion: string; kind: string; name: string; namespace?: string },
): Promise<boolean> {
  return client.get(ref).then(
    () => true,
    (err: unknown) => (isNotFound(err) ? false : Promise.reject(err)),
  );
}

/** True when Installed is True and the installed bundle is `bundleName`. */
export function installedAs(bundleName: string): (ext: Awaited<ReturnType<typeof getExtension>>) => boolean {
  return (ext) =>
    ext.cond('Installed')?.status === 'True' && ext.install?.bundle.name === bundleName && ext.cond('Progressing')?.reason === 'Succeeded';
}

/** Writes `files` (path -> text) as a catalog directory, pushes it as a catalog image to `ref`; returns the digest. */
export async function pushCatalogFiles(files: Record<string, string>, ref: string): Promise<string> {
  return withTempDir('fbc-', async (dir) => pushCatalog(await writeCatalogFiles(dir, files), ref));
}

/** Everything an operator-controller end-to-end suite runs against. */
export interface ExtensionStack {
  cp: ControlPlaneInfo;
  kube: KubeContext;
  /** `127.0.0.1:<port>` of the anonymous test registry. */
  registry: string;
  catalogd: TestCatalogd;
  controller: TestOperatorController;
  stop(): Promise<void>;
}

/**
 * Installs the OLM CRDs, creates `olmv1-system`, and starts catalogd (polling "minutes" of one
 * second) and operator-controller (`options.controller` overrides its options) in this process.
 * Call from `beforeAll`; `stop` in `afterAll`.
 */
export async function startExtensionStack(
  cp: ControlPlaneInfo,
  registry: string,
  options: { controller?: Partial<OperatorControllerOptions>; catalogd?: Partial<CatalogdOptions> } = {},
): Promise<ExtensionStack> {
  await installOlmConfig(cp);
  const kube = await connect({ kind: 'file', path: cp.kubeconfigPath });
  await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'olmv1-system' } }).catch(() => undefined);
  const catalogd = await startCatalogd(cp, { pollMinuteMs: 1000, ...options.catalogd });
  const controller = await startOperatorController(cp, options.controller);
  return {
    cp,
    kube,
    registry,
    catalogd,
    controller,
    stop: async () => {
      await controller.destroy();
      await catalogd.destroy();
      await forgetSuiteExtensions(kube.client);
      kube.close();
    },
  };
}

/**
 * Deletes this file's ClusterExtensions and ClusterCatalogs (both carry its suite label)
 * without uninstalling them: their finalizers are dropped once the controllers are stopped.
 * The suites share one API server, and the next file's controllers would otherwise adopt them
 * (drift watches, upgrade gate, ingests of catalogs whose registries are gone), which its own
 * assertions and timings do not expect.
 */
async function forgetSuiteExtensions(client: KubeClient): Promise<void> {
  for (const kind of [CLUSTER_EXTENSION, CLUSTER_CATALOG]) {
    const ref = { apiVersion: kind.apiVersion, kind: kind.kind };
    const list = await client.list(ref);
    for (const item of list.items.filter(ofThisSuite)) {
      const name = item.metadata.name ?? '';
      await client.patch({ ...ref, name }, { metadata: { finalizers: null } }, 'merge').catch(() => undefined);
      await client.delete({ ...ref, name }).catch(() => undefined);
    }
  }
}

/**
 * True for this file's objects: those carrying its suite label, and extensions selecting its
 * catalogs by it (`olmv1 install -l`, which labels nothing it creates, dependencies included).
 */
function ofThisSuite(item: KubeObject): boolean {
  if (item.metadata.labels?.[SUITE_LABEL] === SUITE) return true;
  const selector = (item['spec'] as { source?: { catalog?: { selector?: { matchLabels?: Record<string, string> } } } } | undefined)?.source?.catalog
    ?.selector;
  return selector?.matchLabels?.[SUITE_LABEL] === SUITE;
}

/** A test file's extension stack, set before its first test runs (see `useExtensionStack`). */
export interface ExtensionSuite {
  stack: ExtensionStack;
  kube: KubeContext;
  /** `127.0.0.1:<port>` of the anonymous test registry. */
  registry: string;
}

/**
 * Starts the extension stack on the run's control plane (or `controlPlane`, the file's own) and
 * anonymous registry before the calling test file's tests and stops it after them. The returned
 * object is filled in then.
 */
export function useExtensionStack(
  options: { controller?: Partial<OperatorControllerOptions>; controlPlane?: { info: ControlPlaneInfo } } = {},
): ExtensionSuite {
  const suite = {} as ExtensionSuite;
  beforeAll(async () => {
    // A file's own control plane (test/support/own-control-plane.ts), or the run's shared one.
    const cp = options.controlPlane?.info ?? inject('envtestControlPlane');
    const stack = await startExtensionStack(cp, inject('envtestRegistries').anonymous.host, options);
    Object.assign(suite, { stack, kube: stack.kube, registry: stack.registry });
  });
  afterAll(async () => {
    await (suite.stack as ExtensionStack | undefined)?.stop();
  });
  return suite;
}

/**
 * Pushes `files` as the catalog image `<registry>/catalogs/<name>:latest`, creates the
 * ClusterCatalog (polled every "minute", i.e. second) unless it exists, and waits until it
 * serves that digest.
 */
export async function publishCatalog(
  stack: Pick<ExtensionStack, 'kube' | 'registry'>,
  name: string,
  files: Record<string, string>,
  spec: Record<string, unknown> = {},
): Promise<void> {
  const ref = `${stack.registry}/catalogs/${name}:latest`;
  const digest = await pushCatalogFiles(files, ref);
  const catalog = {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name, labels: { [SUITE_LABEL]: SUITE } },
    spec: { source: { type: 'Image', image: { ref, pollIntervalMinutes: 1 } }, ...spec },
  };
  await stack.kube.client.create(catalog).catch((err: unknown) => {
    if (!isAlreadyExists(err)) throw err;
  });
  await waitForCatalog(
    stack.kube.client,
    name,
    (cc) => condition(cc, 'Serving')?.status === 'True' && JSON.stringify(cc.status).includes(digest),
    90_000,
  );
}

/** One bundle of a package `offerPackage` publishes: its spec and its edges on the one channel, `stable`. */
export interface OfferedBundle {
  spec: BundleSpec;
  replaces?: string;
  skips?: string[];
  skipRange?: string;
}

/**
 * Pushes each bundle to the stack's registry (`<registry>/bundles/<pkg>:v<version>`) and
 * publishes them as the catalog `catalog`: one package, one channel `stable` listing them with
 * their edges (`publishCatalog`). Returns each version's pushed image reference.
 */
export async function offerPackage(
  stack: Pick<ExtensionStack, 'kube' | 'registry'>,
  catalog: string,
  bundles: readonly OfferedBundle[],
): Promise<Record<string, string>> {
  const pkg = bundles[0]?.spec.pkg ?? '';
  const images: Record<string, string> = {};
  for (const { spec } of bundles)
    images[spec.version] = await pushBundle(bundleFiles(spec), `${stack.registry}/bundles/${spec.pkg}:v${spec.version}`);
  const entries = bundles.map((b) => ({
    version: b.spec.version,
    ...(b.replaces === undefined ? {} : { replaces: b.replaces }),
    ...(b.skips === undefined ? {} : { skips: b.skips }),
    ...(b.skipRange === undefined ? {} : { skipRange: b.skipRange }),
  }));
  const published = bundles.map((b) => ({ version: b.spec.version, image: images[b.spec.version] ?? '' }));
  await publishCatalog(
    stack,
    catalog,
    packageCatalog(pkg, { defaultChannel: 'stable', channels: [{ name: 'stable', entries }], bundles: published }),
  );
  return images;
}

/** `specs` in order, each replacing the one before (for `offerPackage`). */
export function replacingChain(specs: readonly BundleSpec[]): OfferedBundle[] {
  return specs.map((spec, i) => ({ spec, ...(i === 0 ? {} : { replaces: specs[i - 1]?.version ?? '' }) }));
}

/** A namespace with a ServiceAccount holding exactly the RBAC `olmv1 rbac` prints for each of `bundles`. */
export async function installerFor(client: KubeClient, ns: string, sa: string, bundles: BundleSpec[]): Promise<void> {
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }).catch(() => undefined);
  for (const b of bundles) await applyAsAdmin(client, await rbacFor(bundleFiles(b), ns, sa));
}
