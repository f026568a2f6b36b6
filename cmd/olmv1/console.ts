/**
 * `olmv1 console`: serves the web console (pkg/olmv1/console) on 127.0.0.1 with the identity of
 * the user's kubeconfig (resolved as every olmv1 command resolves it) until Ctrl-C; prints the
 * URL with the session token.
 */
import { randomBytes } from 'node:crypto';
import pino, { type Logger } from 'pino';
import { previewCrdDeletion } from '../../pkg/olmv1/crd-deletion/index.ts';
import {
  catalogBundleProperties,
  describeInstallerObject,
  listInstallerObjects,
  previewUninstall,
  uninstallExtension,
} from '../../pkg/olmv1/uninstall/index.ts';
import { createRevisionReader } from '../../pkg/operator-controller/revisions/index.ts';
import { createCatalogContentCache, type CatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { CLUSTER_CATALOG, CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { BUNDLE_IMAGE_LIMITS } from '../../pkg/shared/image/index.ts';
import { err, errorMessage } from '../../pkg/shared/errors/index.ts';
import { parseClusterVersion, type ClusterMinor } from '../../pkg/operator-controller/gating/index.ts';
import { collectStatus } from '../../pkg/olmv1/status/index.ts';
import { untilAborted, type KubeClient, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import {
  consoleWatches,
  ensureBundle,
  objectWatches,
  newSessionSecrets,
  podSources,
  streamedCatalog,
  startConsole,
  tenantSources,
  type CatalogForm,
  type ConsoleSources,
  type StartWatches,
} from '../../pkg/olmv1/console/index.ts';
import { CLUSTER_FLAGS, CLUSTER_FLAGS_HELP, clusterFlags } from './cluster-access.ts';
import { catalogManifest, createCatalog, deleteCatalog } from '../../pkg/olmv1/catalog/index.ts';
import { rollbackPorts, rollbackText } from './release-rollback.ts';
import { rollBack } from '../../pkg/olmv1/rollback/index.ts';
import { updateExtension, type CatalogFields } from '../../pkg/olmv1/update/index.ts';
import { approveUpgrade, planUpgrade } from '../../pkg/olmv1/upgrade/index.ts';
import { upgradeServiceDeps } from './upgrade-deps.ts';
import { listClusterCatalogs, type CatalogSourceDeps } from './catalog-sources.ts';
import { installPorts } from './install.ts';
import { installExtension, installerRbac, installRenderOptions, type InstallRequest } from '../../pkg/olmv1/install/index.ts';
import { installState, installedForSelector } from './install-objects.ts';
import { type CommandIO, signalExitCode } from './io.ts';
import { DEFAULT_SYSTEM_NAMESPACE } from './release.ts';
import { CommandError, loadBundle, parseCommandLine, runCommand, type BundleSourceDeps } from './render.ts';

const USAGE = `Usage: olmv1 console [--port PORT] [--catalogd-url URL] [--system-namespace NS] [--cluster-version X.Y[.Z]] [flags]

Serves a web console (OperatorHub, package pages with upgrade graphs and the permissions an
install needs, an install form, installed extensions with their conditions, Events, release
history with rollback to a revision (as "olmv1 release rollback" does it), the objects of the
deployed release with their health, and upgrade plan with Approve, uninstall with a preview
(and, opted in, the deletion of its CRDs and custom resources as "olmv1 uninstall --delete-crds"
does it), the ClusterCatalogs with add and remove, the cluster-upgrade gate of "olmv1 status") on 127.0.0.1 until Ctrl-C. It acts only as the user of the kubeconfig: every read and write goes to the API server
(and catalogd) with that identity; the console has no privilege of its own.

Flags:
  --port PORT                 port on 127.0.0.1 (default 0: a free port)
  --catalogd-url URL          reach catalogd at this origin instead of the host in the
                              ClusterCatalogs' status.urls.base (e.g. a port-forward)
  --system-namespace NS       where operator-controller keeps the release records (default ${DEFAULT_SYSTEM_NAMESPACE})
  --cluster-version X.Y[.Z]   the cluster's version for the Cluster page and upgrade plans, as
                              for "olmv1 status" (default: the ClusterVersion "version", on OpenShift)
${CLUSTER_FLAGS_HELP}
  -h, --help                  show this help

Output:
  stdout: the console's URL with its session token; open it in a browser. The token is not
  one-time: each visit of the URL signs a browser tab in, for as long as this console runs.
  Without it the console serves nothing; its API answers only the console's own page.
  stderr: problems while serving.

Exit codes:
  0    never (it serves until stopped)
  1    no kubeconfig, or the port is unavailable
  2    usage error
  130  stopped by SIGINT (Ctrl-C), 143 by SIGTERM`;

/** What `olmv1 console` needs from outside (composed in commands.ts). */
export interface ConsoleDeps extends Pick<CatalogSourceDeps, 'catalogClient' | 'connectCluster'>, BundleSourceDeps {
  /** catalogd's content as `olmv1 install` resolves against it (default: a cache over catalogClient). */
  catalogContent?: CatalogContentCache;
  /** Aborted by SIGINT/SIGTERM; its reason is the signal's name. */
  signal: AbortSignal;
  /** Where the browser bundle is built and kept. */
  cacheDir: string;
  /** The package lock whose content keys the bundle. */
  lockFile: string;
}

/** Runs the console until `deps.signal` aborts. */
export async function runConsole(args: string[], io: CommandIO, deps: ConsoleDeps): Promise<number> {
  return runCommand(io, async () => {
    const parsed = parseCommandLine(args, USAGE, {
      ...CLUSTER_FLAGS,
      port: { type: 'string' },
      'catalogd-url': { type: 'string' },
      'system-namespace': { type: 'string' },
      'cluster-version': { type: 'string' },
    });
    if (parsed.positionals.length > 0) throw new CommandError(`unexpected argument ${JSON.stringify(parsed.positionals[0])}\n${USAGE}`, 2);
    const rawPort = parsed.values.port ?? '0';
    const port = /^\d{1,5}$/.test(rawPort) ? Number(rawPort) : -1;
    if (port < 0 || port > 65535) throw new CommandError(`invalid --port ${JSON.stringify(rawPort)} (want 0-65535)\n${USAGE}`, 2);
    let catalogdUrl: URL | undefined;
    const rawUrl = parsed.values['catalogd-url'];
    if (rawUrl !== undefined) {
      catalogdUrl = URL.canParse(rawUrl) ? new URL(rawUrl) : undefined;
      if (catalogdUrl === undefined || !/^https?:$/.test(catalogdUrl.protocol))
        throw new CommandError(`invalid --catalogd-url ${JSON.stringify(rawUrl)} (want http(s)://HOST[:PORT])\n${USAGE}`, 2);
    }
    const systemNamespace = parsed.values['system-namespace'] ?? DEFAULT_SYSTEM_NAMESPACE;
    if (systemNamespace === '') throw new CommandError(`--system-namespace must not be empty\n${USAGE}`, 2);
    const rawVersion = parsed.values['cluster-version'];
    let clusterVersion: ClusterMinor | undefined;
    if (rawVersion !== undefined) {
      const cv = parseClusterVersion(rawVersion);
      if (!cv.ok) throw new CommandError(`--cluster-version: ${cv.error}\n${USAGE}`, 2);
      clusterVersion = cv.value;
    }
    const flags = clusterFlags(parsed.values, USAGE);
    const kube = await deps.connectCluster(flags);
    const catalogContent = deps.catalogContent ?? createCatalogContentCache({ client: deps.catalogClient });
    try {
      const assetsDir = await ensureBundle({ cacheDir: deps.cacheDir, lockFile: deps.lockFile });
      const secrets = newSessionSecrets(() => randomBytes(32).toString('base64url'));
      const log = pino({ level: 'warn' }, pino.destination(2));
      const running = await startConsole({
        port,
        secrets,
        assetsDir,
        log,
        catalogTtlMs: 30_000,
        now: () => Date.now(),
        ...consoleSources(kube, { ...deps, catalogContent }, { catalogdUrl, systemNamespace, clusterVersion, log }),
      }).catch((e: unknown) => {
        throw new CommandError(`cannot serve the console on 127.0.0.1:${port}: ${(e as Error).message}`, 1);
      });
      io.stdout.write(`${running.origin}/?token=${secrets.token}\n`);
      await untilAborted(deps.signal);
      await running.close();
      return signalExitCode(deps.signal.reason);
    } finally {
      kube.close();
    }
  });
}

/** What a console reads and writes through, and its watches: all as the user of `kube` (the kubeconfig's, or an in-cluster session's token). */
export function consoleSources(
  kube: KubeContext,
  deps: ConsoleDeps & { catalogContent: CatalogContentCache },
  o: { catalogdUrl: URL | undefined; systemNamespace: string; clusterVersion: ClusterMinor | undefined; log: Logger },
): { sources: ConsoleSources; watches: StartWatches } {
  const { catalogdUrl, systemNamespace, clusterVersion, log } = o;
  return {
    watches: consoleWatches({ client: kube.client, systemNamespace, log }),
    sources: {
      listCatalogs: (signal) => listClusterCatalogs(kube, catalogdUrl, signal),
      loadCatalog: (name, url, signal) => streamedCatalog(deps.catalogClient, name, url, signal),
      listExtensions: async (signal) => (await kube.client.listAll(CLUSTER_EXTENSION, { signal })).items,
      ...extensionSources(kube.client, systemNamespace),
      watchObjects: objectWatches({ client: kube.client, log }),
      installState: (obj) => {
        const s = installState(obj as KubeObject);
        return s.state === 'installed' ? { state: s.state, progress: `installed ${s.bundle} (${s.version})` } : s;
      },
      install: (request) => installAs(kube, deps, catalogdUrl, request),
      tenant: tenantSources(kube, { catalogContent: deps.catalogContent, catalogdUrl, log }),
      ...podSources(kube),
      ...adminSources(kube, deps, { systemNamespace, clusterVersion, catalogdUrl }),
    },
  };
}

/** The detail and uninstall of one ClusterExtension, read and written as the kubeconfig's user with the CLI's own code. */
function extensionSources(client: KubeClient, systemNamespace: string) {
  // An extension's revisions: its ClusterObjectSets under the BoxcutterRuntime, else its release records.
  const releases = createRevisionReader({ client, namespace: systemNamespace });
  return {
    getExtension: (name: string, signal: AbortSignal) => client.get({ ...CLUSTER_EXTENSION, name }, { signal }),
    // Cluster-scoped objects' Events are in namespace default (as client-go and operator-controller record them).
    extensionEvents: async (name: string, signal: AbortSignal) =>
      (
        await client.listAll(
          { apiVersion: 'v1', kind: 'Event' },
          { namespace: 'default', fieldSelector: `involvedObject.kind=ClusterExtension,involvedObject.name=${name}`, signal },
        )
      ).items,
    releaseHistory: (name: string, signal: AbortSignal) => releases.history(name, { signal }),
    readyNodes: async (signal: AbortSignal) =>
      (await client.listAll({ apiVersion: 'v1', kind: 'Node' }, { signal })).items.filter((n) =>
        ((n.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? []).some(
          (c) => c.type === 'Ready' && c.status === 'True',
        ),
      ).length,
    revisionHistory: (name: string, signal: AbortSignal) => releases.revisions(name, { signal }),
    objectScope: async (type: { apiVersion: string; kind: string }, signal: AbortSignal) => (await client.resourceFor(type, signal)).namespaced,
    getObject: (ref: { apiVersion: string; kind: string; name: string; namespace: string }, signal: AbortSignal) =>
      client.get(
        { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, ...(ref.namespace === '' ? {} : { namespace: ref.namespace }) },
        { signal },
      ),
    crdPreview: (name: string) => previewCrdDeletion({ client, revisions: releases }, name),
    installerObjects: async (name: string, signal: AbortSignal) =>
      (await listInstallerObjects(client, installedForSelector(name), signal)).map(describeInstallerObject),
    updateExtension: (name: string, fields: CatalogFields, dryRun: boolean) => updateExtension(client, { name, fields, dryRun }),
    createObject: async (obj: KubeObject, dryRun: boolean, signal: AbortSignal) => {
      await client.create(obj, { dryRun, fieldValidation: 'Strict', signal });
    },
    deleteExtension: async (name: string, uid: string, signal: AbortSignal) => {
      await client.delete({ ...CLUSTER_EXTENSION, name }, { preconditions: { uid }, signal });
    },
  };
}

/**
 * `olmv1 install`'s service itself (pkg/olmv1/install), on the console's connection (the same
 * user), reading catalogd as the command does: the install form creates exactly what the command creates.
 */
async function installAs(
  kube: KubeContext,
  deps: ConsoleDeps & { catalogContent: CatalogContentCache },
  catalogdUrl: URL | undefined,
  request: InstallRequest,
) {
  const clock = { sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)), now: () => Date.now() };
  const same = { connectCluster: () => Promise.resolve({ ...kube, close: () => undefined }), catalogContent: deps.catalogContent };
  const ports = {
    ...installPorts(kube, { ...same, ...clock }, catalogdUrl),
    loadBundle: (image: string) => loadBundle({ source: image, values: {}, imageLimits: BUNDLE_IMAGE_LIMITS }, bundleSourceDeps(deps), 'catalog'),
  };
  return installExtension(ports, request).catch((e: unknown) => err(errorMessage(e)));
}

/** The bundle-image access of `deps`. */
function bundleSourceDeps(deps: ConsoleDeps): BundleSourceDeps {
  return {
    ...(deps.fetchBundle === undefined ? {} : { fetchBundle: deps.fetchBundle }),
    ...(deps.defaultAuthFile === undefined ? {} : { defaultAuthFile: deps.defaultAuthFile }),
  };
}

/**
 * The Cluster and Catalogs pages, the upgrade plan and Approve, and a package's permissions: each
 * the CLI's own service or command run as the console's user (`olmv1 status`, `catalog add|remove`,
 * `upgrade plan|approve`, and `olmv1 rbac`'s computation for a catalog's bundle image).
 */
function adminSources(
  kube: KubeContext,
  deps: ConsoleDeps & { catalogContent: CatalogContentCache },
  {
    systemNamespace,
    clusterVersion,
    catalogdUrl,
  }: { systemNamespace: string; clusterVersion: ClusterMinor | undefined; catalogdUrl: URL | undefined },
) {
  const same = { connectCluster: () => Promise.resolve({ ...kube, close: () => undefined }) };
  const clock = { sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)), now: () => Date.now() };
  const bundleDeps = bundleSourceDeps(deps);
  const upgradeDeps = { ...same, catalogContent: deps.catalogContent, ...bundleDeps };
  const upgradeServices = () => upgradeServiceDeps(kube, upgradeDeps, { catalogdUrl, registryValues: {}, imageLimits: BUNDLE_IMAGE_LIMITS });
  return {
    // `olmv1 status`'s service itself, as the console's user.
    clusterStatus: (signal: AbortSignal) =>
      collectStatus({ client: kube.client, transport: kube.transport }, { namespace: systemNamespace, clusterVersion, signal }),
    listCatalogObjects: async (signal: AbortSignal) => (await kube.client.listAll(CLUSTER_CATALOG, { signal })).items,
    // `olmv1 catalog add|remove`'s service itself (pkg/olmv1/catalog), as the console's user.
    catalogAdd: (form: CatalogForm) => createCatalog(kube.client, catalogManifest({ ...form, available: true })),
    catalogRemove: (name: string) => deleteCatalog(kube.client, name),
    // `olmv1 upgrade plan|approve`'s services themselves, as the console's user; the page shows the plan as tables (ui/upgrade.tsx).
    upgradePlan: (extension: string) =>
      planUpgrade(upgradeServices(), { extension, systemNamespace, clusterVersion }).catch((e: unknown) => ({
        ok: false as const,
        error: errorMessage(e),
      })),
    upgradeApprove: (extension: string, version: string | undefined) =>
      approveUpgrade(upgradeServices(), { extension, systemNamespace, version }).catch((e: unknown) => ({
        ok: false as const,
        error: errorMessage(e),
      })),
    // `olmv1 release rollback NAME REVISION`'s service itself: its checks (CRD upgrade safety, resolution), refusals and patch.
    rollback: async (extension: string, revision: number) => {
      const ports = rollbackPorts(kube, { ...same, catalogContent: deps.catalogContent }, catalogdUrl);
      try {
        return rollbackText(await rollBack(ports, { extension, revision, systemNamespace }));
      } catch (e) {
        return { ok: false as const, error: errorMessage(e) };
      }
    },
    // `olmv1 uninstall NAME --delete-crds`'s service itself: its preview, refusals and deletion, reading catalogd as it does.
    uninstall: async (extension: string, preview: boolean) => {
      const ports = {
        client: kube.client,
        installerSelector: installedForSelector,
        catalogProperties: catalogBundleProperties(kube.client, deps.catalogContent),
        ...clock,
      };
      const request = { extension, systemNamespace, keepRbac: true, deleteCrds: true, timeoutMs: 2 * 60_000 };
      try {
        return await (preview ? previewUninstall(ports, request) : uninstallExtension(ports, request));
      } catch (e) {
        return { ok: false as const, error: { message: errorMessage(e) } };
      }
    },
    // As `olmv1 install` does: the image comes from a catalog (never a local path), then its installer RBAC.
    bundleRbac: async (image: string, installNamespace: string, serviceAccount: string) => {
      try {
        const bundle = await loadBundle({ source: image, values: {}, imageLimits: BUNDLE_IMAGE_LIMITS }, bundleDeps, 'catalog');
        return installerRbac(bundle, installRenderOptions(installNamespace), serviceAccount, { installNamespace });
      } catch (e) {
        return err(errorMessage(e));
      }
    },
  };
}
