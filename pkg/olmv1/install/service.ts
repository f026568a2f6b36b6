/**
 * `olmv1 install`'s service: resolves a package against the cluster's ClusterCatalogs as
 * operator-controller will, pulls the bundle, computes its installer RBAC (none with an existing
 * ServiceAccount, which is checked first) and writes the labelled objects of objects.ts
 * (write.ts: each first tried with a server-side dry run, what an interrupted run of the same
 * install left used or updated); then waits for Installed. All as the user of `ports.client`;
 * refusals are values, progress goes to `ports.onEvent`. The command and the console call it. A
 * dry run with withDependencies writes nothing either: it lists the dependencies it would install.
 */
import { CLUSTER_CATALOG } from '../../shared/api/index.ts';
import { err, errorMessage, ok, type Result } from '../../shared/errors/index.ts';
import { isNotFound, type KubeObject } from '../../shared/kube/index.ts';
import type { Provider } from '../../operator-controller/dependencies/index.ts';
import { render, type CertProviderName } from '../../operator-controller/render/index.ts';
import { metadataFor, resolve } from '../../operator-controller/resolve/index.ts';
import { catalogBadge, communityRefusal } from './catalog-badge.ts';
import { installDependencies, planDependencies } from './dependencies.ts';
import { namespaceTemplateMetadata } from './namespace-template.ts';
import { catalogSource, installObjects, type ExtensionRequest } from './objects.ts';
import type { InstallPorts, InstallResult, PlannedDependency } from './ports.ts';
import { installerRbac, installRenderOptions } from './rbac.ts';
import { InstallRefused } from './refused.ts';
import { refusalMessage } from './render-refusal.ts';
import { waitInstalled } from './wait.ts';
import { writeInstall } from './write.ts';

/** What to install. */
export interface InstallRequest {
  extension: ExtensionRequest;
  /** The ClusterCatalog that must exist (`--catalog`; the extension's selector then names it). */
  catalog?: string | undefined;
  certProvider?: CertProviderName | undefined;
  /** Install as the existing `extension.serviceAccount`: nothing of the installer RBAC is created. */
  existingServiceAccount?: boolean;
  /** Compute every object; write nothing. */
  dryRun?: boolean;
  /** The user acknowledged that the package may come from a catalog marked Community (`--accept-community`, the console's checkbox); without it such an install is refused. */
  acceptCommunity?: boolean;
  /** The user accepted the suggested-namespace template's entries that weaken Pod security (`--accept-namespace-labels`, the console's checkbox); without it they are dropped. */
  acceptNamespaceLabels?: boolean;
  /** Install the dependency closure the cluster lacks first, each as its own ClusterExtension, waited for. */
  withDependencies?: boolean;
  /** Wait until operator-controller reports it Installed, at most `timeoutMs`. */
  wait?: boolean;
  timeoutMs?: number;
}

/** Default of `timeoutMs`. */
const DEFAULT_TIMEOUT_MS = 5 * 60_000;

/**
 * Installs `request` through `ports`: what was written and resolved, or why nothing (more) was
 * (the texts `olmv1 install` prints). Rejects only when the cluster or a catalog cannot be read.
 */
export async function installExtension(ports: InstallPorts, request: InstallRequest): Promise<Result<InstallResult, string>> {
  try {
    return ok(await install(ports, request, new Set()));
  } catch (e) {
    if (e instanceof InstallRefused) return err(e.message);
    throw e;
  }
}

/** The install of dependency provider `p` for `r`: named after its package, pinned to its version, from the same selected catalogs, waited for. */
function dependencyRequest(r: InstallRequest, p: Provider): InstallRequest {
  const name = p.packageName;
  const extension = {
    ...r.extension,
    name,
    packageName: name,
    namespace: name,
    serviceAccount: `${name}-installer`,
    channels: [],
    version: p.version,
    watchNamespace: undefined,
  };
  return { ...r, extension, existingServiceAccount: false, wait: true };
}

