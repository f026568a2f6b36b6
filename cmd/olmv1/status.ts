/**
 * `olmv1 status`: "is my OLM healthy and may I upgrade the cluster?". The exit code (STATUS_EXIT)
 * gates scripts: `olmv1 status && oc adm upgrade ...`.
 */
import { dump } from 'js-yaml';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { parseClusterVersion, parseKubernetesVersion, type ClusterMinor } from '../../pkg/operator-controller/gating/index.ts';
import { sleepUnlessAborted, type KubeContext } from '../../pkg/shared/kube/index.ts';
import { STATUS_EXIT, collectStatus, statusExitCode, type StatusReader, type StatusReport } from '../../pkg/olmv1/status/index.ts';
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
      const reader: StatusReader = { client: kube.client, transport: kube.transport };
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
async function watch(client: StatusReader, o: Options, io: CommandIO, deps: StatusCommandDeps, render: (r: StatusReport) => string): Promise<number> {
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

/** Reads the report as the service does; a cluster that cannot be read is exit 2. */
async function collect(reader: StatusReader, o: Options): Promise<StatusReport> {
  try {
    return await collectStatus(reader, { namespace: o.namespace, clusterVersion: o.clusterVersion, kubernetesVersion: o.kubernetesVersion });
  } catch (e) {
    throw new CommandError(errorMessage(e), STATUS_EXIT.failed);
  }
}
