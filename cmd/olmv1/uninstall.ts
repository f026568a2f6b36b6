/**
 * `olmv1 uninstall NAME`: deletes the ClusterExtension, waits until it is gone, then deletes only
 * what carries both install labels for NAME. The RBAC outlives the extension: the controller
 * uninstalls as that ServiceAccount. Without the ClusterExtension (an install interrupted before
 * writing it), the labelled objects alone are deleted; with neither, NAME is not found.
 */
import type { DeletionPreview } from '../../pkg/olmv1/crd-deletion/index.ts';
import { catalogBundleProperties, previewUninstall, uninstallExtension, type UninstallEvent } from '../../pkg/olmv1/uninstall/index.ts';
import type { CatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import type { KubeContext } from '../../pkg/shared/kube/index.ts';
import { CLUSTER_FLAGS, CLUSTER_FLAGS_HELP, clusterFlags, withCluster, type ClusterFlags } from './cluster-access.ts';
import { type Clock, type CommandIO, EXIT } from './io.ts';
import { INSTALLED_FOR_LABEL, installedForSelector } from './install-objects.ts';
import { DEFAULT_SYSTEM_NAMESPACE } from './release.ts';
import { CommandError, flagChoice, parseCommandLine, runCommand, timeoutFlag } from './render.ts';
import { crdCounts, crdJson, crdTable } from './uninstall-crds.ts';

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
      // With -o json, stdout holds the one JSON document; the uninstall's lines go to stderr.
      const out = a.deleteCrds && a.json ? io.stderr : io.stdout;
      const ports = {
        client: kube.client,
        installerSelector: installedForSelector,
        ...(deps.catalogContent === undefined ? {} : { catalogProperties: catalogBundleProperties(kube.client, deps.catalogContent) }),
        sleep: (ms: number) => deps.sleep(ms),
        now: () => deps.now(),
        report: (e: UninstallEvent) => (e.type === 'deleted' ? out : io.stderr).write(eventLine(e)),
      };
      const request = {
        extension: a.name,
        systemNamespace: a.systemNamespace,
        keepRbac: a.keepRbac,
        deleteCrds: a.deleteCrds,
        timeoutMs: a.timeoutMs,
      };
      const show = (p: DeletionPreview, deleted: boolean) => io.stdout.write(a.json ? crdJson(p, deleted) : crdTable(p));
      if (a.deleteCrds && !a.yes) {
        const before = await previewUninstall(ports, request);
        if (!before.ok) throw new CommandError(before.error.message, EXIT.failed);
        const crds = before.value.crds ?? { extension: a.name, crds: [], refusals: [], unchecked: [] };
        show(crds, false);
        if (crds.crds.length === 0) io.stderr.write(`nothing deleted (preview): no CustomResourceDefinitions are ${a.name}'s\n`);
        else
          io.stderr.write(
            `nothing deleted (preview): "olmv1 uninstall ${a.name} --delete-crds --yes" uninstalls ${a.name} and deletes ${crdCounts(crds)}\n`,
          );
        return;
      }
      const done = await uninstallExtension(ports, request);
      if (!done.ok) throw new CommandError(done.error.message, EXIT.failed);
      const crds = done.value.crds;
      if (crds === undefined) return;
      if (!a.json) io.stdout.write(`deleted ${crdCounts(crds)}:\n`);
      show(crds, true);
    });
  });
}

/** The line an uninstall's step prints (on stdout for what was deleted, else on stderr). */
function eventLine(e: UninstallEvent): string {
  switch (e.type) {
    case 'deleting':
      return `deleting ClusterExtension ${e.extension}; waiting for operator-controller to uninstall it\n`;
    case 'waiting':
      return e.for === 'extension'
        ? `waiting for ClusterExtension ${e.extension} to go: ${e.state}\n`
        : `waiting for the CustomResourceDefinitions to go: ${e.state}\n`;
    case 'deleted':
      return `deleted ${e.object}\n`;
    case 'installerKept':
      return `kept the ServiceAccount and RBAC install created (--keep-rbac): ${e.selector}\n`;
    case 'noInstallerObjects':
      return `no ServiceAccount or RBAC created by "olmv1 install" for ${e.extension}\n`;
    case 'leftovers':
      return e.what === 'crds'
        ? `ClusterExtension ${JSON.stringify(e.extension)} not found; deleting the CustomResourceDefinitions an earlier uninstall kept\n`
        : `ClusterExtension ${JSON.stringify(e.extension)} not found; deleting what an interrupted "olmv1 install" created for it\n`;
    case 'unchecked':
      return `requirements of ${e.extension} checked from its release record only: its catalog could not be read\n`;
    case 'crdsChanged':
      return 'what --delete-crds deletes changed since the preview; deleting what is there now (below)\n';
    case 'deletingCrd':
      return `deleting CustomResourceDefinition ${e.name} and its ${e.customResources} custom resources\n`;
  }
}
