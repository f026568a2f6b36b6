/**
 * `olmv1 catalog update NAME`: kubectl-operator's `update catalog`. Only the fields given on the
 * command line change, by one JSON merge patch (RFC 7386) of just those fields; everything else
 * on the ClusterCatalog (other labels, annotations, the fields not named) stays as it is.
 */
import { CLUSTER_CATALOG } from '../../pkg/shared/api/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { isConflict, isNotFound, retryOnConflict, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { parseDuration } from '../shared/flags.ts';
import { CLUSTER_FLAGS, CLUSTER_FLAGS_HELP, type ClusterFlags, clusterFlags, withCluster } from './cluster-access.ts';
import { type CommandIO, EXIT } from './io.ts';
import { CommandError, flagChoice, formatObjects, parseCommandLine, runCommand } from './render.ts';

const UPDATE_USAGE = `Usage: olmv1 catalog update NAME [--image REF] [--priority N] [--poll-interval DURATION|0]
         [--available true|false] [--labels KEY=VALUE,...] [--dry-run] [-o yaml|json]
         [--kubeconfig FILE] [--context NAME]

Changes the ClusterCatalog NAME: only the fields given here, by a merge patch of just those
fields; the rest of the ClusterCatalog is left as it is. At least one change is needed.

Flags:
  --image REF                the catalog image to serve from now on
  --priority N               among catalogs offering the same package, the higher wins (may be
                             negative)
  --poll-interval DURATION   how often catalogd looks for a new image behind a tag, in whole
                             minutes (e.g. 10m); 0 stops polling (not for digest references)
  --available true|false     false stops serving it (its content is removed); true serves it
  --labels KEY=VALUE,...     labels to set; KEY= (an empty value) removes that label; may be
                             given more than once
  --dry-run                  send the change as a server-side dry run and print the result;
                             write nothing
  -o, --output FORMAT        yaml or json: print the updated ClusterCatalog (default with
                             --dry-run: yaml)
${CLUSTER_FLAGS_HELP}
  -h, --help                 show this help

Output:
  stdout: that it is updated (or the object with -o / --dry-run). stderr: errors.

Exit codes:
  0  updated (printed, with --dry-run)
  1  no such ClusterCatalog, the API server refused the change (its message is printed), or
     a permission is missing
  2  usage error`;

function usageError(message: string): CommandError {
  return new CommandError(`${message}\n${UPDATE_USAGE}`, EXIT.usage);
}

