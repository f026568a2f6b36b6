/**
 * `olmv1 catalog add`, `catalog remove` and `catalogs`: ClusterCatalogs created, deleted and
 * listed as kubectl-operator's `create|delete|get catalog` do. Exit codes: see each usage text.
 */
import { CLUSTER_CATALOG } from '../../pkg/shared/api/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { isNotFound, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { toYaml } from '../../pkg/operator-controller/render/index.ts';
import { parseDuration } from '../shared/flags.ts';
import { CLUSTER_FLAGS, CLUSTER_FLAGS_HELP, clusterFlags, withCluster } from './cluster-access.ts';
import { type CommandIO, EXIT, poll, table } from './io.ts';
import { catalogRow, catalogServing } from './install-objects.ts';
import { catalogManifest, createCatalog, deleteCatalog } from '../../pkg/olmv1/catalog/index.ts';
import type { InstallDeps } from './install.ts';
import { CommandError, flagChoice, formatObjects, parseCommandLine, runCommand, timeoutFlag } from './render.ts';

const ADD_USAGE = `Usage: olmv1 catalog add NAME IMAGE [--priority N] [--poll-interval DURATION] [--available true|false]
         [--dry-run] [-o yaml|json] [--no-wait] [--timeout DURATION] [--kubeconfig FILE] [--context NAME]

Creates the ClusterCatalog NAME serving the file-based catalog image IMAGE, labelled
olm.operatorframework.io/metadata.name=NAME, and waits until catalogd serves it.

Flags:
  --priority N               among catalogs offering the same package, the higher wins (default 0;
                             may be negative)
  --poll-interval DURATION   how often catalogd looks for a new image behind a tag, in whole
                             minutes (e.g. 10m; default: catalogd's; not for digest references)
  --available true|false     false creates it without serving it (default true)
  --dry-run                  print the ClusterCatalog; write nothing
  -o, --output FORMAT        yaml or json: print the ClusterCatalog (default with --dry-run: yaml)
  --no-wait                  return once it is created
  --timeout DURATION         how long to wait for Serving (default 5m)
${CLUSTER_FLAGS_HELP}
  -h, --help                 show this help

Output:
  stdout: that it is serving (or the object with -o / --dry-run). stderr: progress, errors.

Exit codes:
  0  created and serving (or created, with --no-wait or --available false; printed, with --dry-run)
  1  not created (a catalog of that name exists, a permission is missing), or not serving
     within --timeout (its Progressing message is printed; the ClusterCatalog stays)
  2  usage error`;

const REMOVE_USAGE = `Usage: olmv1 catalog remove NAME [--no-wait] [--timeout DURATION] [--kubeconfig FILE] [--context NAME]

Deletes the ClusterCatalog NAME and waits until catalogd has removed its content and it is
gone. Installed extensions stay installed; those that resolve only from it cannot upgrade.

Flags:
  --no-wait                  return once the deletion is requested
  --timeout DURATION         how long to wait for it to go (default 2m)
${CLUSTER_FLAGS_HELP}
  -h, --help                 show this help

Output:
  stdout: that it is deleted. stderr: progress, errors.

Exit codes:
  0  deleted
  1  no such ClusterCatalog, or it could not be deleted, or it is still there after --timeout
  2  usage error`;

const LIST_USAGE = `Usage: olmv1 catalogs [-o table|json|yaml] [--kubeconfig FILE] [--context NAME]

Lists the ClusterCatalogs of the cluster: availability, priority, whether catalogd serves it,
when it last unpacked, and the image (by digest once resolved). "olmv1 catalog list" lists the
packages inside catalogs instead.

Flags:
  -o, --output FORMAT        table (default), json or yaml
${CLUSTER_FLAGS_HELP}
  -h, --help                 show this help

Output:
  stdout: one row per ClusterCatalog, in name order. stderr: errors.

Exit codes:
  0  listed (also when there are none)
  1  the ClusterCatalogs could not be read
  2  usage error`;

function usageError(message: string, usage: string): CommandError {
  return new CommandError(`${message}\n${usage}`, EXIT.usage);
}

