/**
 * `olmv1 migrate to-upstream`: removes from every ClusterExtension what only our controller
 * understands (to-upstream-plan.ts), with merge patches carrying the resourceVersion read (a
 * conflict is read and planned again). Refused while our operator-controller holds its Lease.
 */
import { CLUSTER_EXTENSION, KEPT_FOR_PACKAGE_ANNOTATION } from '../../pkg/shared/api/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { isConflict, isNotFound, type KubeClient, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { CLUSTER_FLAGS, CLUSTER_FLAGS_HELP, clusterFlags, withCluster, type ClusterFlags } from './cluster-access.ts';
import { DEFAULT_SYSTEM_NAMESPACE } from './release.ts';
import { CommandError, parseCommandLine, runCommand } from './render.ts';
import {
  describeChange,
  latestRecords,
  leaseHolder,
  metadataPatch,
  planExtension,
  statusPatch,
  type ExtensionChange,
  type ExtensionPlan,
  type LatestRecord,
} from './to-upstream-plan.ts';
import type { CommandIO } from './io.ts';

/** operator-controller's leader election Lease name (its --leader-election-id default, upstream's too). */
const DEFAULT_LEASE = '9c4404e7.operatorframework.io';

const USAGE = `Usage: olmv1 migrate to-upstream [--dry-run] [--force] [--kubeconfig FILE] [--context NAME]
                                [--system-namespace NS] [--lease NAME]

Prepares the cluster for upstream's operator-controller after this project's operator-controller
is stopped (docs/operations.md, "Migrating from upstream and back"). On every ClusterExtension
it removes what only this project's controller understands and upstream's would never remove:
  - the finalizer olm.operatorframework.io/uninstall (under upstream, deleting the extension
    would hang forever);
  - the annotation olm.operatorframework.io/orphan-objects (upstream deletes the objects);
  - the status conditions Healthy and UpgradeAvailable (upstream would leave them as they are).
Upstream's finalizers stay: upstream removes them itself. The annotations
olm.operatorframework.io/update-policy and approved-bundle stay (upstream ignores them and
upgrades as its resolution picks; a note names each extension concerned). Release records
need no change: they are in upstream's format. Every write is a merge patch carrying the
resourceVersion read.

It refuses while operator-controller holds its leader Lease in the system namespace (stop it
first: it adds its finalizer back while it runs), and it changes nothing while an extension is
being deleted and its uninstall has not finished, or its latest release record is pending (an
apply was interrupted): start this project's operator-controller until those are done, stop it,
and run the command again. It may be run any number of times.

Flags:
  --dry-run                  print what would change, write nothing (also while operator-
                             controller runs; exit code as the run would have)
  --force                    go on even though the Lease is held or cannot be read (the holder
                             is upstream's operator-controller, started already, or is stale)
${CLUSTER_FLAGS_HELP}
  --system-namespace NS      operator-controller's namespace: its Lease and release records
                             (default ${DEFAULT_SYSTEM_NAMESPACE})
  --lease NAME               operator-controller's --leader-election-id (default ${DEFAULT_LEASE})
  -h, --help                 show this help

Output:
  stdout: one line per ClusterExtension: what was removed (with --dry-run: would be), or
          "nothing to change"; then a summary.
  stderr: notes (update policies upstream ignores, failed latest release records, CRDs kept
          by uninstalls: what upstream will do differently or refuse), why it refuses, errors.

Exit codes:
  0  the cluster is ready for upstream's operator-controller (or, with --dry-run, would be)
  1  refused (operator-controller holds its Lease, an extension cannot be handed over yet), or
     the cluster could not be read or written
  2  usage error`;

/** What the command needs from its environment (composed in commands.ts). */
interface ToUpstreamDeps {
  /** The cluster: the command reads and patches with its client, then closes it. */
  connectCluster(flags: ClusterFlags): Promise<Pick<KubeContext, 'client' | 'close'>>;
  /** The current time in ms (the Lease's expiry is compared with it). */
  now(): number;
}

interface Args {
  cluster: ClusterFlags;
  systemNamespace: string;
  lease: string;
  dryRun: boolean;
  force: boolean;
}

/** Conflicting writes are read and planned again this many times before giving up. */
const WRITE_ATTEMPTS = 5;

