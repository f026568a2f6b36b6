/**
 * `olmv1 install PACKAGE` (USAGE in install-args.ts): resolves, pulls, computes the bundle's RBAC
 * (none with `--service-account`, an existing ServiceAccount checked first) and writes the
 * labelled objects of install-objects.ts (install-write.ts: each first tried with a
 * server-side dry run so that refusals are reported before anything is written, and what an
 * interrupted run of the same install left is used or updated); then waits for Installed.
 */
import { CLUSTER_CATALOG, CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { BUNDLE_IMAGE_LIMITS } from '../../pkg/shared/image/index.ts';
import { isNotFound, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import type { RegistryV1Bundle } from '../../pkg/operator-controller/bundle/index.ts';
import { render, type RenderOptions } from '../../pkg/operator-controller/render/index.ts';
import { metadataFor, resolve } from '../../pkg/operator-controller/resolve/index.ts';
import { imageLimitOptions } from '../shared/limits.ts';
import { withCluster } from './cluster-access.ts';
import { type CommandIO, EXIT, poll, type Clock } from './io.ts';
import { parseInstallArgs, type InstallArgs } from './install-args.ts';
import { installDependencies } from './install-dependencies.ts';
import { installTenant } from './install-tenant.ts';
import { catalogSource, installObjects, installState } from './install-objects.ts';
import { writeInstall } from './install-write.ts';
import { installRbac } from './rbac.ts';
import { CommandError, buildRenderOptions, formatObjects, loadBundle, refusalMessage, runCommand, type BundleSourceDeps } from './render.ts';
import { clusterCatalogSource, clusterResolutionHints, clusterResolve, clusterResolveInput, type ResolveClusterDeps } from './resolve-cluster.ts';
import type { Provider } from '../../pkg/operator-controller/dependencies/index.ts';

/** What `install` needs (composed in commands.ts). */
export interface InstallDeps extends ResolveClusterDeps, BundleSourceDeps, Clock {}

/** Runs `olmv1 install`; `args` are the arguments after `install`. */
export async function runInstall(args: readonly string[], io: CommandIO, deps: InstallDeps): Promise<number> {
  return runCommand(io, async () => {
    const a = parseInstallArgs(args);
    await withCluster(deps.connectCluster(a.cluster), async (kube) => {
      await (a.tenant ? installTenant(a, kube, io, deps) : install(a, kube, io, deps));
    });
  });
}

/** The install of dependency provider `p` for `a`: named after its package, pinned to its version, from the same selected catalogs, waited for. */
function dependencyArgs(a: InstallArgs, p: Provider): InstallArgs {
  const name = p.packageName;
  const request = {
    ...a.request,
    name,
    packageName: name,
    namespace: name,
    serviceAccount: `${name}-installer`,
    channels: [],
    version: p.version,
    watchNamespace: undefined,
  };
  return { ...a, request, existingServiceAccount: false, tenant: false, output: undefined, wait: true };
}

async function install(
  a: InstallArgs,
  kube: KubeContext,
  io: CommandIO,
  deps: InstallDeps,
  installing: ReadonlySet<string> = new Set(),
): Promise<void> {
  const req = a.request;
  // --service-account: the ServiceAccount must be there before anything is resolved or pulled.
  if (
    a.existingServiceAccount &&
    !(await exists(kube, { apiVersion: 'v1', kind: 'ServiceAccount', name: req.serviceAccount, namespace: req.namespace }))
  ) {
    throw new CommandError(
      `ServiceAccount ${req.namespace}/${req.serviceAccount} not found: --service-account names an existing ServiceAccount of the install namespace ` +
        `(create it and grant it what the bundle needs, or leave out --service-account to have install create ${req.name}-installer with least privilege)`,
      EXIT.failed,
    );
  }
  const catalogs = (await kube.client.listAll(CLUSTER_CATALOG)).items.map((c) => c.metadata.name ?? '');
  if (catalogs.length === 0) throw new CommandError('the cluster has no ClusterCatalogs: add one with "olmv1 catalog add NAME IMAGE"', EXIT.failed);
  if (a.catalog !== undefined && !catalogs.includes(a.catalog)) {
    throw new CommandError(
      `ClusterCatalog ${JSON.stringify(a.catalog)} not found; the cluster's catalogs: ${catalogs.sort().join(', ')}`,
      EXIT.failed,
    );
  }

  // Resolve as operator-controller will for a new extension: nothing installed yet.
  const src = catalogSource(req) as Parameters<typeof clusterResolveInput>[3];
  io.stderr.write(`resolving package ${req.packageName} against the cluster's catalogs\n`);
  const input = await clusterResolveInput(kube, deps, a.catalogdUrl, src, null);
  // Dependencies are checked as operator-controller checks them; with --with-dependencies the
  // bundle is picked as if they were met, and what they need is installed first.
  const resolved = !input.ok
    ? input
    : a.withDependencies
      ? resolve({ ...input.value, dependencies: () => undefined })
      : (await clusterResolve(kube, deps, a.catalogdUrl, req.name, src.selector, input.value)).result;
  if (!resolved.ok) {
    const hints = input.ok ? await clusterResolutionHints(kube, deps, a.catalogdUrl, input.value, src.selector, resolved.error) : [];
    throw new CommandError([resolved.error, ...hints].join('\n'), EXIT.failed);
  }
  const { bundle: picked, versionRelease, catalog } = resolved.value;
  const version = metadataFor(picked.name, versionRelease).version;
  if (a.withDependencies && input.ok) {
    const installOne = (p: Provider, installing: ReadonlySet<string>) => install(dependencyArgs(a, p), kube, io, deps, installing);
    const source = await clusterCatalogSource(kube, deps, a.catalogdUrl);
    const d = { kube, source, selector: src.selector, self: req.name, bundle: picked, inputs: input.value.catalogs, installing, installOne };
    const n = await installDependencies(d, io);
    if (n > 0) io.stderr.write(`${n} dependenc${n === 1 ? 'y' : 'ies'} of ${req.name} installed\n`);
  }
  io.stderr.write(`resolved ${picked.name} (${version}) from catalog ${catalog}; pulling bundle image ${picked.image}\n`);

  const imageLimits = imageLimitOptions(a.values, BUNDLE_IMAGE_LIMITS);
  const bundle = await loadBundle({ source: picked.image, values: a.values, imageLimits }, deps, 'catalog');
  const renderArgs = {
    source: picked.image,
    installNamespace: req.namespace,
    ...(req.watchNamespace === undefined ? {} : { watchNamespace: req.watchNamespace }),
    ...(a.certProvider === undefined ? {} : { certProvider: a.certProvider }),
    output: 'yaml' as const,
    imageLimits,
    values: {},
  };
  const renderOptions = await buildRenderOptions(renderArgs);
  // With an existing ServiceAccount nothing of the installer RBAC is created; the bundle is still rendered, so a refusal comes now.
  const rbac = a.existingServiceAccount
    ? checkRenders(bundle, renderOptions, renderArgs)
    : installRbac(bundle, renderOptions, req.serviceAccount, renderArgs, io);

  const namespaceExists = await exists(kube, { apiVersion: 'v1', kind: 'Namespace', name: req.namespace });
  const objects = installObjects(req, rbac, !namespaceExists);
  if (a.dryRun) {
    io.stdout.write(formatObjects(objects, a.output ?? 'yaml'));
    io.stderr.write(`dry run: nothing written (${objects.length} objects)\n`);
    return;
  }

  await writeInstall(kube, req.name, objects, !namespaceExists, io);
  if (a.output !== undefined) io.stdout.write(formatObjects(objects, a.output));
  const what = `${req.name}: ${picked.name} (${version}) of package ${req.packageName} from catalog ${catalog}, in namespace ${req.namespace} as ServiceAccount ${req.serviceAccount}`;
  if (!a.wait) {
    if (a.output === undefined) io.stdout.write(`created ClusterExtension ${what}\n`);
    return;
  }
  const state = await poll(
    `waiting for ClusterExtension ${req.name}`,
    a.timeoutMs,
    async () => installState(await kube.client.get({ ...CLUSTER_EXTENSION, name: req.name })),
    (s) => (s.state === 'waiting' ? s.progress : undefined),
    io,
    deps,
  );
  if (state.state !== 'installed') {
    throw new CommandError(
      `ClusterExtension ${req.name} is not installed${state.state === 'failed' ? '' : ` after ${Math.round(a.timeoutMs / 1000)} s`}: ${state.progress}\n` +
        `(see "kubectl describe clusterextension ${req.name}"; remove it and what install created with "olmv1 uninstall ${req.name}")`,
      EXIT.failed,
    );
  }
  if (a.output === undefined) io.stdout.write(`installed ${what}\n`);
}

/** No objects, once `bundle` renders with `options` (the installer RBAC of an existing ServiceAccount is not install's). */
function checkRenders(bundle: RegistryV1Bundle, options: RenderOptions, args: Parameters<typeof refusalMessage>[2]): KubeObject[] {
  const rendered = render(bundle, options);
  if (!rendered.ok) throw new CommandError(refusalMessage(rendered.error, bundle, args), EXIT.failed);
  return [];
}

async function exists(kube: KubeContext, ref: { apiVersion: string; kind: string; name: string; namespace?: string }): Promise<boolean> {
  try {
    await kube.client.get(ref);
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw new CommandError(`error reading ${ref.kind} ${ref.name}: ${errorMessage(e)}`, EXIT.failed);
  }
}