/** The arguments of `catalog add`, checked. */
export function parseCatalogAddArgs(args: readonly string[]) {
  const { values, positionals } = parseCommandLine(args, ADD_USAGE, {
    ...CLUSTER_FLAGS,
    priority: { type: 'string' },
    'poll-interval': { type: 'string' },
    available: { type: 'string' },
    'dry-run': { type: 'boolean' },
    output: { type: 'string', short: 'o' },
    'no-wait': { type: 'boolean' },
    timeout: { type: 'string' },
  });
  const [name, image] = positionals;
  if (positionals.length !== 2 || name === undefined || name === '' || image === undefined || image === '') {
    throw usageError('expected NAME and IMAGE', ADD_USAGE);
  }
  let priority: number | undefined;
  if (values.priority !== undefined) {
    priority = Number(values.priority);
    if (values.priority.trim() === '' || !Number.isInteger(priority) || priority < -(2 ** 31) || priority >= 2 ** 31) {
      throw usageError(`invalid --priority ${JSON.stringify(values.priority)} (want a 32-bit integer)`, ADD_USAGE);
    }
  }
  let pollMinutes: number | undefined;
  if (values['poll-interval'] !== undefined) {
    let ms = NaN;
    try {
      ms = parseDuration(values['poll-interval']);
    } catch {
      // reported below
    }
    if (!Number.isInteger(ms / 60_000) || ms < 60_000) {
      throw usageError(`invalid --poll-interval ${JSON.stringify(values['poll-interval'])} (want whole minutes, e.g. 10m or 1h)`, ADD_USAGE);
    }
    pollMinutes = ms / 60_000;
  }
  const available = flagChoice('--available', values.available ?? 'true', ['true', 'false'], ADD_USAGE);
  const format = flagChoice('-o', values.output, ['yaml', 'json'], ADD_USAGE);
  return {
    catalog: catalogManifest({ name, image, priority, pollMinutes, available: available === 'true' }),
    dryRun: values['dry-run'] === true,
    output: format,
    wait: values['no-wait'] !== true && available === 'true',
    timeoutMs: timeoutFlag(values.timeout, 5 * 60_000, ADD_USAGE),
    cluster: clusterFlags(values, ADD_USAGE),
  };
}

type CatalogDeps = Pick<InstallDeps, 'connectCluster' | 'sleep' | 'now'>;

/**
 * Reads the ClusterCatalog `name` (undefined: it is gone) until `progress` says it is done
 * (undefined) or `timeoutMs` passed. Returns the last progress text when it timed out.
 */
async function waitFor(
  kube: KubeContext,
  name: string,
  timeoutMs: number,
  io: CommandIO,
  deps: CatalogDeps,
  progress: (obj: KubeObject | undefined) => string | undefined,
): Promise<string | undefined> {
  const look = () =>
    kube.client.get({ ...CLUSTER_CATALOG, name }).catch((e: unknown) => {
      if (!isNotFound(e)) throw new CommandError(`error reading ClusterCatalog ${JSON.stringify(name)}: ${errorMessage(e)}`, EXIT.failed);
      return undefined;
    });
  return progress(await poll(`waiting for ClusterCatalog ${name}`, timeoutMs, look, progress, io, deps));
}

/** Runs `olmv1 catalog add`. */
export async function runCatalogAdd(args: readonly string[], io: CommandIO, deps: CatalogDeps): Promise<number> {
  return runCommand(io, async () => {
    const a = parseCatalogAddArgs(args);
    const name = a.catalog.metadata.name ?? '';
    if (a.dryRun) {
      io.stdout.write(formatObjects([a.catalog], a.output ?? 'yaml'));
      return;
    }
    await withCluster(deps.connectCluster(a.cluster), async (kube) => {
      const created = await createCatalog(kube.client, a.catalog);
      if (!created.ok) throw new CommandError(created.error, EXIT.failed);
      io.stderr.write(`created ClusterCatalog ${name}\n`);
      if (a.output !== undefined) io.stdout.write(formatObjects([a.catalog], a.output));
      if (!a.wait) {
        if (a.output === undefined) io.stdout.write(`created ClusterCatalog ${name}\n`);
        return;
      }
      const stuck = await waitFor(kube, name, a.timeoutMs, io, deps, (obj) => {
        const state = obj === undefined ? { serving: false, progress: 'not found' } : catalogServing(obj);
        return state.serving ? undefined : state.progress;
      });
      if (stuck !== undefined) {
        throw new CommandError(
          `ClusterCatalog ${name} is not serving after ${Math.round(a.timeoutMs / 1000)} s: ${stuck}\n(it stays; remove it with "olmv1 catalog remove ${name}")`,
          EXIT.failed,
        );
      }
      if (a.output === undefined) io.stdout.write(`ClusterCatalog ${name} is serving\n`);
    });
  });
}

