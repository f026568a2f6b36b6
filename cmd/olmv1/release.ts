/**
 * `olmv1 release list|history|get`: the release records operator-controller keeps, like `helm
 * list|history|get`. Exit codes: see RELEASE_USAGE.
 */
import type { Release } from '../../pkg/operator-controller/release/index.ts';
import { createRevisionReader, type Revision, type RevisionReader } from '../../pkg/operator-controller/revisions/index.ts';
import type { KubeContext } from '../../pkg/shared/kube/index.ts';
import { objectsToYaml, toYaml } from '../../pkg/operator-controller/render/index.ts';
import {
  CLUSTER_FLAGS,
  CLUSTER_FLAGS_HELP,
  clusterFlags,
  connectCluster,
  withCluster,
  type ClusterFlags,
  type KubeconfigLookup,
} from './cluster-access.ts';
import { type CommandIO, table } from './io.ts';
import { CommandError, parseCommandLine, runCommand } from './render.ts';

/** What `olmv1 release` needs from its environment (composed in commands.ts). */
interface ReleaseCommandDeps {
  /** Where the cluster is found without --kubeconfig. */
  kubeconfig: KubeconfigLookup;
  /** Connects instead of the kubeconfig (tests). */
  connect?: (flags: ClusterFlags) => Promise<Pick<KubeContext, 'client' | 'close'>>;
}

/** operator-controller's default system namespace. */
export const DEFAULT_SYSTEM_NAMESPACE = 'olmv1-system';

const RELEASE_USAGE = `Usage: olmv1 release list [--kubeconfig FILE] [--context NAME] [--system-namespace NS]
       olmv1 release history EXT [--kubeconfig FILE] [--context NAME] [--system-namespace NS]
       olmv1 release get EXT [--revision N] [manifest|values] [--kubeconfig FILE] [--context NAME]
                         [--system-namespace NS]
       olmv1 release rollback EXT [REVISION] ...   (see "olmv1 release rollback --help")

Shows the release records operator-controller keeps for each ClusterExtension: "list" the
latest revision of every extension, "history" all revisions of one, "get" one revision (the
latest by default) as a summary, its applied objects ("manifest", YAML) or its
configuration ("values", YAML). An extension that has ClusterObjectSets (operator-controller
with --feature-gates=BoxcutterRuntime=true) has them as its revisions: "history" then also
shows each one's name, lifecycle state (Active, Archived) and Available and Progressing.

Flags:
${CLUSTER_FLAGS_HELP}
  --system-namespace NS      where operator-controller keeps the records (default ${DEFAULT_SYSTEM_NAMESPACE})
  --revision N               with get: that revision instead of the latest
  -h, --help                 show this help

Output:
  stdout: list and history print a table; get prints a summary, or YAML for manifest|values.
  stderr: errors.

Exit codes:
  0  printed
  1  the records could not be read, or none exist for EXT, or no kubeconfig was found
  2  usage error`;

interface Parsed {
  words: string[];
  cluster: ClusterFlags;
  namespace: string;
  revision: number | undefined;
}

/** Runs `olmv1 release`; `args` are the arguments after `release`. */
export async function runRelease(args: readonly string[], io: CommandIO, deps: ReleaseCommandDeps): Promise<number> {
  return runCommand(io, async () => {
    const parsed = parse(args);
    const [sub, ...rest] = parsed.words;
    const run = subcommand(sub, rest, parsed.revision);
    const connecting = deps.connect === undefined ? connectCluster(parsed.cluster, deps.kubeconfig, 1) : deps.connect(parsed.cluster);
    await withCluster(connecting, async (kube) => {
      await run(createRevisionReader({ client: kube.client, namespace: parsed.namespace }), io, parsed.namespace);
    });
  });
}

function parse(args: readonly string[]): Parsed {
  const parsed = parseCommandLine(args, RELEASE_USAGE, {
    ...CLUSTER_FLAGS,
    'system-namespace': { type: 'string' },
    revision: { type: 'string' },
  });
  const rev = parsed.values.revision;
  if (rev !== undefined && !/^[1-9]\d*$/.test(rev))
    throw new CommandError(`--revision must be a positive integer, got ${JSON.stringify(rev)}\n${RELEASE_USAGE}`, 2);
  const namespace = parsed.values['system-namespace'] ?? DEFAULT_SYSTEM_NAMESPACE;
  if (namespace === '') throw new CommandError(`--system-namespace must not be empty\n${RELEASE_USAGE}`, 2);
  const cluster = clusterFlags(parsed.values, RELEASE_USAGE);
  return { words: parsed.positionals, cluster, namespace, revision: rev === undefined ? undefined : Number(rev) };
}

type Run = (store: RevisionReader, io: CommandIO, namespace: string) => Promise<void>;