/** Runs `olmv1 migrate to-upstream`; `args` are the arguments after `migrate to-upstream`. */
export async function runMigrateToUpstream(args: readonly string[], io: CommandIO, deps: ToUpstreamDeps): Promise<number> {
  return runCommand(io, async () => {
    const a = parse(args);
    await withCluster(deps.connectCluster(a.cluster), async (kube) => {
      const leaseProblem = await checkLease(kube.client, a, deps.now());
      // A dry run still shows the plan (to review before stopping the controller), and fails as the run would.
      const refused = leaseProblem !== undefined && !a.force;
      if (leaseProblem !== undefined) {
        if (refused && !a.dryRun) throw new CommandError(`${leaseProblem}; nothing was changed`, 1);
        io.stderr.write(`${refused ? 'refusing' : 'warning'}: ${leaseProblem}${refused ? '' : '; going on (--force)'}\n`);
      }
      const extensions = (await kube.client.listAll({ apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind })).items;
      const records = latestRecords(await readIndexSecrets(kube.client, a.systemNamespace));
      const plans = extensions.map((ce) => planExtension(ce, records.get(ce.metadata.name ?? '')));
      for (const note of [...plans.flatMap((p) => (p.kind === 'blocked' ? [] : p.notes)), ...(await keptCrdNotes(kube.client))])
        io.stderr.write(`note: ${note}\n`);
      const blocked = plans.filter((p) => p.kind === 'blocked');
      for (const b of blocked) io.stderr.write(`ClusterExtension ${b.name}: cannot be handed over yet: ${b.reason}\n`);
      if (a.dryRun) {
        for (const p of plans) if (p.kind !== 'blocked') io.stdout.write(planLine(p, 'would remove'));
        io.stdout.write(`dry run: nothing changed\n`);
        if (blocked.length > 0) throw new CommandError(`${blocked.length} ClusterExtension(s) cannot be handed over yet`, 1);
        if (refused) throw new CommandError('operator-controller holds its Lease: the run would refuse', 1);
        return;
      }
      if (blocked.length > 0) throw new CommandError(`${blocked.length} ClusterExtension(s) cannot be handed over yet; nothing was changed`, 1);
      let changed = 0;
      for (const plan of plans) {
        const outcome = plan.kind === 'change' ? await write(kube.client, plan.change, records) : plan;
        if (outcome.kind === 'change') changed++;
        io.stdout.write(planLine(outcome, 'removed'));
      }
      io.stdout.write(
        `${changed} of ${plans.length} ClusterExtension(s) changed; keep this project's operator-controller stopped ` +
          `(it adds its finalizer back when it runs) and start upstream's\n`,
      );
    });
  });
}

function parse(args: readonly string[]): Args {
  const parsed = parseCommandLine(
    args,
    USAGE,
    {
      ...CLUSTER_FLAGS,
      'system-namespace': { type: 'string' },
      lease: { type: 'string' },
      'dry-run': { type: 'boolean' },
      force: { type: 'boolean' },
    },
    false,
  );
  const v = parsed.values;
  for (const name of ['system-namespace', 'lease'] as const) {
    if (v[name] === '') throw new CommandError(`--${name} must not be empty\n${USAGE}`, 2);
  }
  return {
    cluster: clusterFlags(v, USAGE),
    systemNamespace: v['system-namespace'] ?? DEFAULT_SYSTEM_NAMESPACE,
    lease: v.lease ?? DEFAULT_LEASE,
    dryRun: v['dry-run'] === true,
    force: v.force === true,
  };
}

/** Why the Lease forbids going on, or undefined when nobody holds it. */
async function checkLease(client: KubeClient, a: Args, now: number): Promise<string | undefined> {
  const where = `Lease ${a.systemNamespace}/${a.lease}`;
  let lease: KubeObject & Parameters<typeof leaseHolder>[0];
  try {
    lease = await client.get<KubeObject & Parameters<typeof leaseHolder>[0]>({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: a.systemNamespace,
      name: a.lease,
    });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    return `cannot read ${where} to check that operator-controller is stopped: ${errorMessage(err)}`;
  }
  const holder = leaseHolder(lease, now);
  if (holder === undefined) return undefined;
  return (
    `operator-controller is running: ${JSON.stringify(holder)} holds its leader ${where}; stop it first ` +
    `(kubectl -n ${a.systemNamespace} scale deployment operator-controller-controller-manager --replicas=0) and run this command again ` +
    `once the Lease is released (at once on a graceful stop, else when it expires)`
  );
}

