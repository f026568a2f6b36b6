/**
 * `olmv1 available -n NAMESPACE` and `olmv1 extensions -n NAMESPACE` (issue 73, decision 0138):
 * as a tenant, what the ExtensionPolicies let the namespace install from what the catalogs
 * serve, and the namespace's Extensions with their state. The services are pkg/olmv1/tenant's;
 * this parses flags and prints.
 */
import type { CatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { readAvailable, readRequests, type AvailablePackage, type RequestSummary } from '../../pkg/olmv1/tenant/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { CLUSTER_FLAGS, CLUSTER_FLAGS_HELP, clusterFlags, withCluster } from './cluster-access.ts';
import { type CommandIO, EXIT, table } from './io.ts';
import type { InstallDeps } from './install.ts';
import { CommandError, flagChoice, parseCommandLine, runCommand } from './render.ts';

const AVAILABLE_USAGE = `Usage: olmv1 available -n NAMESPACE [--catalogd-url URL] [-o table|json] [--kubeconfig FILE] [--context NAME]

Lists what NAMESPACE may install by an Extension (TenantExtensions, docs/tenants.md): each
package an ExtensionPolicy selecting the namespace allows, with the versions the allowed
catalogs serve within its range and channels, newest first. Read as you: a namespace's admin
may (config/tenant-extensions lets every user read policies and ClusterCatalogs).

Flags:
  -n, --namespace NAMESPACE  the namespace (required)
  --catalogd-url URL         reach catalogd at this origin instead of the catalogs' in-cluster URLs
  -o, --output FORMAT        table (default) or json
${CLUSTER_FLAGS_HELP}
  -h, --help                 show this help

Output:
  stdout: PACKAGE, VERSIONS, RANGE, CHANNELS, MODES, UPGRADES, POLICY. stderr: catalogs that
  could not be read, errors.

Exit codes:
  0  listed (also when nothing is available)
  1  the namespace, the policies or the catalogs could not be read
  2  usage error`;

const EXTENSIONS_USAGE = `Usage: olmv1 extensions -n NAMESPACE [-o table|json] [--kubeconfig FILE] [--context NAME]

Lists the Extensions of NAMESPACE (TenantExtensions, docs/tenants.md): the package and version
each asks for, whether a policy allows it (or the rule it breaks), the installed bundle and the
install's state as operator-controller reports it on the request.

Flags:
  -n, --namespace NAMESPACE  the namespace (required)
  -o, --output FORMAT        table (default) or json
${CLUSTER_FLAGS_HELP}
  -h, --help                 show this help

Output:
  stdout: NAME, PACKAGE, REQUESTED, INSTALLED, ALLOWED, INSTALLED?, PROGRESSING, MESSAGE.
  stderr: errors.

Exit codes:
  0  listed (also when there are none)
  1  the Extensions could not be read
  2  usage error`;

/** What the two commands need. */
interface TenantViewDeps {
  connectCluster: InstallDeps['connectCluster'];
  catalogContent: CatalogContentCache;
}

const FLAGS = { ...CLUSTER_FLAGS, namespace: { type: 'string', short: 'n' }, output: { type: 'string', short: 'o' } } as const;

function namespaceOf(ns: string | undefined, usage: string): string {
  if (ns === undefined || ns === '') throw new CommandError(`-n NAMESPACE is required\n${usage}`, EXIT.usage);
  return ns;
}

/** Runs `olmv1 available`. */
export async function runAvailable(args: readonly string[], io: CommandIO, deps: TenantViewDeps): Promise<number> {
  return runCommand(io, async () => {
    const { values, positionals } = parseCommandLine(args, AVAILABLE_USAGE, { ...FLAGS, 'catalogd-url': { type: 'string' } });
    if (positionals.length > 0) throw new CommandError(`no arguments expected\n${AVAILABLE_USAGE}`, EXIT.usage);
    const namespace = namespaceOf(values.namespace, AVAILABLE_USAGE);
    const output = flagChoice('-o', values.output, ['table', 'json'], AVAILABLE_USAGE) ?? 'table';
    const url = values['catalogd-url'];
    if (url !== undefined && !(URL.canParse(url) && /^https?:$/.test(new URL(url).protocol))) {
      throw new CommandError(`invalid --catalogd-url ${JSON.stringify(url)} (want http(s)://HOST[:PORT])\n${AVAILABLE_USAGE}`, EXIT.usage);
    }
    const origin = url === undefined ? undefined : new URL(url).origin;
    await withCluster(deps.connectCluster(clusterFlags(values, AVAILABLE_USAGE)), async (kube) => {
      const read = await readAvailable(
        kube,
        {
          content: deps.catalogContent,
          ...(origin === undefined ? {} : { baseURL: (_n: string, base: string) => `${origin}${new URL(base).pathname}`.replace(/\/+$/, '') }),
        },
        namespace,
      );
      if (!read.ok) throw new CommandError(`error reading ${read.error.what}: ${read.error.message}`, EXIT.failed);
      for (const p of read.value) for (const u of p.unread) io.stderr.write(`warning: package ${p.packageName}: catalog ${u}\n`);
      if (output === 'json') {
        io.stdout.write(`${JSON.stringify(read.value, null, 2)}\n`);
        return;
      }
      if (read.value.length === 0) {
        io.stdout.write(`no ExtensionPolicy allows installing into namespace ${JSON.stringify(namespace)}\n`);
        return;
      }
      io.stdout.write(table([['PACKAGE', 'VERSIONS', 'RANGE', 'CHANNELS', 'MODES', 'UPGRADES', 'POLICY'], ...read.value.map(availableRow)]));
    });
  });
}

/** One row of `olmv1 available`. */
function availableRow(p: AvailablePackage): string[] {
  return [
    p.packageName,
    p.versions.length === 0 ? '(none served)' : p.versions.map((v) => v.version).join(','),
    p.versionRange ?? '(any)',
    p.channels.length === 0 ? '(any)' : p.channels.join(','),
    p.installModes.join(','),
    p.upgrades,
    p.policy,
  ];
}

/** Runs `olmv1 extensions`. */
export async function runExtensions(args: readonly string[], io: CommandIO, deps: Pick<TenantViewDeps, 'connectCluster'>): Promise<number> {
  return runCommand(io, async () => {
    const { values, positionals } = parseCommandLine(args, EXTENSIONS_USAGE, FLAGS);
    if (positionals.length > 0) throw new CommandError(`no arguments expected\n${EXTENSIONS_USAGE}`, EXIT.usage);
    const namespace = namespaceOf(values.namespace, EXTENSIONS_USAGE);
    const output = flagChoice('-o', values.output, ['table', 'json'], EXTENSIONS_USAGE) ?? 'table';
    await withCluster(deps.connectCluster(clusterFlags(values, EXTENSIONS_USAGE)), async (kube) => {
      let rows: RequestSummary[];
      try {
        rows = await readRequests(kube, namespace);
      } catch (e) {
        throw new CommandError(`error listing Extensions in namespace ${JSON.stringify(namespace)}: ${errorMessage(e)}`, EXIT.failed);
      }
      if (output === 'json') {
        io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      if (rows.length === 0) {
        io.stdout.write(`no Extensions in namespace ${JSON.stringify(namespace)}\n`);
        return;
      }
      io.stdout.write(
        table([['NAME', 'PACKAGE', 'REQUESTED', 'INSTALLED', 'ALLOWED', 'INSTALLED?', 'PROGRESSING', 'MESSAGE'], ...rows.map(extensionRow)]),
      );
    });
  });
}

/** One row of `olmv1 extensions`. */
function extensionRow(r: RequestSummary): string[] {
  return [
    r.deleting ? `${r.name} (deleting)` : r.name,
    r.packageName,
    r.version === '' ? '(any)' : r.version,
    r.installed === undefined ? '-' : `${r.installed.bundle} (${r.installed.version})`,
    r.allowed === 'False' ? `False (${r.allowedReason})` : r.allowed,
    r.installedStatus,
    r.progressing,
    r.message,
  ];
}