async function install(ports: InstallPorts, r: InstallRequest, installing: ReadonlySet<string>): Promise<InstallResult> {
  const req = r.extension;
  const { client, catalogs, onEvent } = ports;
  // An existing ServiceAccount must be there before anything is resolved or pulled.
  if (
    r.existingServiceAccount === true &&
    !(await exists(ports, { apiVersion: 'v1', kind: 'ServiceAccount', name: req.serviceAccount, namespace: req.namespace }))
  ) {
    throw new InstallRefused(
      `ServiceAccount ${req.namespace}/${req.serviceAccount} not found: --service-account names an existing ServiceAccount of the install namespace ` +
        `(create it and grant it what the bundle needs, or leave out --service-account to have install create ${req.name}-installer with least privilege)`,
    );
  }
  const catalogObjects = (await client.listAll(CLUSTER_CATALOG)).items;
  const names = catalogObjects.map((c) => c.metadata.name ?? '');
  if (names.length === 0) throw new InstallRefused('the cluster has no ClusterCatalogs: add one with "olmv1 catalog add NAME IMAGE"');
  if (r.catalog !== undefined && !names.includes(r.catalog)) {
    throw new InstallRefused(`ClusterCatalog ${JSON.stringify(r.catalog)} not found; the cluster's catalogs: ${names.sort().join(', ')}`);
  }

  // Resolve as operator-controller will for a new extension: nothing installed yet.
  const src = catalogSource(req);
  onEvent?.({ type: 'resolving', packageName: req.packageName });
  const input = await catalogs.input(src);
  // Dependencies are checked as operator-controller checks them; with withDependencies the
  // bundle is picked as if they were met, and what they need is installed first.
  const resolved = !input.ok
    ? input
    : r.withDependencies === true
      ? resolve({ ...input.value, dependencies: () => undefined })
      : (await catalogs.resolve(req.name, src.selector, input.value)).result;
  if (!resolved.ok) {
    const hints = input.ok ? await catalogs.hints(input.value, src.selector, resolved.error) : [];
    throw new InstallRefused([resolved.error, ...hints].join('\n'));
  }
  const { bundle: picked, versionRelease, catalog } = resolved.value;
  const bundle = { name: picked.name, version: metadataFor(picked.name, versionRelease).version, image: picked.image, catalog };
  // A catalog marked Community (decision 0148): a dry run says so, an install needs the user's acknowledgement.
  const community = communityRefusal(
    catalogBadge(catalog, catalogObjects.find((c) => c.metadata.name === catalog)?.metadata.annotations),
    req.packageName,
  );
  if (community !== undefined && r.dryRun !== true && r.acceptCommunity !== true) throw new InstallRefused(community);
  let dependencies = 0;
  let planned: PlannedDependency[] | undefined;
  if (r.withDependencies === true && input.ok) {
    // What the dependencies are resolved against: the same for a preview and an install.
    const context = {
      catalogs,
      source: await catalogs.source(),
      selector: src.selector,
      self: req.name,
      bundle: picked,
      inputs: input.value.catalogs,
      installing,
    };
    if (r.dryRun === true) planned = await planDependencies(context);
    else {
      const installOne = async (p: Provider, installing: ReadonlySet<string>) => {
        const result = await install(ports, dependencyRequest(r, p), installing);
        onEvent?.({ type: 'dependency-installed', result });
      };
      dependencies = await installDependencies({ ...context, installOne, onEvent });
    }
    if (dependencies > 0) onEvent?.({ type: 'dependencies', extension: req.name, count: dependencies });
  }
  onEvent?.({ type: 'resolved', bundle });

  const loaded = await ports.loadBundle(picked.image);
  const options = installRenderOptions(req.namespace, req.watchNamespace, r.certProvider);
  const refusalArgs = { installNamespace: req.namespace, certProvider: r.certProvider };
  // With an existing ServiceAccount nothing of the installer RBAC is created; the bundle is still rendered, so a refusal comes now.
  let rbac: { objects: KubeObject[]; warnings: string[]; escalations: InstallResult['escalations'] };
  if (r.existingServiceAccount === true) {
    const rendered = render(loaded, options);
    if (!rendered.ok) throw new InstallRefused(refusalMessage(rendered.error, loaded, refusalArgs));
    rbac = { objects: [], warnings: [], escalations: [] };
  } else {
    const computed = installerRbac(loaded, options, req.serviceAccount, refusalArgs);
    if (!computed.ok) throw new InstallRefused(computed.error);
    rbac = computed.value;
    onEvent?.({ type: 'rbac', warnings: rbac.warnings, escalations: rbac.escalations });
  }

  const namespaceExists = await exists(ports, { apiVersion: 'v1', kind: 'Namespace', name: req.namespace });
  // A namespace created as the CSV's suggested-namespace template names it gets the template's labels and annotations.
  const template = namespaceExists
    ? undefined
    : namespaceTemplateMetadata(loaded.csv.metadata?.annotations, req.namespace, r.acceptNamespaceLabels === true);
  const objects = installObjects(req, rbac.objects, !namespaceExists, template);
  const result: InstallResult = {
    extension: req.name,
    packageName: req.packageName,
    namespace: req.namespace,
    serviceAccount: req.serviceAccount,
    bundle,
    objects,
    written: [],
    warnings: [...rbac.warnings, ...(template?.dropped ?? [])],
    escalations: rbac.escalations,
    dependencies,
    ...(planned === undefined ? {} : { plannedDependencies: planned }),
    ...(community === undefined ? {} : { community }),
    ...(template === undefined
      ? {}
      : { namespaceTemplate: { labels: template.labels, annotations: template.annotations, podSecurity: template.podSecurity } }),
    installed: false,
    dryRun: r.dryRun === true,
  };
  if (r.dryRun === true) return result;

  result.written = await writeInstall({ client, onEvent }, req.name, objects, !namespaceExists);
  onEvent?.({ type: 'written', extension: req.name, objects });
  if (r.wait === false) return result;
  const timeoutMs = r.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const state = await waitInstalled(ports, req.name, timeoutMs);
  if (state.state !== 'installed') {
    throw new InstallRefused(
      `ClusterExtension ${req.name} is not installed${state.state === 'failed' ? '' : ` after ${Math.round(timeoutMs / 1000)} s`}: ${state.progress}\n` +
        `(see "kubectl describe clusterextension ${req.name}"; remove it and what install created with "olmv1 uninstall ${req.name}")`,
    );
  }
  return { ...result, installed: true };
}

async function exists(
  ports: Pick<InstallPorts, 'client'>,
  ref: { apiVersion: string; kind: string; name: string; namespace?: string },
): Promise<boolean> {
  try {
    await ports.client.get(ref);
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw new InstallRefused(`error reading ${ref.kind} ${ref.name}: ${errorMessage(e)}`);
  }
}
