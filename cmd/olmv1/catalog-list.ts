/**
 * `olmv1 catalog list` and `catalog search TEXT`: the packages of catalogs (catalog-describe.ts,
 * catalog-installability.ts). A catalog that cannot be read is reported; the others are listed.
 */
import { basename } from 'node:path';
import { toYaml } from '../../pkg/operator-controller/render/index.ts';
import { CLUSTER_FLAGS, CLUSTER_FLAGS_HELP, clusterFlags, withCluster } from './cluster-access.ts';
import { describePackage, matchesSearch, packageVersions, type PackageRow, type VersionRow } from './catalog-describe.ts';
import { verdictText } from './catalog-installability.ts';
import {
  classifyCatalogArg,
  dirCatalog,
  elapsed,
  errorMessage,
  listClusterCatalogs,
  urlCatalog,
  type CatalogPackages,
  type CatalogSourceDeps,
} from './catalog-sources.ts';
import { type CommandIO, table } from './io.ts';
import { CommandError, parseCommandLine, runCommand } from './render.ts';

/** What `olmv1 catalog list|search` needs from outside (composed in commands.ts). */
export interface CatalogListDeps extends CatalogSourceDeps {
  /** Milliseconds clock for progress lines. */
  now(): number;
}

const SOURCES_HELP = `  --catalog NAME|URL|DIR      a ClusterCatalog, a catalogd content URL (the catalog's
                              status.urls.base, e.g. http://127.0.0.1:8080/catalogs/NAME) or a
                              file-based catalog directory; repeatable (default: every
                              ClusterCatalog of the cluster)
  --catalogd-url URL          reach catalogd at this origin instead of the host in the
                              ClusterCatalogs' status.urls.base (e.g. a port-forward)
  -o, --output FORMAT         table (default), json or yaml
  --list-versions             one row per version of each package instead: its bundle and
                              channels, highest first ("versions" in json and yaml)
${CLUSTER_FLAGS_HELP}
  -h, --help                  show this help`;

const TAIL_HELP = `
Output:
  stdout: a table, one row per package: catalog, package, default channel, channels with
  their highest version, deprecated objects, and INSTALLABLE for the bundle a
  ClusterExtension naming only the package would get: "yes", "yes, with <what it needs>"
  (spec.config.inline.watchNamespace, a certificate provider) or "no: <reason>". What the
  catalog data cannot show (webhooks and manifest kinds when the catalog holds
  olm.csv.metadata rather than olm.bundle.object) is said under the table, and in
  "unjudged" with -o json|yaml.
  stderr: progress, and catalogs that could not be read.

Exit codes:
  0  listed (also when nothing matches)
  1  a catalog could not be read (the others are listed), or no kubeconfig was found
  2  usage error`;

const LIST_USAGE = `Usage: olmv1 catalog list [--catalog NAME|URL|DIR]... [-o table|json|yaml] [flags]

Lists the packages of catalogs.

Flags:
${SOURCES_HELP}
${TAIL_HELP}`;

const SEARCH_USAGE = `Usage: olmv1 catalog search TEXT [--catalog NAME|URL|DIR]... [-o table|json|yaml] [flags]

Lists the packages whose name or description, or whose bundles' display name, keywords or
description (olm.csv.metadata) contain TEXT, case-insensitively.

Flags:
${SOURCES_HELP}
${TAIL_HELP}`;