const LABEL_KEY = /^(?:[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?\/)?[a-zA-Z0-9](?:[-a-zA-Z0-9_.]*[a-zA-Z0-9])?$/;
const LABEL_VALUE = /^(?:[a-zA-Z0-9](?:[-a-zA-Z0-9_.]*[a-zA-Z0-9])?)?$/;

/** `--labels` values (`k=v,k2=`): each key to its value, or null to remove it. */
function parseLabels(values: readonly string[]): Record<string, string | null> {
  const labels: Record<string, string | null> = {};
  for (const value of values) {
    for (const pair of value.split(',')) {
      const eq = pair.indexOf('=');
      const key = eq < 0 ? pair : pair.slice(0, eq);
      const v = eq < 0 ? undefined : pair.slice(eq + 1);
      if (v === undefined || !LABEL_KEY.test(key) || key.length > 317 || !LABEL_VALUE.test(v) || v.length > 63) {
        throw usageError(`invalid --labels entry ${JSON.stringify(pair)} (want KEY=VALUE, a label key and value; KEY= removes KEY)`);
      }
      labels[key] = v === '' ? null : v;
    }
  }
  return labels;
}

/** The arguments of `catalog update`, checked, and the merge patch they make. */
export function parseCatalogUpdateArgs(args: readonly string[]) {
  const { values, positionals } = parseCommandLine(args, UPDATE_USAGE, {
    ...CLUSTER_FLAGS,
    image: { type: 'string' },
    priority: { type: 'string' },
    'poll-interval': { type: 'string' },
    available: { type: 'string' },
    labels: { type: 'string', multiple: true },
    'dry-run': { type: 'boolean' },
    output: { type: 'string', short: 'o' },
  });
  const [name] = positionals;
  if (positionals.length !== 1 || name === undefined || name === '') throw usageError('expected exactly one NAME');
  const image: Record<string, unknown> = {};
  const spec: Record<string, unknown> = {};
  if (values.image !== undefined) {
    if (values.image.trim() === '') throw usageError('invalid --image "" (want an image reference)');
    image['ref'] = values.image;
  }
  if (values.priority !== undefined) {
    const priority = Number(values.priority);
    if (values.priority.trim() === '' || !Number.isInteger(priority) || priority < -(2 ** 31) || priority >= 2 ** 31) {
      throw usageError(`invalid --priority ${JSON.stringify(values.priority)} (want a 32-bit integer)`);
    }
    spec['priority'] = priority;
  }
  const poll = values['poll-interval'];
  if (poll !== undefined) {
    let ms = NaN;
    try {
      ms = poll === '0' ? 0 : parseDuration(poll);
    } catch {
      // reported below
    }
    if (!Number.isInteger(ms / 60_000) || ms < 0) {
      throw usageError(`invalid --poll-interval ${JSON.stringify(poll)} (want whole minutes, e.g. 10m or 1h, or 0 to stop polling)`);
    }
    // null removes the field: catalogd then never polls.
    image['pollIntervalMinutes'] = ms === 0 ? null : ms / 60_000;
    if (ms > 0 && typeof image['ref'] === 'string' && image['ref'].includes('@')) {
      throw usageError(`--poll-interval cannot be set for the digest reference ${JSON.stringify(image['ref'])}`);
    }
  }
  const available = flagChoice('--available', values.available, ['true', 'false'], UPDATE_USAGE);
  if (available !== undefined) spec['availabilityMode'] = available === 'true' ? 'Available' : 'Unavailable';
  if (Object.keys(image).length > 0) spec['source'] = { image };
  const labels = parseLabels(values.labels ?? []);
  const patch: Record<string, unknown> = {};
  if (Object.keys(labels).length > 0) patch['metadata'] = { labels };
  if (Object.keys(spec).length > 0) patch['spec'] = spec;
  if (Object.keys(patch).length === 0) {
    throw usageError('nothing to change: give at least one of --image, --priority, --poll-interval, --available, --labels');
  }
  const dryRun = values['dry-run'] === true;
  const output = flagChoice('-o', values.output, ['yaml', 'json'], UPDATE_USAGE) ?? (dryRun ? 'yaml' : undefined);
  return { name, patch, dryRun, output, cluster: clusterFlags(values, UPDATE_USAGE) };
}

/** The cluster, as much of it as `catalog update` uses. */
interface CatalogUpdateDeps {
  connectCluster(flags: ClusterFlags): Promise<Pick<KubeContext, 'client' | 'close'>>;
}

/** Runs `olmv1 catalog update`. */
export async function runCatalogUpdate(args: readonly string[], io: CommandIO, deps: CatalogUpdateDeps): Promise<number> {
  return runCommand(io, async () => {
    const a = parseCatalogUpdateArgs(args);
    const quoted = JSON.stringify(a.name);
    await withCluster(deps.connectCluster(a.cluster), async (kube) => {
      // As kubectl's edits: the read and the conditional patch again when someone else (catalogd's
      // status writes, say) changed the catalog in between, a few times at most.
      const updated = await retryOnConflict(() => patchCatalog(kube.client, a, quoted)).catch((e: unknown) => {
        throw e instanceof CommandError ? e : new CommandError(`error updating ClusterCatalog ${quoted}: ${errorMessage(e)}`, EXIT.failed);
      });
      if (a.output !== undefined) io.stdout.write(formatObjects([updated], a.output));
      else io.stdout.write(`updated ClusterCatalog ${a.name}\n`);
      if (a.dryRun) io.stderr.write(`ClusterCatalog ${a.name} not changed (dry run)\n`);
    });
  });
}

/**
 * Reads catalog `a.name` and patches it at the read resourceVersion (a conditional patch: what
 * was checked still holds). A conflict is thrown as the API server's error, to be retried; any
 * other failure as a CommandError.
 */
async function patchCatalog(client: KubeContext['client'], a: ReturnType<typeof parseCatalogUpdateArgs>, quoted: string): Promise<KubeObject> {
  let current: KubeObject;
  try {
    current = await client.get({ ...CLUSTER_CATALOG, name: a.name });
  } catch (e) {
    if (isNotFound(e)) throw new CommandError(`ClusterCatalog ${quoted} not found`, EXIT.failed);
    throw new CommandError(`error reading ClusterCatalog ${quoted}: ${errorMessage(e)}`, EXIT.failed);
  }
  const source = (current.spec as { source?: { type?: unknown } } | undefined)?.source;
  if (source?.type !== 'Image') {
    throw new CommandError(
      `ClusterCatalog ${quoted} has source type ${JSON.stringify(source?.type)}; only Image sources can be updated`,
      EXIT.failed,
    );
  }
  const patch = { ...a.patch, metadata: { ...(a.patch['metadata'] as object | undefined), resourceVersion: current.metadata.resourceVersion } };
  try {
    return await client.patch({ ...CLUSTER_CATALOG, name: a.name }, patch, 'merge', { dryRun: a.dryRun });
  } catch (e) {
    if (isNotFound(e)) throw new CommandError(`ClusterCatalog ${quoted} not found`, EXIT.failed);
    if (isConflict(e)) throw e;
    throw new CommandError(`error updating ClusterCatalog ${quoted}: ${errorMessage(e)}`, EXIT.failed);
  }
}
