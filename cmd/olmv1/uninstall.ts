/**
 * `olmv1 uninstall NAME`: deletes the ClusterExtension, waits until it is gone, then deletes only
 * what carries both install labels for NAME. The RBAC outlives the extension: the controller
 * uninstalls as that ServiceAccount. Without the ClusterExtension (an install interrupted before
 * writing it), the labelled objects alone are deleted; with neither, NAME is not found.
 */
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { isNotFound, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { CLUSTER_FLAGS, CLUSTER_FLAGS_HELP, clusterFlags, withCluster, type ClusterFlags } from './cluster-access.ts';
import { type Clock, type CommandIO, EXIT, poll } from './io.ts';
import { INSTALLED_FOR_LABEL, describeObject, installedForSelector } from './install-objects.ts';
import { CommandError, parseCommandLine, runCommand, timeoutFlag } from './render.ts';

const USAGE = `Usage: olmv1 uninstall NAME [--keep-rbac] [--timeout DURATION] [--kubeconfig FILE] [--context NAME]

Deletes the ClusterExtension NAME and waits until operator-controller has removed what it
installed (CRDs and their data are kept, as always) and the ClusterExtension is gone. Then
deletes the ServiceAccount, Roles, ClusterRoles and bindings "olmv1 install" created for it:
those labelled olm.operatorframework.io/installed-by=olmv1 and
${INSTALLED_FOR_LABEL}=NAME, nothing else. A namespace install created is kept
(it may hold your data): "kubectl delete namespace NS" removes it.
Without a ClusterExtension NAME (an install interrupted before it), deletes only those.

Flags:
  --keep-rbac                keep the ServiceAccount and RBAC install created
  --timeout DURATION         how long to wait for the ClusterExtension to go (default 5m)
${CLUSTER_FLAGS_HELP}
  -h, --help                 show this help

Output:
  stdout: what was deleted. stderr: progress while waiting, errors.

Exit codes:
  0  uninstalled
  1  no such ClusterExtension, it is still there after --timeout (its conditions are printed),
     or something could not be deleted
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
} {
  const { values, positionals } = parseCommandLine(args, USAGE, { ...CLUSTER_FLAGS, 'keep-rbac': { type: 'boolean' }, timeout: { type: 'string' } });
  const name = positionals[0];
  if (positionals.length !== 1 || name === undefined || name === '')
    throw new CommandError(`expected exactly one ClusterExtension NAME\n${USAGE}`, EXIT.usage);
  const timeoutMs = timeoutFlag(values.timeout, 5 * 60_000, USAGE);
  return { name, keepRbac: values['keep-rbac'] === true, timeoutMs, cluster: clusterFlags(values, USAGE) };
}

/** What `uninstall` needs (composed in commands.ts): of the cluster, only its client. */
interface UninstallDeps extends Clock {
  connectCluster(flags: ClusterFlags): Promise<Cluster>;
}

/** The part of a KubeContext `uninstall` uses. */
type Cluster = Pick<KubeContext, 'client' | 'close'>;

/** Runs `olmv1 uninstall`; `args` are the arguments after `uninstall`. */
export async function runUninstall(args: readonly string[], io: CommandIO, deps: UninstallDeps): Promise<number> {
  return runCommand(io, async () => {
    const a = parseUninstallArgs(args);
    await withCluster(deps.connectCluster(a.cluster), async (kube) => {
      await uninstall(a, kube, io, deps);
    });
  });
}

async function uninstall(a: ReturnType<typeof parseUninstallArgs>, kube: Cluster, io: CommandIO, deps: UninstallDeps): Promise<void> {
  const ref = { ...CLUSTER_EXTENSION, name: a.name };
  try {
    await kube.client.delete(ref);
  } catch (e) {
    if (isNotFound(e)) return leftovers(a, kube, io);
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
async function leftovers(a: ReturnType<typeof parseUninstallArgs>, kube: Cluster, io: CommandIO): Promise<void> {
  const notFound = `ClusterExtension ${JSON.stringify(a.name)} not found`;
  if (a.keepRbac) throw new CommandError(notFound, EXIT.failed);
  let found: Labelled[];
  try {
    found = await labelled(kube, a.name);
  } catch (e) {
    throw new CommandError(`${notFound}\n(could not look for what "olmv1 install" created for it: ${errorMessage(e)})`, EXIT.failed);
  }
  if (found.length === 0) throw new CommandError(notFound, EXIT.failed);
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
