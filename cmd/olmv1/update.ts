/**
 * `olmv1 update NAME`: one JSON patch of the fields given, tested against the resourceVersion
 * read. Not a merge patch: that would merge a new selector's matchLabels into the old ones.
 */
import { CLUSTER_EXTENSION, UpgradeConstraintPolicy } from '../../pkg/shared/api/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { isConflict } from '../../pkg/shared/kube/index.ts';
import { CLUSTER_FLAGS, CLUSTER_FLAGS_HELP, clusterFlags, withCluster } from './cluster-access.ts';
import { type CommandIO, EXIT } from './io.ts';
import { catalogSelector, channelList, oneOf } from './install-args.ts';
import type { InstallDeps } from './install.ts';
import { CommandError, parseCommandLine, runCommand } from './render.ts';
import { readClusterExtension } from './resolve-cluster.ts';

const USAGE = `Usage: olmv1 update NAME [--version RANGE] [-c CHANNEL,...] [--catalog NAME | -l SELECTOR]
         [--upgrade-constraint-policy CatalogProvided|SelfCertified] [--dry-run]
         [--kubeconfig FILE] [--context NAME]

Changes what the ClusterExtension NAME asks its catalogs for: only the fields whose flags are
given are written (one patch of spec.source.catalog, refused if the extension changed
since it was read); the others stay as they are. An empty value removes the field
(--version "" allows every version, --channels "" every channel, --selector "" every catalog).
Prints each changed field with its old and new value; operator-controller then resolves and
upgrades (or downgrades, with SelfCertified) as for any spec change: "olmv1 upgrade plan NAME"
shows what it will do.

Flags:
  -v, --version RANGE        version or range of versions allowed
  -c, --channels C[,C...]    channels to take versions from
  --catalog NAME             only the ClusterCatalog NAME
  -l, --selector SELECTOR    only the ClusterCatalogs whose labels match (kubectl's syntax)
  --upgrade-constraint-policy P
                             CatalogProvided or SelfCertified
  --dry-run                  print the changes; write nothing
${CLUSTER_FLAGS_HELP}
  -h, --help                 show this help

Output:
  stdout: one line per changed field (field: old -> new), or that nothing changes. stderr: errors.

Exit codes:
  0  updated (or nothing to change, or --dry-run)
  1  no such ClusterExtension, or it could not be changed (e.g. it changed meanwhile: run again)
  2  usage error (also no field flag given)`;

/** The fields of spec.source.catalog `update` sets; null removes one. */
type CatalogFields = Partial<Record<'version' | 'channels' | 'selector' | 'upgradeConstraintPolicy', unknown>>;

/** Parses the arguments of `update`; usage problems throw a CommandError with exit code 2. */
export function parseUpdateArgs(args: readonly string[]): {
  name: string;
  fields: CatalogFields;
  dryRun: boolean;
  cluster: ReturnType<typeof clusterFlags>;
} {
  const { values, positionals } = parseCommandLine(args, USAGE, {
    ...CLUSTER_FLAGS,
    version: { type: 'string', short: 'v' },
    channels: { type: 'string', short: 'c', multiple: true },
    catalog: { type: 'string' },
    selector: { type: 'string', short: 'l' },
    'upgrade-constraint-policy': { type: 'string' },
    'dry-run': { type: 'boolean' },
  });
  const name = positionals[0];
  if (positionals.length !== 1 || name === undefined || name === '')
    throw new CommandError(`expected exactly one ClusterExtension NAME\n${USAGE}`, EXIT.usage);
  const fields: CatalogFields = {};
  if (values.version !== undefined) fields.version = values.version === '' ? null : values.version;
  if (values.channels !== undefined) {
    const channels = channelList(values.channels);
    fields.channels = channels.length === 0 ? null : channels;
  }
  if (values.selector === '') fields.selector = null;
  else if (values.catalog !== undefined || values.selector !== undefined) fields.selector = catalogSelector(values.catalog, values.selector, USAGE);
  const policy = oneOf('--upgrade-constraint-policy', values['upgrade-constraint-policy'], UpgradeConstraintPolicy, USAGE);
  if (policy !== undefined) fields.upgradeConstraintPolicy = policy;
  if (Object.keys(fields).length === 0) {
    throw new CommandError(
      `nothing to update: give --version, --channels, --catalog, --selector or --upgrade-constraint-policy\n${USAGE}`,
      EXIT.usage,
    );
  }
  return { name, fields, dryRun: values['dry-run'] === true, cluster: clusterFlags(values, USAGE) };
}

/**
 * The lines `update` prints for setting `fields` on `current` (spec.source.catalog as read):
 * `spec.source.catalog.<field>: <old> -> <new>` for each field whose value changes ("unset"
 * for an absent one), and the patch holding only those fields.
 */
export function catalogChanges(current: Record<string, unknown>, fields: CatalogFields): { lines: string[]; patch: CatalogFields } {
  const show = (v: unknown) => (v === undefined || v === null ? 'unset' : JSON.stringify(v));
  const lines: string[] = [];
  const patch: CatalogFields = {};
  for (const [key, value] of Object.entries(fields) as [keyof CatalogFields, unknown][]) {
    const before = current[key];
    const same = JSON.stringify(before ?? null) === JSON.stringify(value ?? null);
    if (same) continue;
    lines.push(`spec.source.catalog.${key}: ${show(before)} -> ${show(value)}`);
    patch[key] = value;
  }
  return { lines, patch };
}

/**
 * The JSON patch setting `fields` (null removes one) under spec.source.catalog, applied only
 * if the object still has `resourceVersion`.
 */
export function jsonPatch(resourceVersion: string, fields: CatalogFields): object[] {
  const ops: object[] = [{ op: 'test', path: '/metadata/resourceVersion', value: resourceVersion }];
  for (const [key, value] of Object.entries(fields)) {
    const path = `/spec/source/catalog/${key}`;
    ops.push(value === null ? { op: 'remove', path } : { op: 'add', path, value });
  }
  return ops;
}

/** Runs `olmv1 update`; `args` are the arguments after `update`. */
export async function runUpdate(args: readonly string[], io: CommandIO, deps: Pick<InstallDeps, 'connectCluster'>): Promise<number> {
  return runCommand(io, async () => {
    const a = parseUpdateArgs(args);
    await withCluster(deps.connectCluster(a.cluster), async (kube) => {
      const { object } = await readClusterExtension(kube, a.name);
      const spec = object.spec as { source?: { catalog?: Record<string, unknown> } } | undefined;
      const { lines, patch } = catalogChanges(spec?.source?.catalog ?? {}, a.fields);
      if (lines.length === 0) {
        io.stdout.write(`ClusterExtension ${a.name}: nothing changes\n`);
        return;
      }
      for (const line of lines) io.stdout.write(`${line}\n`);
      if (a.dryRun) {
        io.stdout.write(`dry run: ClusterExtension ${a.name} not changed\n`);
        return;
      }
      try {
        await kube.client.patch({ ...CLUSTER_EXTENSION, name: a.name }, jsonPatch(object.metadata.resourceVersion ?? '', patch), 'json');
      } catch (e) {
        if (isConflict(e))
          throw new CommandError(`ClusterExtension ${JSON.stringify(a.name)} changed while it was being updated: run the command again`, EXIT.failed);
        throw new CommandError(`error updating ClusterExtension ${JSON.stringify(a.name)}: ${errorMessage(e)}`, EXIT.failed);
      }
      io.stdout.write(`updated ClusterExtension ${a.name}\n`);
    });
  });
}
