/**
 * `olmv1 release rollback EXT [REVISION]`: patches the extension's spec back to a recorded
 * revision's bundle (pkg/operator-controller/rollback) and leaves the rest to operator-controller,
 * after checking the way back against the live CRDs and that the patched spec resolves to it.
 */
import type { CatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { CLUSTER_EXTENSION, parseClusterExtension, UpgradeConstraintPolicy } from '../../pkg/shared/api/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { isConflict, isNotFound, type KubeClient, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { isReleaseName, ReleaseStatus, type Release } from '../../pkg/operator-controller/release/index.ts';
import {
  checkRollbackCrds,
  checkRollbackResolves,
  chooseRollbackTarget,
  readExtensionView,
  rollbackCrdNames,
  rollbackPatch,
  type RollbackPatch,
  type RollbackTarget,
} from '../../pkg/operator-controller/rollback/index.ts';
import { createRevisionReader, type Revision } from '../../pkg/operator-controller/revisions/index.ts';
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

const CE = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind };
const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };

/** Runs `olmv1 release rollback`; `args` are the arguments after `rollback`. */
export async function runReleaseRollback(args: readonly string[], io: CommandIO, deps: RollbackDeps): Promise<number> {
  return runCommand(io, async () => {
    const parsed = parse(args);
    await withCluster(deps.connectCluster(parsed.cluster), async (kube) => {
      await rollback(kube, deps, parsed, io);
    });
  });
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

async function rollback(kube: KubeContext, deps: RollbackDeps, p: Parsed, io: CommandIO): Promise<void> {
  const client = kube.client;
  const name = JSON.stringify(p.extension);
  const obj = await read(`reading ClusterExtension ${name}`, () => client.get({ ...CE, name: p.extension }), `ClusterExtension ${name} not found`);
  if (obj.metadata.deletionTimestamp !== undefined) throw new CommandError(`ClusterExtension ${name} is being deleted`, 1);
  const view = readExtensionView(obj);
  if (!view.ok) throw new CommandError(view.error, 1);
  // Its revisions wherever its runtime keeps them: ClusterObjectSets, else Helm release records.
  const revisions = await read(
    `reading the revisions of ${name} (ClusterObjectSets, or release records in namespace ${JSON.stringify(p.namespace)})`,
    () => createRevisionReader({ client, namespace: p.namespace }).revisions(p.extension),
  );
  const history = revisions.map((r) => r.record);
  const chosen = chooseRollbackTarget(p.extension, history, p.revision);
  if (!chosen.ok) throw new CommandError(`${chosen.error}\n${revisionList(p.extension, revisions)}`, 1);
  const { deployed, target } = chosen.value;
  const patch = rollbackPatch(view.value, target.bundle);
  if (!patch.ok) throw new CommandError(`cannot roll back ${name} to revision ${target.revision}: ${patch.error}`, 1);

  const live = new Map<string, KubeObject>();
  for (const crd of rollbackCrdNames(deployed, target)) {
    const found = await read(`reading CustomResourceDefinition ${JSON.stringify(crd)} to check the way back`, () =>
      client.get({ ...CRD, name: crd }).catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e))),
    );
    if (found !== undefined) live.set(crd, found);
  }
  const verdict = checkRollbackCrds({ deployed, target, live, enforcement: view.value.enforcement });
  if (verdict.refusals.length > 0) {
    const lines = [
      `refusing to roll back ${name} to revision ${target.revision} (${target.bundle.name}): operator-controller's CRD upgrade-safety preflight would block it. Nothing was changed.`,
      ...verdict.refusals,
      ...verdict.notes.map((n) => `note: ${n}`),
    ];
    throw new CommandError(lines.join('\n'), 1);
  }
  const resolution = await resolvesAfterPatch(kube, deps, p, obj, deployed, target, patch.value.pin);

  const report = [
    plan(chosen.value, patch.value),
    ...(resolution.warning === undefined ? [] : [`warning: ${resolution.warning}\n`]),
    ...verdict.warnings.map((w) => `warning: enforcement is None, so operator-controller applies this unsafe CRD change:\n${w}\n`),
    ...verdict.notes.map((n) => `note: ${n}\n`),
  ].join('');
  if (p.dryRun) {
    io.stdout.write(`${report}\nmerge patch (dry run, nothing written):\n${JSON.stringify(patch.value.patch, null, 2)}\n`);
    return;
  }
  // Printed once written: a refused write leaves only its error on stderr.
  await writePatch(client, obj, patch.value.patch);
  io.stdout.write(`${report}${afterwards(p.extension, target, patch.value)}`);
}