/** Runs `olmv1 catalog remove`. */
export async function runCatalogRemove(args: readonly string[], io: CommandIO, deps: CatalogDeps): Promise<number> {
  return runCommand(io, async () => {
    const { values, positionals } = parseCommandLine(args, REMOVE_USAGE, {
      ...CLUSTER_FLAGS,
      'no-wait': { type: 'boolean' },
      timeout: { type: 'string' },
    });
    const name = positionals[0];
    if (positionals.length !== 1 || name === undefined || name === '') throw usageError('expected exactly one NAME', REMOVE_USAGE);
    const timeoutMs = timeoutFlag(values.timeout, 2 * 60_000, REMOVE_USAGE);
    await withCluster(deps.connectCluster(clusterFlags(values, REMOVE_USAGE)), async (kube) => {
      const deleted = await deleteCatalog(kube.client, name);
      if (!deleted.ok) throw new CommandError(deleted.error, EXIT.failed);
      if (values['no-wait'] !== true) {
        const stuck = await waitFor(
          kube,
          name,
          timeoutMs,
          io,
          deps,
          (obj) => obj && `finalizers ${(obj.metadata.finalizers ?? []).join(', ') || 'none'}`,
        );
        if (stuck !== undefined)
          throw new CommandError(`ClusterCatalog ${name} is still there after ${Math.round(timeoutMs / 1000)} s: ${stuck}`, EXIT.failed);
      }
      io.stdout.write(`deleted ClusterCatalog ${name}\n`);
    });
  });
}

/** Runs `olmv1 catalogs`. */
export async function runCatalogs(args: readonly string[], io: CommandIO, deps: CatalogDeps): Promise<number> {
  return runCommand(io, async () => {
    const { values, positionals } = parseCommandLine(args, LIST_USAGE, { ...CLUSTER_FLAGS, output: { type: 'string', short: 'o' } });
    if (positionals.length > 0) throw usageError(`unexpected argument ${JSON.stringify(positionals[0])}`, LIST_USAGE);
    const output = flagChoice('-o', values.output ?? 'table', ['table', 'json', 'yaml'], LIST_USAGE);
    await withCluster(deps.connectCluster(clusterFlags(values, LIST_USAGE)), async (kube) => {
      let items: KubeObject[];
      try {
        items = (await kube.client.listAll(CLUSTER_CATALOG)).items;
      } catch (e) {
        throw new CommandError(`error listing ClusterCatalogs: ${errorMessage(e)}`, EXIT.failed);
      }
      const rows = items.map(catalogRow).sort((x, y) => (x.name < y.name ? -1 : 1));
      if (output === 'json') io.stdout.write(`${JSON.stringify({ catalogs: rows }, null, 2)}\n`);
      else if (output === 'yaml') io.stdout.write(toYaml({ catalogs: rows }, { sortKeys: false }));
      else io.stdout.write(catalogTable(rows));
      if (rows.length === 0) io.stderr.write('no ClusterCatalogs\n');
    });
  });
}

/** The table of `olmv1 catalogs`; empty when there are no rows. */
export function catalogTable(rows: readonly ReturnType<typeof catalogRow>[]): string {
  if (rows.length === 0) return '';
  const header = ['NAME', 'AVAILABILITY', 'PRIORITY', 'SERVING', 'LAST UNPACKED', 'IMAGE'];
  return table([header, ...rows.map((r) => [r.name, r.availability, r.priority, r.serving, r.lastUnpacked, r.image])]);
}