// Checks the words before connecting, so usage errors never need a cluster.
function subcommand(sub: string | undefined, rest: string[], revision: number | undefined): Run {
  const usage = (problem: string) => new CommandError(`${problem}\n${RELEASE_USAGE}`, 2);
  if (revision !== undefined && sub !== 'get') throw usage('--revision is only valid with "get"');
  if (sub === 'list') {
    if (rest.length > 0) throw usage('"list" takes no arguments');
    return listReleases;
  }
  if (sub === 'history') {
    const [ext, ...extra] = rest;
    if (ext === undefined || extra.length > 0) throw usage('"history" takes exactly one extension name');
    return async (store, io, ns) => {
      const revisions = await store.revisions(ext);
      if (revisions.length === 0) throw noRecords(ext, ns);
      io.stdout.write(historyTable(revisions));
    };
  }
  if (sub === 'get') {
    const [ext, what = 'summary', ...extra] = rest;
    if (ext === undefined || extra.length > 0 || !['summary', 'manifest', 'values'].includes(what)) {
      throw usage('"get" takes an extension name and optionally "manifest" or "values"');
    }
    return async (store, io, ns) => {
      const history = await historyOf(store, ext, ns);
      const release = (revision === undefined ? history[0] : history.find((r) => r.number === revision))?.record;
      if (release === undefined) throw new CommandError(`revision ${revision} of ${JSON.stringify(ext)} not found`, 1);
      if (what === 'manifest') io.stdout.write(objectsToYaml(release.manifest.objects()));
      else if (what === 'values') io.stdout.write(toYaml(release.config ?? {}));
      else io.stdout.write(summary(release));
    };
  }
  if (sub === 'rollback') throw usage('"rollback" must follow "release" directly: olmv1 release rollback EXT [REVISION] [flags]');
  throw usage(sub === undefined ? 'missing subcommand' : `unknown subcommand ${JSON.stringify(sub)}`);
}

async function historyOf(store: RevisionReader, ext: string, namespace: string): Promise<Revision[]> {
  const history = await store.revisions(ext);
  if (history.length === 0) throw noRecords(ext, namespace);
  return history;
}

function noRecords(ext: string, namespace: string): CommandError {
  return new CommandError(`no release records of ${JSON.stringify(ext)} in namespace ${JSON.stringify(namespace)}`, 1);
}

async function listReleases(store: RevisionReader, io: CommandIO): Promise<void> {
  const rows = [['NAME', 'REVISION', 'UPDATED', 'STATUS', 'BUNDLE', 'VERSION']];
  for (const name of await store.list()) {
    const latest = (await store.revisions(name))[0]?.record;
    if (latest !== undefined) rows.push([name, String(latest.revision), updated(latest), latest.status, latest.bundle.name, latest.bundle.version]);
  }
  io.stdout.write(table(rows));
}

/**
 * The `history` table of `revisions` (newest first): one row a revision, oldest first, with
 * Helm's status. When they are ClusterObjectSets each row also names its ClusterObjectSet,
 * lifecycle state, Available and Progressing.
 */
export function historyTable(revisions: readonly Revision[]): string {
  const sets = revisions.some((r) => r.objectSet !== undefined);
  const extra = sets ? ['OBJECT SET', 'STATE', 'AVAILABLE', 'PROGRESSING'] : [];
  const rows = [['REVISION', 'UPDATED', 'STATUS', 'BUNDLE', 'VERSION', ...extra, 'DESCRIPTION']];
  for (const { record: r, objectSet: set } of [...revisions].reverse()) {
    const cells = sets ? [r.objectSet ?? set?.name ?? '-', set?.lifecycle ?? '-', set?.available ?? '-', set?.progressing ?? '-'] : [];
    rows.push([String(r.revision), updated(r), r.status, r.bundle.name, r.bundle.version, ...cells, oneLine(r.description)]);
  }
  return table(rows);
}

function summary(r: Release): string {
  const lines = [
    `NAME: ${r.extension}`,
    `REVISION: ${r.revision}`,
    ...(r.objectSet === undefined ? [] : [`OBJECT SET: ${r.objectSet}`]),
    `STATUS: ${r.status}`,
    `PACKAGE: ${r.bundle.package}`,
    `BUNDLE: ${r.bundle.name}`,
    `VERSION: ${r.bundle.version}`,
    ...(r.bundle.release === undefined ? [] : [`RELEASE: ${r.bundle.release}`]),
    `IMAGE: ${r.bundle.image}`,
    ...(r.namespace === undefined ? [] : [`NAMESPACE: ${r.namespace}`]),
    ...(r.firstDeployed === undefined ? [] : [`FIRST DEPLOYED: ${r.firstDeployed}`]),
    ...(r.lastDeployed === undefined ? [] : [`LAST DEPLOYED: ${r.lastDeployed}`]),
    `DESCRIPTION: ${r.description}`,
    `OBJECTS: ${r.manifest.identities().length}`,
  ];
  const kept = r.notes?.keptObjects ?? [];
  if (kept.length > 0) lines.push('KEPT OBJECTS:', ...kept.map((o) => `  ${o}`));
  const dropped = r.notes?.droppedFields ?? [];
  if (dropped.length > 0) lines.push('DROPPED FIELDS:', ...dropped.map((d) => `  ${d.object}: ${d.paths.join(', ')}`));
  return `${lines.join('\n')}\n`;
}

function updated(r: Release): string {
  return r.lastDeployed ?? r.firstDeployed ?? '-';
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}
