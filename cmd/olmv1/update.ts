/**
 * `olmv1 update NAME`: parses the flags and prints what pkg/olmv1/update's service changed (one
 * JSON patch of the fields given, tested against the resourceVersion read).
 */
import { UpgradeConstraintPolicy } from '../../pkg/shared/api/index.ts';
import { updateExtension, type CatalogFields } from '../../pkg/olmv1/update/index.ts';
import { CLUSTER_FLAGS, CLUSTER_FLAGS_HELP, clusterFlags, withCluster } from './cluster-access.ts';
import { type CommandIO, EXIT } from './io.ts';
import { catalogSelector, channelList, oneOf } from './install-args.ts';
import type { InstallDeps } from './install.ts';
import { CommandError, parseCommandLine, runCommand } from './render.ts';

// The service's pure parts, where the command's tests have always found them.
export { catalogChanges, jsonPatch } from '../../pkg/olmv1/update/index.ts';

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

/** Runs `olmv1 update`; `args` are the arguments after `update`. */
export async function runUpdate(args: readonly string[], io: CommandIO, deps: Pick<InstallDeps, 'connectCluster'>): Promise<number> {
  return runCommand(io, async () => {
    const a = parseUpdateArgs(args);
    await withCluster(deps.connectCluster(a.cluster), async (kube) => {
      const result = await updateExtension(kube.client, { name: a.name, fields: a.fields, dryRun: a.dryRun });
      for (const line of result.lines ?? []) io.stdout.write(`${line}\n`);
      if (!result.ok) throw new CommandError(result.error, EXIT.failed);
      if (result.lines.length === 0) io.stdout.write(`ClusterExtension ${a.name}: nothing changes\n`);
      else if (!result.updated) io.stdout.write(`dry run: ClusterExtension ${a.name} not changed\n`);
      else io.stdout.write(`updated ClusterExtension ${a.name}\n`);
    });
  });
}