/**
 * Checks that the spec as patched resolves, as operator-controller resolves, to `target`'s bundle.
 * @throws CommandError (exit 1) when it does not, or the catalogs cannot be read.
 */
async function resolvesAfterPatch(
  kube: KubeContext,
  deps: RollbackDeps,
  p: Parsed,
  obj: KubeObject,
  deployed: Release,
  target: Release,
  pin: string,
): Promise<{ warning: string | undefined }> {
  const parsed = parseClusterExtension(obj);
  const source = parsed.ok ? parsed.value.spec.source.catalog : undefined;
  if (source === undefined) {
    throw new CommandError(
      `ClusterExtension ${JSON.stringify(p.extension)} ${parsed.ok ? 'has no spec.source.catalog' : `does not parse: ${parsed.error}`}`,
      1,
    );
  }
  const src = { ...source, version: pin, upgradeConstraintPolicy: UpgradeConstraintPolicy.SelfCertified };
  const b = deployed.bundle;
  const installed = { name: b.name, version: b.version, release: b.release ?? null };
  const input = await read('reading the ClusterCatalogs to check the way back', () =>
    clusterResolveInput(kube, { connectCluster: deps.connectCluster, catalogContent: deps.catalogContent }, p.catalogdUrl, src, installed),
  );
  const verdict = checkRollbackResolves(p.extension, target, pin, input);
  if (!verdict.ok) throw new CommandError(verdict.error, 1);
  return verdict.value;
}

/** Conflicts retried when only status or other metadata moved on. */
const CONFLICT_RETRIES = 3;

/**
 * Writes the merge patch with its resourceVersion precondition. On a conflict it is sent again
 * only when generation and annotations, what the decision read, are unchanged.
 */
async function writePatch(client: KubeClient, read0: KubeObject, patch: Record<string, unknown>): Promise<void> {
  const name = read0.metadata.name ?? '';
  const ref = { ...CE, name };
  let current = read0;
  for (let attempt = 0; ; attempt++) {
    const body = { ...patch, metadata: { ...(patch['metadata'] as object), resourceVersion: current.metadata.resourceVersion } };
    try {
      await client.patch(ref, body, 'merge', { fieldManager: 'olmv1' });
      return;
    } catch (e) {
      if (!isConflict(e)) throw new CommandError(`patching ClusterExtension ${JSON.stringify(name)}: ${errorMessage(e)}`, 1);
    }
    current = await read(
      `reading ClusterExtension ${JSON.stringify(name)}`,
      () => client.get(ref),
      `ClusterExtension ${JSON.stringify(name)} was deleted`,
    );
    const edited =
      current.metadata.generation !== read0.metadata.generation ||
      JSON.stringify(current.metadata.annotations ?? {}) !== JSON.stringify(read0.metadata.annotations ?? {}) ||
      current.metadata.deletionTimestamp !== undefined;
    if (edited || attempt + 1 >= CONFLICT_RETRIES) {
      throw new CommandError(
        `ClusterExtension ${JSON.stringify(name)} changed while the rollback ran (it was read at resourceVersion ${read0.metadata.resourceVersion ?? ''}); nothing was written. Run the rollback again.`,
        1,
      );
    }
  }
}

/** Runs a read; a NotFound becomes `notFound` when given; any failure exits 1 naming `what`. */
async function read<T>(what: string, get: () => Promise<T>, notFound?: string): Promise<T> {
  try {
    return await get();
  } catch (e) {
    if (notFound !== undefined && isNotFound(e)) throw new CommandError(notFound, 1);
    throw new CommandError(`${what}: ${errorMessage(e)}`, 1);
  }
}

function revisionList(extension: string, history: readonly Revision[]): string {
  if (history.length === 0) return '';
  return `Revisions ("olmv1 release history ${extension}"):\n${historyTable(history).trimEnd()}`;
}

function describe(r: Release): string {
  return `revision ${r.revision} (${r.bundle.name}, version ${r.bundle.version}${r.bundle.release === undefined ? '' : `, release ${r.bundle.release}`})`;
}

function plan(t: RollbackTarget, patch: RollbackPatch): string {
  const lines = [
    `Rolling back ${t.deployed.extension} from the deployed ${describe(t.deployed)} to ${describe(t.target)}.`,
    ...(t.chosen ? [`Revision ${t.target.revision} was chosen: the newest earlier revision that was deployed with another bundle.`] : []),
    ...(t.target.status === ReleaseStatus.Failed ? [`warning: revision ${t.target.revision} failed to install: ${t.target.description}`] : []),
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

function afterwards(extension: string, target: Release, patch: RollbackPatch): string {
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