/** The index Secrets of the release records in `namespace`, metadata only. */
async function readIndexSecrets(client: KubeClient, namespace: string): Promise<KubeObject[]> {
  try {
    const list = await client.listAll(
      { apiVersion: 'v1', kind: 'Secret' },
      { namespace, labelSelector: 'owner=operator-controller,type=index', metadataOnly: true },
    );
    return list.items;
  } catch (err) {
    throw new CommandError(`cannot read the release records in namespace ${namespace}: ${errorMessage(err)}`, 1);
  }
}

/** A note naming the CRDs earlier uninstalls kept, which upstream does not install over. */
async function keptCrdNotes(client: KubeClient): Promise<string[]> {
  let crds;
  try {
    crds = await client.listAll({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' }, { metadataOnly: true });
  } catch (err) {
    // Only a note depends on it: the handover itself goes on.
    return [`cannot list CustomResourceDefinitions to name those uninstalls kept: ${errorMessage(err)}`];
  }
  const kept = crds.items
    .map((c) => [c.metadata.name ?? '', c.metadata.annotations?.[KEPT_FOR_PACKAGE_ANNOTATION]] as const)
    .filter((k): k is readonly [string, string] => k[1] !== undefined)
    .map(([name, pkg]) => `${name} (package ${pkg})`);
  if (kept.length === 0) return [];
  return [
    `CustomResourceDefinitions kept by uninstalls: ${kept.join(', ')}; upstream installs a package over its CRD only when the CRD ` +
      `carries Helm's ownership metadata for the new extension (see "Migrating from upstream and back" in docs/operations.md)`,
  ];
}

/**
 * Writes `change`; on a conflict reads the extension again and writes what its new plan says.
 * Returns what was written, or `unchanged` when nothing was left to do (or the extension is gone).
 * @throws CommandError when the extension turned unfit meanwhile, keeps conflicting, or a write fails.
 */
async function write(client: KubeClient, first: ExtensionChange, records: ReadonlyMap<string, LatestRecord>): Promise<ExtensionPlan> {
  const ref = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind, name: first.name };
  let change = first;
  // What has been written so far: a conflict may come between the metadata and the status write.
  let done: ExtensionChange | undefined;
  const outcome = (): ExtensionPlan =>
    done === undefined ? { kind: 'unchanged', name: first.name, notes: [] } : { kind: 'change', change: done, notes: [] };
  for (let attempt = 1; ; attempt++) {
    try {
      let resourceVersion = change.resourceVersion;
      const meta = metadataPatch(change);
      if (meta !== undefined) {
        resourceVersion = (await client.patch(ref, meta, 'merge')).metadata.resourceVersion ?? '';
        done = merged(done, { ...change, removedConditions: [] });
      }
      const status = statusPatch(change, resourceVersion);
      if (status !== undefined) {
        await client.patch(ref, status, 'merge', { subresource: 'status' });
        done = merged(done, { ...change, removedFinalizers: [], removedAnnotations: [] });
      }
      return outcome();
    } catch (err) {
      if (isNotFound(err)) return outcome();
      if (!isConflict(err)) throw new CommandError(`error writing ClusterExtension ${first.name}: ${errorMessage(err)}`, 1);
      if (attempt >= WRITE_ATTEMPTS)
        throw new CommandError(`ClusterExtension ${first.name} kept changing while it was written: run the command again`, 1);
    }
    let current: KubeObject;
    try {
      current = await client.get(ref);
    } catch (err) {
      if (isNotFound(err)) return outcome();
      throw new CommandError(`error reading ClusterExtension ${first.name}: ${errorMessage(err)}`, 1);
    }
    const plan = planExtension(current, records.get(first.name));
    if (plan.kind === 'blocked') throw new CommandError(`ClusterExtension ${first.name} cannot be handed over yet: ${plan.reason}`, 1);
    if (plan.kind === 'unchanged') return outcome();
    change = plan.change;
  }
}

/** What two writes on one extension removed together. */
function merged(a: ExtensionChange | undefined, b: ExtensionChange): ExtensionChange {
  if (a === undefined) return b;
  const union = (x: string[], y: string[]): string[] => [...new Set([...x, ...y])];
  return {
    ...b,
    removedFinalizers: union(a.removedFinalizers, b.removedFinalizers),
    removedAnnotations: union(a.removedAnnotations, b.removedAnnotations),
    removedConditions: union(a.removedConditions, b.removedConditions),
  };
}

function planLine(plan: ExtensionPlan, verb: string): string {
  if (plan.kind === 'change') return `ClusterExtension ${plan.change.name}: ${verb} ${describeChange(plan.change)}\n`;
  return `ClusterExtension ${plan.name}: nothing to change\n`;
}
