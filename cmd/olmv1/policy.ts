/**
 * `olmv1 policy allow`, `policy remove` and `policies` (decision 0138): the administrator's
 * ExtensionPolicies, written with server-side apply (a re-run updates the policy to the flags
 * given) and listed as a table.
 */
import { EXTENSION_POLICY, TenantInstallMode, TenantUpgrades } from '../../pkg/shared/api/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { isNotFound, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { CLUSTER_FLAGS, CLUSTER_FLAGS_HELP, clusterFlags, withCluster } from './cluster-access.ts';
import { type CommandIO, EXIT, table } from './io.ts';
import type { InstallDeps } from './install.ts';
import { parseSelectorText } from './install-objects.ts';
import { CommandError, flagChoice, formatObjects, parseCommandLine, runCommand } from './render.ts';

const ALLOW_USAGE = `Usage: olmv1 policy allow NAME --namespaces SELECTOR --package PKG[=RANGE] [--package ...]
         [--catalog NAME ...] [--install-mode OwnNamespace|SingleNamespace|AllNamespaces ...]
         [--upgrades Automatic|Manual] [--dry-run] [-o yaml|json] [--kubeconfig FILE] [--context NAME]

Writes the ExtensionPolicy NAME (TenantExtensions, docs/tenants.md): the namespaces SELECTOR
picks may install each PKG (within RANGE, a Masterminds version range, when given) by an
Extension in their namespace. A policy of that name is replaced by what the flags say. By
writing it you consent to what those packages install cluster-wide, and hand their
installers' and operators' permissions to those namespaces' admins.

Flags:
  --namespaces SELECTOR      the namespaces, in kubectl's label selector syntax (e.g. tier=tenants,
                             or kubernetes.io/metadata.name in (team-a,team-b)); "" for all
  --package PKG[=RANGE]      a package allowed, with its version range (repeat for more)
  --catalog NAME             a ClusterCatalog requests may install from (repeat; default: all)
  --install-mode MODE        OwnNamespace (default), SingleNamespace, AllNamespaces (repeat)
  --upgrades U               Automatic (default) or Manual: upgrades wait for the annotation
                             olm.operatorframework.io/approved-bundle on the ClusterExtension
  --dry-run                  print the ExtensionPolicy; write nothing
  -o, --output FORMAT        yaml or json: print it (default with --dry-run: yaml)
${CLUSTER_FLAGS_HELP}
  -h, --help                 show this help

Output:
  stdout: that it is written (or the object with -o / --dry-run). stderr: errors.

Exit codes:
  0  written (or printed)
  1  not written (a permission is missing, the API server refused it)
  2  usage error`;

const REMOVE_USAGE = `Usage: olmv1 policy remove NAME [--kubeconfig FILE] [--context NAME]

Deletes the ExtensionPolicy NAME. What its requests installed stays installed; requests it
allowed are refused from then on (and not upgraded) unless another policy allows them.

Flags:
${CLUSTER_FLAGS_HELP}
  -h, --help                 show this help

Output:
  stdout: that it is deleted. stderr: errors.

Exit codes:
  0  deleted
  1  no such ExtensionPolicy, or it could not be deleted
  2  usage error`;

const LIST_USAGE = `Usage: olmv1 policies [-o table|json|yaml] [--kubeconfig FILE] [--context NAME]

Lists the ExtensionPolicies: the namespaces each selects, the packages (with their version
ranges) they may install, from which catalogs, in which install modes, and how upgrades go.

Flags:
  -o, --output FORMAT        table (default), json or yaml
${CLUSTER_FLAGS_HELP}
  -h, --help                 show this help

Output:
  stdout: one row per ExtensionPolicy, in name order. stderr: errors.

Exit codes:
  0  listed (also when there are none)
  1  the ExtensionPolicies could not be read (e.g. TenantExtensions is not installed)
  2  usage error`;

type PolicyDeps = Pick<InstallDeps, 'connectCluster'>;

function usageError(message: string, usage: string): CommandError {
  return new CommandError(`${message}\n${usage}`, EXIT.usage);
}

/** The ExtensionPolicy `policy allow ARGS` writes, with the output and cluster flags. */
export function parsePolicyAllowArgs(args: readonly string[]) {
  const { values, positionals } = parseCommandLine(args, ALLOW_USAGE, {
    ...CLUSTER_FLAGS,
    namespaces: { type: 'string' },
    package: { type: 'string', multiple: true },
    catalog: { type: 'string', multiple: true },
    'install-mode': { type: 'string', multiple: true },
    upgrades: { type: 'string' },
    'dry-run': { type: 'boolean' },
    output: { type: 'string', short: 'o' },
  });
  const [name] = positionals;
  if (positionals.length !== 1 || name === undefined || name === '') throw usageError('expected NAME', ALLOW_USAGE);
  if (values.namespaces === undefined) throw usageError('--namespaces is required ("" selects every namespace)', ALLOW_USAGE);
  if (values.package === undefined || values.package.length === 0) throw usageError('at least one --package is required', ALLOW_USAGE);
  let namespaceSelector;
  try {
    namespaceSelector = values.namespaces.trim() === '' ? {} : parseSelectorText(values.namespaces);
  } catch (e) {
    throw usageError(`--namespaces: ${errorMessage(e)}`, ALLOW_USAGE);
  }
  const packages = values.package.map((p) => {
    const at = p.indexOf('=');
    const pkg = at < 0 ? p : p.slice(0, at);
    const range = at < 0 ? undefined : p.slice(at + 1).trim();
    if (pkg === '') throw usageError(`--package ${JSON.stringify(p)}: no package name`, ALLOW_USAGE);
    return { name: pkg, ...(range === undefined || range === '' ? {} : { versionRange: range }) };
  });
  const modes = (values['install-mode'] ?? []).map((m) => flagChoice('--install-mode', m, Object.values(TenantInstallMode), ALLOW_USAGE) as string);
  const upgrades = flagChoice('--upgrades', values.upgrades, Object.values(TenantUpgrades), ALLOW_USAGE);
  const policy: KubeObject = {
    apiVersion: EXTENSION_POLICY.apiVersion,
    kind: EXTENSION_POLICY.kind,
    metadata: { name },
    spec: {
      namespaceSelector,
      packages,
      ...(values.catalog === undefined ? {} : { catalogs: values.catalog }),
      ...(modes.length === 0 ? {} : { installModes: modes }),
      ...(upgrades === undefined ? {} : { upgrades }),
    },
  };
  return {
    policy,
    dryRun: values['dry-run'] === true,
    output: flagChoice('-o', values.output, ['yaml', 'json'], ALLOW_USAGE),
    cluster: clusterFlags(values, ALLOW_USAGE),
  };
}

