/**
 * `olmv1 uninstall NAME`: deletes the ClusterExtension, waits until it is gone, then deletes only
 * what carries both install labels for NAME. The RBAC outlives the extension: the controller
 * uninstalls as that ServiceAccount. Without the ClusterExtension (an install interrupted before
 * writing it), the labelled objects alone are deleted; with neither, NAME is not found.
 */
import { createRevisionReader } from '../../pkg/operator-controller/revisions/index.ts';
import { previewCrdDeletion, type DeletionPreview, type PreviewPorts } from '../../pkg/olmv1/crd-deletion/index.ts';
import type { CatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { selectedCatalogs } from '../../pkg/operator-controller/dependencyview/index.ts';
import { CLUSTER_CATALOG, CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { isNotFound, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { CLUSTER_FLAGS, CLUSTER_FLAGS_HELP, clusterFlags, withCluster, type ClusterFlags } from './cluster-access.ts';
import { type Clock, type CommandIO, EXIT, poll } from './io.ts';
import { INSTALLED_FOR_LABEL, describeObject, installedForSelector } from './install-objects.ts';
import { DEFAULT_SYSTEM_NAMESPACE } from './release.ts';
import { CommandError, flagChoice, parseCommandLine, runCommand, timeoutFlag } from './render.ts';
import { crdCounts, crdJson, crdTable, deleteCrds, refuse } from './uninstall-crds.ts';

const USAGE = `Usage: olmv1 uninstall NAME [--keep-rbac] [--timeout DURATION] [--kubeconfig FILE] [--context NAME]
       olmv1 uninstall NAME --delete-crds [--yes] [-o table|json] [--system-namespace NS] [flags above]

Deletes the ClusterExtension NAME and waits until operator-controller has removed what it
installed (CRDs and their data are kept, as always) and the ClusterExtension is gone. Then
deletes the ServiceAccount, Roles, ClusterRoles and bindings "olmv1 install" created for it:
those labelled olm.operatorframework.io/installed-by=olmv1 and
${INSTALLED_FOR_LABEL}=NAME, nothing else. A namespace install created is kept
(it may hold your data): "kubectl delete namespace NS" removes it.
Without a ClusterExtension NAME (an install interrupted before it), deletes only those.

With --delete-crds, the CustomResourceDefinitions NAME's release owns are deleted too, and with
them every custom resource of theirs, in every namespace. Without --yes this only previews:
it prints each CRD and how many custom resources per namespace would go, and deletes nothing.
With --yes, NAME is uninstalled as above, then the CRDs are deleted and waited for, and the
same table lists what was deleted. CRDs another ClusterExtension owns, includes in its release
or requires (olm.gvk.required, olm.constraint) are refused, naming it, and nothing is deleted.
Finalizers of custom resources are never removed: what they hold past --timeout is reported.
The CRDs of an extension uninstalled earlier (kept with its owner labels) are found the same way.

Flags:
  --keep-rbac                keep the ServiceAccount and RBAC install created
  --timeout DURATION         how long to wait for the ClusterExtension to go, and then for its
                             CRDs to go (default 5m each)
  --delete-crds              also delete NAME's CustomResourceDefinitions and custom resources
                             (a preview unless --yes)
  --yes                      with --delete-crds: do it
  -o, --output FORMAT        with --delete-crds: table (default) or json
  --system-namespace NS      where operator-controller keeps the release records (default ${DEFAULT_SYSTEM_NAMESPACE})
${CLUSTER_FLAGS_HELP}
  -h, --help                 show this help

Output:
  stdout: what was deleted; with --delete-crds the preview, then (--yes) the CRDs deleted, as a
  table or one JSON document (-o json; the other lines then go to stderr).
  stderr: progress while waiting, errors.

Exit codes:
  0  uninstalled (or previewed)
  1  no such ClusterExtension, it is still there after --timeout (its conditions are printed),
     something could not be deleted, a CRD was refused, or CRDs are still there after --timeout
  2  usage error`;

/** The kinds install creates for an extension besides the ClusterExtension and the namespace, deleted in this order. */
const RBAC_KINDS = [
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' },
  { apiVersion: 'v1', kind: 'ServiceAccount' },
] as const;

/** Parses the arguments of `uninstall`; usage problems throw a CommandError with exit code 2. */
export function parseUninstallArgs(args: readonly string[]): {
  name: string;
  keepRbac: boolean;
  timeoutMs: number;
  cluster: ClusterFlags;
  deleteCrds: boolean;
  yes: boolean;
  json: boolean;
  systemNamespace: string;
} {
  const { values, positionals } = parseCommandLine(args, USAGE, {
    ...CLUSTER_FLAGS,
    'keep-rbac': { type: 'boolean' },
    timeout: { type: 'string' },
    'delete-crds': { type: 'boolean' },
    yes: { type: 'boolean' },
    output: { type: 'string', short: 'o' },
    'system-namespace': { type: 'string' },
  });
  const name = positionals[0];
  if (positionals.length !== 1 || name === undefined || name === '')
    throw new CommandError(`expected exactly one ClusterExtension NAME\n${USAGE}`, EXIT.usage);
  const timeoutMs = timeoutFlag(values.timeout, 5 * 60_000, USAGE);
  const deleteCrds = values['delete-crds'] === true;
  for (const flag of ['yes', 'output', 'system-namespace'] as const) {
    if (values[flag] !== undefined && !deleteCrds) throw new CommandError(`--${flag} is only valid with --delete-crds\n${USAGE}`, EXIT.usage);
  }
  const output = flagChoice('--output', values.output, ['table', 'json'], USAGE);
  const systemNamespace = values['system-namespace'] ?? DEFAULT_SYSTEM_NAMESPACE;
  if (systemNamespace === '') throw new CommandError(`--system-namespace must not be empty\n${USAGE}`, EXIT.usage);
  return {
    name,
    keepRbac: values['keep-rbac'] === true,
    timeoutMs,
    cluster: clusterFlags(values, USAGE),
    deleteCrds,
    yes: values.yes === true,
    json: output === 'json',
    systemNamespace,
  };
}

type Args = ReturnType<typeof parseUninstallArgs>;

/** What `uninstall` needs (composed in commands.ts): of the cluster, only its client. */
interface UninstallDeps extends Clock {
  connectCluster(flags: ClusterFlags): Promise<Cluster>;
  /** catalogd's content: --delete-crds reads installed bundles' properties there, as the controller does. */
  catalogContent?: CatalogContentCache;
}

/** The part of a KubeContext `uninstall` uses. */
type Cluster = Pick<KubeContext, 'client' | 'close'>;

/** Runs `olmv1 uninstall`; `args` are the arguments after `uninstall`. */
export async function runUninstall(args: readonly string[], io: CommandIO, deps: UninstallDeps): Promise<number> {
  return runCommand(io, async () => {
    const a = parseUninstallArgs(args);
    await withCluster(deps.connectCluster(a.cluster), async (kube) => {
      if (a.deleteCrds) await uninstallWithCrds(a, kube, io, deps);
      else await uninstall(a, kube, io, deps);
    });
  });
}

/** The properties the cluster's catalogs give a bundle (read through catalogd once per package), as the controller reads them. */
function catalogProperties(kube: Cluster, content: CatalogContentCache): NonNullable<PreviewPorts['catalogProperties']> {
  let catalogs: Promise<{ list: () => KubeObject[] }> | undefined;
  return async (packageName, bundleName) => {
    catalogs ??= kube.client.listAll(CLUSTER_CATALOG).then(({ items }) => ({ list: () => items }));
    const selection = await selectedCatalogs({ catalogs: await catalogs, content }, undefined, packageName);
    if (!selection.ok) throw new Error(selection.error);
    for (const input of selection.value.inputs) {
      if ('error' in input || input.package === null) continue;
      const found = input.package.bundles.find((b) => b.name === bundleName);
      if (found !== undefined) return found.properties;
    }
    return undefined;
  };
}

/** Reads what --delete-crds would delete; a failure (a Forbidden too) is the API server's message. */
async function preview(a: Args, kube: Cluster, deps: UninstallDeps, io: Pick<CommandIO, 'stderr'>): Promise<DeletionPreview> {
  let p: DeletionPreview;
  try {
    p = await previewCrdDeletion(
      {
        client: kube.client,
        // Release records, or the ClusterObjectSets under BoxcutterRuntime.
        releases: createRevisionReader({ client: kube.client, namespace: a.systemNamespace }),
        ...(deps.catalogContent === undefined ? {} : { catalogProperties: catalogProperties(kube, deps.catalogContent) }),
      },
      a.name,
    );
  } catch (e) {
    throw new CommandError(`error reading what --delete-crds would delete (nothing was deleted): ${errorMessage(e)}`, EXIT.failed);
  }
  for (const u of p.unchecked) io.stderr.write(`requirements of ${u} checked from its release record only: its catalog could not be read\n`);
  return p;
}

/**
 * `--delete-crds`: the preview (refusals first); with --yes, the uninstall as without it, then
 * the preview again (the CRDs as they are once the extension is gone), whose CRDs are deleted
 * and which is printed as the summary.
 */
async function uninstallWithCrds(a: Args, kube: Cluster, io: CommandIO, deps: UninstallDeps): Promise<void> {
  const before = await preview(a, kube, deps, io);
  refuse(before);
  const show = (p: DeletionPreview, deleted: boolean) => io.stdout.write(a.json ? crdJson(p, deleted) : crdTable(p));
  if (!a.yes) {
    show(before, false);
    if (before.crds.length === 0) io.stderr.write(`nothing deleted (preview): no CustomResourceDefinitions are ${a.name}'s\n`);
    else
      io.stderr.write(
        `nothing deleted (preview): "olmv1 uninstall ${a.name} --delete-crds --yes" uninstalls ${a.name} and deletes ${crdCounts(before)}\n`,
      );
    return;
  }
  // With -o json, stdout holds the one JSON document; the uninstall's lines go to stderr.
  await uninstall(a, kube, a.json ? { stdout: io.stderr, stderr: io.stderr } : io, deps, before.crds.length > 0);
  const now = await preview(a, kube, deps, { stderr: { write: () => undefined } });
  if (now.refusals.length > 0) {
    io.stderr.write(`ClusterExtension ${a.name} is uninstalled; its CustomResourceDefinitions are kept:\n`);
    refuse(now);
  }
  if (crdJson(now, true) !== crdJson(before, true))
    io.stderr.write('what --delete-crds deletes changed since the preview; deleting what is there now (below)\n');
  await deleteCrds(kube.client, now, a.timeoutMs, io, deps);
  if (!a.json) io.stdout.write(`deleted ${crdCounts(now)}:\n`);
  show(now, true);
}

async function uninstall(a: Args, kube: Cluster, io: CommandIO, deps: UninstallDeps, crdsLeft = false): Promise<void> {
  const ref = { ...CLUSTER_EXTENSION, name: a.name };
  try {
    await kube.client.delete(ref);
  } catch (e) {
    if (isNotFound(e)) return leftovers(a, kube, io, crdsLeft);
    throw new CommandError(`error deleting ClusterExtension ${JSON.stringify(a.name)}: ${errorMessage(e)}`, EXIT.failed);
  }
  io.stderr.write(`deleting ClusterExtension ${a.name}; waiting for operator-controller to uninstall it\n`);
  const look = () =>
    kube.client.get(ref).catch((e: unknown) => {
      if (isNotFound(e)) return undefined;
      throw new CommandError(`error reading ClusterExtension ${JSON.stringify(a.name)}: ${errorMessage(e)}`, EXIT.failed);
    });
  const left = await poll(`waiting for ClusterExtension ${a.name} to go`, a.timeoutMs, look, (o) => o && conditionsText(o), io, deps);
  if (left !== undefined) {
    throw new CommandError(
      `ClusterExtension ${a.name} is still there after ${Math.round(a.timeoutMs / 1000)} s: ${conditionsText(left)}\n` +
        `(its RBAC is kept: operator-controller needs it to finish; see "kubectl describe clusterextension ${a.name}")`,
      EXIT.failed,
    );
  }
  io.stdout.write(`deleted ClusterExtension ${a.name}\n`);
  if (a.keepRbac) {
    io.stderr.write(`kept the ServiceAccount and RBAC install created (--keep-rbac): ${installedForSelector(a.name)}\n`);
    return;
  }
  const found = await labelled(kube, a.name);
  if (found.length === 0) io.stderr.write(`no ServiceAccount or RBAC created by "olmv1 install" for ${a.name}\n`);
  await deleteAll(kube, found, io);
}

/**
 * Without a ClusterExtension NAME: what an install interrupted before writing it left (the
 * objects labelled for NAME) is deleted, unless --keep-rbac; with none, NAME is not found.
 */
async function leftovers(a: Args, kube: Cluster, io: CommandIO, crdsLeft: boolean): Promise<void> {
  const notFound = `ClusterExtension ${JSON.stringify(a.name)} not found`;
  if (crdsLeft) io.stderr.write(`${notFound}; deleting the CustomResourceDefinitions an earlier uninstall kept\n`);
  if (a.keepRbac) {
    if (crdsLeft) return;
    throw new CommandError(notFound, EXIT.failed);
  }
  let found: Labelled[];
  try {
    found = await labelled(kube, a.name);
  } catch (e) {
    throw new CommandError(`${notFound}\n(could not look for what "olmv1 install" created for it: ${errorMessage(e)})`, EXIT.failed);
  }
  if (found.length === 0) {
    if (crdsLeft) return;
    throw new CommandError(notFound, EXIT.failed);
  }
  io.stderr.write(`${notFound}; deleting what an interrupted "olmv1 install" created for it\n`);
  await deleteAll(kube, found, io);
}

/** One object labelled for the extension, as listed (its kind from the list request). */
interface Labelled {
  kind: (typeof RBAC_KINDS)[number];
  object: KubeObject;
}

/** The objects of RBAC_KINDS carrying both install labels for `name`, in deletion order. */
async function labelled(kube: Cluster, name: string): Promise<Labelled[]> {
  const found: Labelled[] = [];
  for (const kind of RBAC_KINDS) {
    const { items } = await kube.client.listAll(kind, { labelSelector: installedForSelector(name) });
    for (const object of items) found.push({ kind, object });
  }
  return found;
}

/** Deletes `found` in order, each on stdout; what could not be deleted fails the command, named. */
async function deleteAll(kube: Cluster, found: readonly Labelled[], io: CommandIO): Promise<void> {
  const failures: string[] = [];
  for (const { kind, object: o } of found) {
    const target = { ...kind, name: o.metadata.name ?? '', ...(o.metadata.namespace === undefined ? {} : { namespace: o.metadata.namespace }) };
    const shown = describeObject({ ...o, kind: kind.kind });
    try {
      // Preconditioned on the object listed, so a same-named object created since is never deleted.
      await kube.client.delete(target, { preconditions: { uid: o.metadata.uid ?? '' } });
      io.stdout.write(`deleted ${shown}\n`);
    } catch (e) {
      if (!isNotFound(e)) failures.push(`${shown}: ${errorMessage(e)}`);
    }
  }
  if (failures.length > 0) throw new CommandError(`could not delete:\n${failures.map((f) => `  ${f}`).join('\n')}`, EXIT.failed);
}

/** The extension's conditions in one line (`Type=Status Reason: message; ...`), or that it is being deleted. */
function conditionsText(obj: KubeObject): string {
  const conditions =
    (obj.status as { conditions?: { type?: string; status?: string; reason?: string; message?: string }[] } | undefined)?.conditions ?? [];
  const progressing = conditions.find((c) => c.type === 'Progressing');
  const finalizers = obj.metadata.finalizers ?? [];
  const parts = [`finalizers ${finalizers.length === 0 ? 'none' : finalizers.join(', ')}`];
  if (progressing !== undefined) parts.push(`Progressing ${progressing.reason ?? ''}: ${progressing.message ?? ''}`);
  return parts.join('; ');
}
