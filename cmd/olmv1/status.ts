/**
 * `olmv1 status`: "is my OLM healthy and may I upgrade the cluster?". The exit code (STATUS_EXIT)
 * gates scripts: `olmv1 status && oc adm upgrade ...`.
 */
import { dump } from 'js-yaml';
import { CLUSTER_CATALOG, CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import {
  nextMinorVersion,
  parseClusterVersion,
  parseKubernetesVersion,
  type ClusterMinor,
  type DeployedExtension,
  type ObjectIdentity,
} from '../../pkg/operator-controller/gating/index.ts';
import { readServerVersion } from '../../pkg/operator-controller/dependencies/index.ts';
import { ReleaseStatus } from '../../pkg/operator-controller/release/index.ts';
import {
  isForbidden,
  isNoKindMatch,
  isNotFound,
  sleepUnlessAborted,
  type KubeClient,
  type KubeContext,
  type KubeObject,
} from '../../pkg/shared/kube/index.ts';
import { createRevisionReader, type ObjectSetState } from '../../pkg/operator-controller/revisions/index.ts';
import {
  CLUSTER_FLAGS,
  CLUSTER_FLAGS_HELP,
  clusterFlags,
  connectCluster,
  withCluster,
  type ClusterFlags,
  type KubeconfigLookup,
} from './cluster-access.ts';
import { CommandError, flagChoice, parseCommandLine, runCommand } from './render.ts';
import { DEFAULT_SYSTEM_NAMESPACE } from './release.ts';
import {
  ADVICE_REASONS,
  STATUS_EXIT,
  buildStatusReport,
  statusExitCode,
  type ClusterVersionInfo,
  type KubernetesTargetInfo,
  type StatusReport,
} from './status-report.ts';
import { renderStatusTable } from './status-table.ts';
import type { CommandIO } from './io.ts';

/** What `olmv1 status` needs from its environment (composed in commands.ts). */
interface StatusCommandDeps {
  /** Where the cluster is found without --kubeconfig. */
  kubeconfig: KubeconfigLookup;
  /** stdout is a terminal: colour (unless NO_COLOR) and fitting to `columns`; --watch clears the screen. */
  isTTY: boolean;
  columns: number | undefined;
  /** `NO_COLOR` is set (to anything non-empty). */
  noColor: boolean;
  /** Ends --watch (Ctrl-C). */
  signal?: AbortSignal;
  /** Connects instead of the kubeconfig (tests). */
  connect?: (flags: ClusterFlags) => Promise<Pick<KubeContext, 'client' | 'transport' | 'close'>>;
}

const USAGE = `Usage: olmv1 status [--kubeconfig FILE] [--context NAME] [--system-namespace NS]
                    [--cluster-version X.Y[.Z]] [--kubernetes-version X.Y]
                    [-o table|json|yaml] [--watch] [--interval SECONDS]

Shows the ClusterCatalogs, the ClusterExtensions and whether their installed bundles allow the
cluster's next minor upgrade: olm.maxOpenShiftVersion, API versions the Kubernetes version
removes, and operators that report Upgradeable=False.

Flags:
${CLUSTER_FLAGS_HELP}
  --system-namespace NS      operator-controller's namespace (default ${DEFAULT_SYSTEM_NAMESPACE})
  --cluster-version X.Y[.Z]  the cluster's version (default: the config.openshift.io
                             ClusterVersion "version"; needed outside OpenShift)
  --kubernetes-version X.Y   the Kubernetes minor to check installed objects' API versions
                             against (default: the minor after the API server's)
  -o, --output FORMAT        table (default), json or yaml
  -w, --watch                redraw on every change; Ctrl-C ends it with the last verdict
  --interval SECONDS         with --watch: seconds between polls (default 2)
  -h, --help                 show this help

Output:
  stdout: the report (a table: colour on a terminal unless NO_COLOR is set). stderr: errors.

Exit codes:
  0  the next minor upgrade is allowed
  1  it is blocked (a bundle's maximum, a removed API, Upgradeable=False), or undecided
     (metadata errors)
  2  usage or connection error
  3  undecidable: no cluster version to judge from (no ClusterVersion, no --cluster-version)
     while an installed bundle declares olm.maxOpenShiftVersion (or its metadata is wrong);
     the report is printed all the same. Without any such bundle the answer does not depend
     on the version: 0`;

interface Options {
  cluster: ClusterFlags;
  namespace: string;
  clusterVersion: ClusterMinor | undefined;
  /** --kubernetes-version: the target minor itself. */
  kubernetesVersion: ClusterMinor | undefined;
  output: 'table' | 'json' | 'yaml';
  watch: boolean;
  intervalMs: number;
}

function parse(args: readonly string[]): Options {
  const v = parseCommandLine(
    args,
    USAGE,
    {
      ...CLUSTER_FLAGS,
      'system-namespace': { type: 'string' },
      'cluster-version': { type: 'string' },
      'kubernetes-version': { type: 'string' },
      output: { type: 'string', short: 'o' },
      watch: { type: 'boolean', short: 'w' },
      interval: { type: 'string' },
    },
    false,
  ).values;
  const output = flagChoice('-o', v.output ?? 'table', ['table', 'json', 'yaml'], USAGE) ?? 'table';
  let clusterVersion: ClusterMinor | undefined;
  if (v['cluster-version'] !== undefined) {
    const cv = parseClusterVersion(v['cluster-version']);
    if (!cv.ok) throw new CommandError(`--cluster-version: ${cv.error}\n${USAGE}`, 2);
    clusterVersion = cv.value;
  }
  let kubernetesVersion: ClusterMinor | undefined;
  if (v['kubernetes-version'] !== undefined) {
    const kv = parseKubernetesVersion(v['kubernetes-version']);
    if (!kv.ok) throw new CommandError(`--kubernetes-version: ${kv.error}\n${USAGE}`, 2);
    kubernetesVersion = kv.value;
  }
  const interval = Number(v.interval ?? '2');
  if (!(interval > 0)) throw new CommandError(`--interval must be a positive number of seconds\n${USAGE}`, 2);
  return {
    cluster: clusterFlags(v, USAGE),
    namespace: v['system-namespace'] ?? DEFAULT_SYSTEM_NAMESPACE,
    clusterVersion,
    kubernetesVersion,
    output,
    watch: v.watch === true,
    intervalMs: interval * 1000,
  };
}

/** Runs `olmv1 status`; `args` are the arguments after `status`. */
export async function runStatus(args: readonly string[], io: CommandIO, deps: StatusCommandDeps): Promise<number> {
  return runCommand(io, async () => {
    const o = parse(args);
    const connecting = deps.connect === undefined ? connectCluster(o.cluster, deps.kubeconfig, STATUS_EXIT.failed) : deps.connect(o.cluster);
    return withCluster(connecting, async (kube) => {
      const render = (r: StatusReport): string => format(r, o.output, deps);
      const reader: Reader = { client: kube.client, transport: kube.transport };
      if (!o.watch) {
        const report = await collect(reader, o);
        io.stdout.write(render(report));
        return statusExitCode(report);
      }
      return watch(reader, o, io, deps, render);
    });
  });
}

// Redraws whenever the rendered text changes; polls every --interval until the signal aborts.
async function watch(client: Reader, o: Options, io: CommandIO, deps: StatusCommandDeps, render: (r: StatusReport) => string): Promise<number> {
  let last = '';
  let code = 0;
  const signal = deps.signal ?? new AbortController().signal;
  while (!signal.aborted) {
    const report = await collect(client, o);
    code = statusExitCode(report);
    const text = render(report);
    if (text !== last) {
      io.stdout.write(deps.isTTY && o.output === 'table' ? `\x1b[H\x1b[2J${text}` : last === '' ? text : `---\n${text}`);
      last = text;
    }
    await sleepUnlessAborted(o.intervalMs, signal);
  }
  return code;
}

function format(report: StatusReport, output: Options['output'], deps: StatusCommandDeps): string {
  if (output === 'json') return `${JSON.stringify(report, null, 2)}\n`;
  if (output === 'yaml') return dump(report, { noRefs: true, lineWidth: -1 });
  return renderStatusTable(report, {
    color: deps.isTTY && !deps.noColor,
    ...(deps.isTTY && deps.columns !== undefined ? { columns: deps.columns } : {}),
  });
}

/** What collect reads with: the client, and the transport for the API server's /version. */
interface Reader {
  client: KubeClient;
  transport: Parameters<typeof readServerVersion>[0];
}

/** Reads everything the report needs; API failures are connection errors (exit 2), except for the cluster version. */
async function collect(reader: Reader, o: Options): Promise<StatusReport> {
  const { client } = reader;
  try {
    const [version, kubernetes, catalogs, extensions, advice] = await Promise.all([
      currentVersion(client, o.clusterVersion),
      kubernetesTarget(reader.transport, o.kubernetesVersion),
      client.listAll(CLUSTER_CATALOG),
      client.listAll(CLUSTER_EXTENSION),
      adviceEvents(client),
    ]);
    // ClusterObjectSets for an extension that has them (BoxcutterRuntime), else its release records.
    const store = createRevisionReader({ client, namespace: o.namespace });
    const deployed = new Map<string, DeployedExtension>();
    const objects = new Map<string, readonly ObjectIdentity[]>();
    const objectSets = new Map<string, ObjectSetState>();
    const unreadable: string[] = [];
    for (const e of extensions.items) {
      const name = e.metadata.name ?? '';
      try {
        // The whole history, as `olmv1 release history` reads it: the deployed revision's objects too.
        const history = await store.read(name);
        const release = history.releases.find((r) => r.status === ReleaseStatus.Deployed);
        const set = history.objectSets?.find((s) => s.name === release?.objectSet) ?? history.objectSets?.[0];
        if (set !== undefined) objectSets.set(name, set);
        if (release === undefined) continue;
        deployed.set(name, { extension: name, bundle: release.bundle.name, properties: release.properties });
        objects.set(name, release.manifest.identities());
      } catch {
        unreadable.push(name);
      }
    }
    return buildStatusReport({
      version,
      kubernetes,
      objects,
      catalogs: catalogs.items,
      extensions: extensions.items,
      deployed,
      unreadable,
      adviceEvents: advice,
      ...(objectSets.size === 0 ? {} : { objectSets }),
    });
  } catch (e) {
    throw new CommandError(errorMessage(e), STATUS_EXIT.failed);
  }
}

/** operator-controller's advice Events (in namespace default, as for cluster-scoped objects); none when the user may not list them. */
async function adviceEvents(client: KubeClient): Promise<KubeObject[]> {
  try {
    const lists = await Promise.all(
      ADVICE_REASONS.map((reason) =>
        client.listAll({ apiVersion: 'events.k8s.io/v1', kind: 'Event' }, { namespace: 'default', fieldSelector: `reason=${reason}` }),
      ),
    );
    return lists.flatMap((l) => l.items);
  } catch {
    return [];
  }
}

/** --kubernetes-version, else the minor after the API server's `/version`; unknown (saying why) when that cannot be read. */
async function kubernetesTarget(transport: Reader['transport'], flag: ClusterMinor | undefined): Promise<KubernetesTargetInfo> {
  if (flag !== undefined) return { ok: true, target: flag, source: 'flag' };
  let gitVersion: string;
  try {
    gitVersion = await readServerVersion(transport);
  } catch (e) {
    return { ok: false, error: `cannot read the API server's version: ${errorMessage(e)}` };
  }
  const v = parseKubernetesVersion(gitVersion);
  return v.ok ? { ok: true, target: nextMinorVersion(v.value), source: 'server' } : { ok: false, error: v.error };
}

/** --cluster-version, else the ClusterVersion `version`; unknown (saying why) when absent, unusable or unreadable. */
export async function currentVersion(client: KubeClient, flag: ClusterMinor | undefined): Promise<ClusterVersionInfo> {
  if (flag !== undefined) return { ok: true, current: flag, source: 'flag' };
  let desired: unknown;
  try {
    const cv = await client.get({ apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', name: 'version' });
    desired = (cv.status as { desired?: { version?: unknown } } | undefined)?.desired?.version;
  } catch (e) {
    if (isNoKindMatch(e)) return { ok: false, error: 'the cluster serves no config.openshift.io/v1 ClusterVersion API (it is not OpenShift)' };
    if (isNotFound(e)) return { ok: false, error: 'the config.openshift.io/v1 ClusterVersion "version" does not exist' };
    if (isForbidden(e)) return { ok: false, error: `cannot read the ClusterVersion "version": ${errorMessage(e)}` };
    throw e;
  }
  if (typeof desired !== 'string' || desired === '') return { ok: false, error: 'the ClusterVersion "version" has no status.desired.version' };
  const parsed = parseClusterVersion(desired);
  if (!parsed.ok) return { ok: false, error: `the ClusterVersion "version" has status.desired.version ${JSON.stringify(desired)}: ${parsed.error}` };
  return { ok: true, current: parsed.value, source: 'ClusterVersion' };
}