/** Runs `olmv1 policy allow`. */
export async function runPolicyAllow(args: readonly string[], io: CommandIO, deps: PolicyDeps): Promise<number> {
  return runCommand(io, async () => {
    const a = parsePolicyAllowArgs(args);
    const name = a.policy.metadata.name ?? '';
    if (a.dryRun) {
      io.stdout.write(formatObjects([a.policy], a.output ?? 'yaml'));
      return;
    }
    await withCluster(deps.connectCluster(a.cluster), async (kube) => {
      try {
        await kube.client.apply(a.policy, { fieldManager: 'olmv1', force: true });
      } catch (e) {
        throw new CommandError(`error writing ExtensionPolicy ${JSON.stringify(name)}: ${errorMessage(e)}`, EXIT.failed);
      }
      io.stdout.write(a.output === undefined ? `ExtensionPolicy ${name} written\n` : formatObjects([a.policy], a.output));
    });
  });
}

/** Runs `olmv1 policy remove`. */
export async function runPolicyRemove(args: readonly string[], io: CommandIO, deps: PolicyDeps): Promise<number> {
  return runCommand(io, async () => {
    const { values, positionals } = parseCommandLine(args, REMOVE_USAGE, { ...CLUSTER_FLAGS });
    const [name] = positionals;
    if (positionals.length !== 1 || name === undefined || name === '') throw usageError('expected NAME', REMOVE_USAGE);
    await withCluster(deps.connectCluster(clusterFlags(values, REMOVE_USAGE)), async (kube) => {
      try {
        await kube.client.delete({ apiVersion: EXTENSION_POLICY.apiVersion, kind: EXTENSION_POLICY.kind, name });
      } catch (e) {
        if (isNotFound(e)) throw new CommandError(`ExtensionPolicy ${JSON.stringify(name)} not found`, EXIT.failed);
        throw new CommandError(`error deleting ExtensionPolicy ${JSON.stringify(name)}: ${errorMessage(e)}`, EXIT.failed);
      }
      io.stdout.write(`ExtensionPolicy ${name} deleted\n`);
    });
  });
}

/** Runs `olmv1 policies`. */
export async function runPolicies(args: readonly string[], io: CommandIO, deps: PolicyDeps): Promise<number> {
  return runCommand(io, async () => {
    const { values, positionals } = parseCommandLine(args, LIST_USAGE, { ...CLUSTER_FLAGS, output: { type: 'string', short: 'o' } });
    if (positionals.length > 0) throw usageError('no arguments expected', LIST_USAGE);
    const output = flagChoice('-o', values.output, ['table', 'json', 'yaml'], LIST_USAGE) ?? 'table';
    await withCluster(deps.connectCluster(clusterFlags(values, LIST_USAGE)), async (kube) => {
      let items: KubeObject[];
      try {
        items = (await kube.client.listAll({ apiVersion: EXTENSION_POLICY.apiVersion, kind: EXTENSION_POLICY.kind })).items;
      } catch (e) {
        throw new CommandError(`error listing ExtensionPolicies: ${errorMessage(e)}`, EXIT.failed);
      }
      items.sort((x, y) => ((x.metadata.name ?? '') < (y.metadata.name ?? '') ? -1 : 1));
      if (output !== 'table') {
        io.stdout.write(formatObjects(items, output));
        return;
      }
      io.stdout.write(table([['NAME', 'NAMESPACES', 'PACKAGES', 'CATALOGS', 'MODES', 'UPGRADES'], ...items.map(policyRow)]));
    });
  });
}

/** One row of `olmv1 policies`. */
export function policyRow(obj: KubeObject): string[] {
  const spec = (obj['spec'] ?? {}) as {
    namespaceSelector?: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] };
    packages?: { name: string; versionRange?: string }[];
    catalogs?: string[];
    installModes?: string[];
    upgrades?: string;
  };
  const sel = spec.namespaceSelector ?? {};
  const terms = [
    ...Object.entries(sel.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`),
    ...(sel.matchExpressions ?? []).map((e) =>
      e.operator === 'Exists'
        ? e.key
        : e.operator === 'DoesNotExist'
          ? `!${e.key}`
          : `${e.key} ${e.operator === 'In' ? 'in' : 'notin'} (${(e.values ?? []).join(',')})`,
    ),
  ];
  return [
    obj.metadata.name ?? '',
    terms.length === 0 ? '(all)' : terms.join(','),
    (spec.packages ?? []).map((p) => (p.versionRange === undefined ? p.name : `${p.name} ${p.versionRange}`)).join('; '),
    spec.catalogs === undefined ? '(all)' : spec.catalogs.join(','),
    (spec.installModes ?? ['OwnNamespace']).join(','),
    spec.upgrades ?? 'Automatic',
  ];
}