/** Runs `olmv1 catalog list` (`search` false) or `olmv1 catalog search`. */
export async function runCatalogList(args: readonly string[], io: CommandIO, deps: CatalogListDeps, search: boolean): Promise<number> {
  const usage = search ? SEARCH_USAGE : LIST_USAGE;
  return runCommand(io, async () => {
    const parsed = parseCommandLine(args, usage, {
      ...CLUSTER_FLAGS,
      catalog: { type: 'string', multiple: true },
      'catalogd-url': { type: 'string' },
      output: { type: 'string', short: 'o' },
      'list-versions': { type: 'boolean' },
    });
    const listVersions = parsed.values['list-versions'] === true;
    const output = parsed.values.output ?? 'table';
    if (output !== 'table' && output !== 'json' && output !== 'yaml') {
      throw new CommandError(`invalid --output ${JSON.stringify(output)}: want table, json or yaml\n${usage}`, 2);
    }
    const words = parsed.positionals;
    if (search ? words.length !== 1 || words[0] === '' : words.length !== 0) {
      throw new CommandError(`${search ? 'want exactly one TEXT' : `unexpected argument ${JSON.stringify(words[0])}`}\n${usage}`, 2);
    }
    let catalogdUrl: URL | undefined;
    const rawUrl = parsed.values['catalogd-url'];
    if (rawUrl !== undefined) {
      catalogdUrl = URL.canParse(rawUrl) ? new URL(rawUrl) : undefined;
      if (catalogdUrl === undefined || !/^https?:$/.test(catalogdUrl.protocol))
        throw new CommandError(`invalid --catalogd-url ${JSON.stringify(rawUrl)} (want http(s)://HOST[:PORT])\n${usage}`, 2);
    }
    const cluster = clusterFlags(parsed.values, usage);
    const args2 = (parsed.values.catalog ?? []).map((v) => classifyCatalogArg(v, deps.isDirectory));

    const problems: string[] = [];
    const catalogs: CatalogPackages[] = [];
    const read = async (label: string, from: string, load: () => Promise<CatalogPackages>): Promise<void> => {
      const start = deps.now();
      io.stderr.write(`reading catalog ${label} from ${from}\n`);
      try {
        const c = await load();
        io.stderr.write(`read catalog ${label}: ${c.packageNames.length} packages in ${elapsed(start, deps.now())}\n`);
        catalogs.push(c);
      } catch (e) {
        problems.push(`catalog ${label}: ${errorMessage(e)}`);
      }
    };
    const clusterNames = args2.flatMap((a) => (a.kind === 'cluster' ? [a.name] : []));
    if (args2.length === 0 || clusterNames.length > 0) {
      await withCluster(deps.connectCluster(cluster), async (kube) => {
        const refs = await listClusterCatalogs(kube, catalogdUrl);
        for (const missing of clusterNames.filter((n) => !refs.some((r) => r.name === n)))
          problems.push(`catalog ${missing}: ClusterCatalog not found`);
        for (const ref of refs) {
          if (clusterNames.length > 0 && !clusterNames.includes(ref.name)) continue;
          const base = ref.baseURL;
          if (typeof base !== 'string') problems.push(`catalog ${ref.name}: ${base.error}`);
          else await read(ref.name, base, () => urlCatalog(ref.name, base, deps.catalogClient));
        }
      });
    }
    for (const a of args2) {
      if (a.kind === 'dir') await read(dirName(a.path), a.path, () => dirCatalog(dirName(a.path), a.path, deps));
      if (a.kind === 'url') await read(a.url, a.url, () => urlCatalog(a.url, a.url, deps.catalogClient));
    }

    const rows: (PackageRow & { versions?: VersionRow[] })[] = [];
    let lastProgress = deps.now();
    for (const c of catalogs) {
      for (const [i, name] of c.packageNames.entries()) {
        try {
          const partition = c.load(name);
          if (!search || matchesSearch(name, partition, words[0] ?? ''))
            rows.push({ ...describePackage(c.name, name, partition), ...(listVersions ? { versions: packageVersions(partition) } : {}) });
        } catch (e) {
          problems.push(`catalog ${c.name}: ${errorMessage(e)}`);
        }
        if (deps.now() - lastProgress >= 2000) {
          lastProgress = deps.now();
          io.stderr.write(`catalog ${c.name}: ${i + 1}/${c.packageNames.length} packages described\n`);
        }
      }
    }
    if (rows.length === 0 && problems.length === 0) io.stderr.write(search ? `no package matches ${JSON.stringify(words[0])}\n` : 'no packages\n');
    io.stdout.write(listVersions && output === 'table' ? versionsTable(rows) : format(rows, output));
    for (const p of problems) io.stderr.write(`${p}\n`);
    if (problems.length > 0) throw new CommandError(`${problems.length} catalog(s) could not be read`, 1);
  });
}

/** The `--list-versions` table: one row per version of each package, highest first. */
function versionsTable(rows: readonly { catalog: string; package: string; versions?: VersionRow[] }[]): string {
  const header = ['CATALOG', 'PACKAGE', 'VERSION', 'BUNDLE', 'CHANNELS'];
  const body = rows.flatMap((r) => (r.versions ?? []).map((v) => [r.catalog, r.package, v.version, v.bundle, v.channels.join(', ') || '-']));
  return body.length === 0 ? '' : table([header, ...body]);
}

/** A directory catalog's name: its base name, as `olmv1 resolve` names it. */
function dirName(path: string): string {
  return basename(path.replace(/[/\\]+$/, '')) || path;
}

/** The JSON/YAML form of a row: the verdict with its text. */
function rowObject(r: PackageRow): object {
  const v = r.installable.verdict;
  return {
    ...r,
    installable: {
      ...r.installable,
      verdict: v.kind,
      text: verdictText(v),
      ...(v.kind === 'conditional' ? { needs: v.needs } : {}),
      ...(v.kind === 'no' ? { reason: v.reason } : {}),
      evidence: v.evidence,
      unjudged: v.unjudged,
    },
  };
}

function format(rows: PackageRow[], output: 'table' | 'json' | 'yaml'): string {
  if (output === 'json') return `${JSON.stringify({ packages: rows.map(rowObject) }, null, 2)}\n`;
  if (output === 'yaml') return toYaml({ packages: rows.map(rowObject) }, { sortKeys: false });
  if (rows.length === 0) return '';
  const header = ['CATALOG', 'PACKAGE', 'DEFAULT CHANNEL', 'CHANNELS (HIGHEST VERSION)', 'DEPRECATED', 'INSTALLABLE'];
  const body = rows.map((r) => [
    r.catalog,
    r.package,
    r.defaultChannel,
    r.channels.map((c) => `${c.name} (${c.head?.version ?? '-'})`).join(', '),
    r.deprecations.length === 0 ? '-' : r.deprecations.map((d) => d.slice(0, d.indexOf(':'))).join(', '),
    `${r.installable.bundle === undefined ? '' : `${r.installable.bundle}: `}${verdictText(r.installable.verdict)}`,
  ]);
  let out = table([header, ...body]);
  const unjudged = [...new Set(rows.flatMap((r) => r.installable.verdict.unjudged))];
  if (unjudged.length > 0) {
    out += `\nNot judged from catalog data: ${unjudged.join('; ')}.\nRender a bundle image to check them: olmv1 render bundle IMAGE --install-namespace NS\n`;
  }
  return out;
}
