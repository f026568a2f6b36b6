/**
 * `olmv1 release rollback EXT [REVISION]`: parses the flags, runs the service (pkg/olmv1/rollback)
 * and prints its outcome (rollbackText, which the console shows too).
 */
import type { CatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import type { Result } from '../../pkg/shared/errors/index.ts';
import type { KubeContext } from '../../pkg/shared/kube/index.ts';
import { isReleaseName, ReleaseStatus, type Release } from '../../pkg/operator-controller/release/index.ts';
import type { Revision } from '../../pkg/operator-controller/revisions/index.ts';
import { rollBack, type RollbackDone, type RollbackPorts, type RollbackRefusal } from '../../pkg/olmv1/rollback/index.ts';
import { CLUSTER_FLAGS, CLUSTER_FLAGS_HELP, clusterFlags, withCluster, type ClusterFlags } from './cluster-access.ts';
import { DEFAULT_SYSTEM_NAMESPACE, historyTable } from './release.ts';
import { clusterResolveInput } from './resolve-cluster.ts';
import { CATALOGD_URL_HELP, catalogdUrlFlag } from './install-args.ts';
import { type CommandIO, table } from './io.ts';
import { CommandError, parseCommandLine, runCommand } from './render.ts';

const USAGE = `Usage: olmv1 release rollback EXT [REVISION] [--dry-run] [--kubeconfig FILE] [--context NAME]
                                [--system-namespace NS] [--catalogd-url URL]

Makes the ClusterExtension EXT go back to the bundle that revision REVISION of its release
installed (see "olmv1 release history EXT"); by default the revision before the deployed one:
the newest earlier revision that was deployed and installed another bundle. It does so in the
spec, as you: spec.source.catalog.version pins that bundle's version,
spec.source.catalog.upgradeConstraintPolicy becomes SelfCertified (going back is not an
upgrade edge of the catalog), and the annotation olm.operatorframework.io/approved-bundle
names the bundle. operator-controller then installs it as any other change, and records a new
revision. Upgrades stay held by the pin until the previous values, which are printed, are put
back. Before writing, the CRDs in the cluster are compared with the ones the revision
installed by the rules of operator-controller's CRD upgrade-safety preflight: a rollback that
would drop a version objects are stored at is refused, as is any other unsafe change unless
spec.install.preflight.crdUpgradeSafety.enforcement is None. The patched spec is also resolved
against the cluster's ClusterCatalogs as operator-controller resolves it ("olmv1 resolve
--cluster"): a rollback to a bundle no catalog the extension selects offers is refused, since
the extension would only retry "no bundles found" with its upgrades held by the pin.
An extension whose revisions are ClusterObjectSets (operator-controller with
--feature-gates=BoxcutterRuntime=true) is rolled back the same way: its revisions are read from
the ClusterObjectSets, and operator-controller installs the pinned bundle as a new revision with
that bundle's content (the revision rolled back from is archived), as upstream's runtime goes
back: forward, to old content.

Flags:
${CLUSTER_FLAGS_HELP}
  --system-namespace NS      where operator-controller keeps the records (default ${DEFAULT_SYSTEM_NAMESPACE})
${CATALOGD_URL_HELP}
  --dry-run                  print the change and the patch; write nothing
  -h, --help                 show this help

Output:
  stdout: the revision chosen, the fields changed with their previous values, how to put
          them back, how to follow progress; with --dry-run the merge patch too.
  stderr: why the rollback is refused, errors.

Exit codes:
  0  the ClusterExtension was patched (or, with --dry-run, would be)
  1  refused (no such revision, unsafe CRD change, no selected catalog offers the bundle, ...),
     the ClusterExtension changed while
     the rollback ran, or the cluster could not be read or written
  2  usage error`;

/** What the command needs from its environment (composed in commands.ts). */
interface RollbackDeps {
  /** Connects as the user (kubeconfig resolution of every olmv1 command: cluster-access.ts). */
  connectCluster(flags: ClusterFlags): Promise<KubeContext>;
  /** catalogd content, to resolve the patched spec as operator-controller will. */
  catalogContent: CatalogContentCache;
}

interface Parsed {
  extension: string;
  revision: number | undefined;
  dryRun: boolean;
  cluster: ClusterFlags;
  namespace: string;
  catalogdUrl: URL | undefined;
}

/** Runs `olmv1 release rollback`; `args` are the arguments after `rollback`. */
export async function runReleaseRollback(args: readonly string[], io: CommandIO, deps: RollbackDeps): Promise<number> {
  return runCommand(io, async () => {
    const p = parse(args);
    await withCluster(deps.connectCluster(p.cluster), async (kube) => {
      const request = { extension: p.extension, revision: p.revision, dryRun: p.dryRun, systemNamespace: p.namespace };
      const text = rollbackText(await rollBack(rollbackPorts(kube, deps, p.catalogdUrl), request));
      if (!text.ok) throw new CommandError(text.error, 1);
      io.stdout.write(text.report);
    });
  });
}

/** The service's ports over the user's connection: resolution reads the catalogs as `olmv1 resolve --cluster` does. */
export function rollbackPorts(kube: KubeContext, deps: RollbackDeps, catalogdUrl: URL | undefined): RollbackPorts {
  return {
    client: kube.client,
    resolveInput: (src, installed) =>
      clusterResolveInput(kube, { connectCluster: deps.connectCluster, catalogContent: deps.catalogContent }, catalogdUrl, src, installed),
  };
}

/**
 * The outcome as the command prints it: the revision chosen, the fields changed with their
 * previous values, warnings, and how to put them back (or the merge patch of a dry run); a
 * refusal with the revision list when the revision was not one to go back to.
 */
export function rollbackText(outcome: Result<RollbackDone, RollbackRefusal>): { ok: true; report: string } | { ok: false; error: string } {
  if (!outcome.ok) {
    const { error, revisions } = outcome.error;
    return { ok: false, error: revisions === undefined ? error : `${error}\n${revisionList(revisions)}` };
  }
  const d = outcome.value;
  const report = [plan(d), ...d.warnings.map((w) => `warning: ${w}\n`), ...d.notes.map((n) => `note: ${n}\n`)].join('');
  if (!d.written) return { ok: true, report: `${report}\nmerge patch (dry run, nothing written):\n${JSON.stringify(d.patch.patch, null, 2)}\n` };
  return { ok: true, report: `${report}${afterwards(d)}` };
}

function parse(args: readonly string[]): Parsed {
  const usage = (problem: string) => new CommandError(`${problem}\n${USAGE}`, 2);
  const parsed = parseCommandLine(args, USAGE, {
    ...CLUSTER_FLAGS,
    'system-namespace': { type: 'string' },
    'catalogd-url': { type: 'string' },
    'dry-run': { type: 'boolean' },
  });
  const [extension, rev, ...extra] = parsed.positionals;
  if (extension === undefined || extra.length > 0) throw usage('"rollback" takes an extension name and optionally a revision');
  if (!isReleaseName(extension))
    throw usage(`${JSON.stringify(extension)} is not a ClusterExtension name (a DNS-1123 subdomain of at most 63 characters)`);
  if (rev !== undefined && !/^[1-9]\d{0,8}$/.test(rev)) throw usage(`REVISION must be a positive integer, got ${JSON.stringify(rev)}`);
  const namespace = parsed.values['system-namespace'] ?? DEFAULT_SYSTEM_NAMESPACE;
  if (namespace === '') throw usage('--system-namespace must not be empty');
  const catalogdUrl = catalogdUrlFlag(parsed.values['catalogd-url'], USAGE);
  return {
    extension,
    revision: rev === undefined ? undefined : Number(rev),
    dryRun: parsed.values['dry-run'] === true,
    cluster: clusterFlags(parsed.values, USAGE),
    namespace,
    catalogdUrl,
  };
}

function revisionList(history: readonly Revision[]): string {
  const extension = history[0]?.extension;
  if (extension === undefined) return '';
  return `Revisions ("olmv1 release history ${extension}"):\n${historyTable(history).trimEnd()}`;
}

function describe(r: Release): string {
  return `revision ${r.revision} (${r.bundle.name}, version ${r.bundle.version}${r.bundle.release === undefined ? '' : `, release ${r.bundle.release}`})`;
}

function plan(d: RollbackDone): string {
  const { patch } = d;
  const [from, to] = [d.from.record, d.to.record];
  const lines = [
    `Rolling back ${d.extension} from the deployed ${describe(from)} to ${describe(to)}.`,
    ...(d.chosen ? [`Revision ${to.revision} was chosen: the newest earlier revision that was deployed with another bundle.`] : []),
    ...(to.status === ReleaseStatus.Failed ? [`warning: revision ${to.revision} failed to install: ${to.description}`] : []),
    ...(patch.ambiguous
      ? [
          `warning: the version range grammar ignores build metadata and releases, so ${JSON.stringify(patch.pin)} also matches other releases of version ${patch.pin};` +
            ' resolution picks the highest one the catalogs offer. Under the Manual or AutomaticPatch update policy, the approved-bundle annotation holds any bundle but this one.',
        ]
      : []),
    '',
    table([['FIELD', 'PREVIOUS', 'NEW'], ...patch.changes.map((c) => [c.field, c.from ?? '(not set)', c.to])]).trimEnd(),
  ];
  return `${lines.join('\n')}\n`;
}

/** POSIX shell single quoting. */
function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

function afterwards(d: RollbackDone): string {
  const { extension, patch } = d;
  const target = d.to.record;
  return [
    '',
    `ClusterExtension ${JSON.stringify(extension)} patched; operator-controller now installs ${target.bundle.name} as a new revision.`,
    'Follow progress with:',
    '  olmv1 status',
    `  kubectl wait clusterextension/${extension} --for=${shellQuote(`jsonpath={.status.install.bundle.name}=${target.bundle.name}`)} --timeout=5m`,
    'The pin holds upgrades. To let them resume, put the previous values back:',
    `  kubectl patch clusterextension ${extension} --type=merge -p ${shellQuote(JSON.stringify(patch.restore))}`,
    '',
  ].join('\n');
}
