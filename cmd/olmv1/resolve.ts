/**
 * `olmv1 resolve`: the bundle a ClusterExtension spec would get, by operator-controller's
 * resolver. Scripts depend on the output: one JSON object on stdout, exit 0; 1 with `{"error":
 * ...}` (the Progressing message) when nothing resolves; 2 usage errors.
 */
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import type { DeclarativeConfig } from '../../pkg/shared/fbc/types.ts';
import { checkVersionRange, metadataFor, packagePartition, resolve, type CatalogInput } from '../../pkg/operator-controller/resolve/index.ts';
import { DEFAULT_LIMITS, dependencyClosure, type ProviderCatalog } from '../../pkg/operator-controller/dependencies/index.ts';
import { type CommandIO, EXIT } from './io.ts';
import { relevantDeprecation, runResolveCluster, type ClusterSpec, type ResolveClusterDeps } from './resolve-cluster.ts';

const HELP = `Usage: olmv1 resolve --package NAME --catalog [NAME[:PRIORITY]=]DIR|URL [--catalog ...] [options]
       olmv1 resolve --cluster EXTENSION [--catalogd-url URL] [--kubeconfig FILE] [--context NAME]
                     [--system-namespace NS]

Resolves the bundle a ClusterExtension would install or upgrade to, from file-based catalog
directories or catalogd URLs, or (--cluster) what the named ClusterExtension would get next
from the cluster's ClusterCatalogs (its selector and their priorities) given its installed
version (its release records).

Flags:
  --package NAME                   package to resolve (required)
  --channel NAME                   only bundles in this channel; repeatable
  --version RANGE                  version range, e.g. ">=1.2.0 <2.0.0" or "1.2.x"
  --installed BUNDLE@VERSION       the installed bundle; upgrades then follow catalog edges
  --upgrade-constraint-policy P    CatalogProvided (default) or SelfCertified
  --dependencies                   resolve bundles that declare dependencies as if they were
                                   met, and print the dependency closure: each requirement,
                                   what the catalogs offer for it (best first), and the
                                   requirements of the preferred provider, recursively
                                   (catalog directories are searched whole, URLs only for
                                   the package)
  --catalog [NAME[:PRIORITY]=]DIR|URL
                                   a catalog directory or catalogd content URL (a
                                   ClusterCatalog's status.urls.base); at least one;
                                   repeatable. NAME defaults to the base name, PRIORITY to 0;
                                   higher priority wins and may be negative
  --cluster EXTENSION              resolve for this ClusterExtension of the cluster instead;
                                   the flags above are then taken from it
  --catalogd-url URL               with --cluster: reach catalogd at this origin instead of
                                   the host in the ClusterCatalogs' status.urls.base
  --kubeconfig FILE, --context NAME, --system-namespace NS (default olmv1-system)
                                   with --cluster: the cluster and where release records are
  -h, --help                       show this help

Output:
  stdout, one JSON object: on success {"bundle":{"name","version","image"},"catalog":NAME,
  "deprecation":OBJECT|null} (with --cluster also "extension" and "installed", and
  "dependencyNote" when dependencies could not be checked in full as the cluster could not
  be read); the
  deprecation object holds only the entries about the package, the selected channels and the
  resolved bundle. Otherwise {"error":MESSAGE}, the message the ClusterExtension's Progressing
  condition would show (an unreadable catalog included); with --cluster also "hints", the
  lines operator-controller's ResolutionFailed Event adds after it (what the catalogs offer
  instead: versions, successors of the installed version, close package and channel names).
  With --dependencies also "dependencies": [{"bundle","property","requirement",
  "failureMessage"?,"providers":[{"catalog","packageName","bundle","version"}]}], what must
  be installed first (each with its own ClusterExtension) for the bundle to install.
  stderr: usage errors; with --cluster, a cluster that cannot be read.

Exit codes:
  0  resolved
  1  nothing resolves ({"error":...} on stdout); with --cluster also: the extension, its
     catalogs or release records could not be read (stderr)
  2  usage error
`;

/** What `runResolve` needs from outside: reading an FBC directory into its typed model. */
export interface ResolveDeps extends Partial<ResolveClusterDeps> {
  /** Loads a whole catalog directory; throws with a readable message when it cannot. */
  loadCatalogDir(dir: string): Promise<DeclarativeConfig>;
  /** One package's partition of the catalog catalogd serves at `url`; throws the client's texts. */
  loadCatalogPackage?(url: string, packageName: string): Promise<DeclarativeConfig>;
}

interface CatalogArg {
  name: string;
  priority: number;
  dir: string;
}

interface Spec {
  packageName: string;
  channels: string[];
  versionRange: string;
  installed: { name: string; version: string } | undefined;
  policy: string | undefined;
  catalogs: CatalogArg[];
  /** --dependencies: resolve as if dependencies were met, and print their closure. */
  dependencies: boolean;
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

function parseCatalogArg(arg: string): CatalogArg | string {
  const eq = arg.indexOf('=');
  const dir = eq < 0 ? arg : arg.slice(eq + 1);
  if (dir === '') return `invalid --catalog ${JSON.stringify(arg)}: DIR is empty`;
  if (eq < 0) return { name: basename(dir.replace(/[/\\]+$/, '')) || dir, priority: 0, dir };
  const left = arg.slice(0, eq);
  const colon = left.lastIndexOf(':');
  const name = colon < 0 ? left : left.slice(0, colon);
  if (name === '') return `invalid --catalog ${JSON.stringify(arg)}: NAME is empty`;
  if (colon < 0) return { name, priority: 0, dir };
  const text = left.slice(colon + 1);
  const priority = Number(text);
  if (!/^[+-]?[0-9]+$/.test(text) || priority < INT32_MIN || priority > INT32_MAX) {
    return `invalid --catalog ${JSON.stringify(arg)}: PRIORITY must be an integer between ${INT32_MIN} and ${INT32_MAX}`;
  }
  return { name, priority, dir };
}

// Turns argv into a spec, or a usage-error message.
function parseSpec(args: string[]): Spec | ClusterSpec | 'help' | string {
  let values;
  try {
    values = parseArgs({
      args,
      allowPositionals: false,
      options: {
        package: { type: 'string', multiple: true },
        channel: { type: 'string', multiple: true },
        version: { type: 'string', multiple: true },
        installed: { type: 'string', multiple: true },
        'upgrade-constraint-policy': { type: 'string', multiple: true },
        catalog: { type: 'string', multiple: true },
        cluster: { type: 'string', multiple: true },
        'catalogd-url': { type: 'string', multiple: true },
        kubeconfig: { type: 'string', multiple: true },
        context: { type: 'string', multiple: true },
        'system-namespace': { type: 'string', multiple: true },
        dependencies: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (err) {
    return errorMessage(err);
  }
  if (values.help === true) return 'help';
  const once = [
    'package',
    'version',
    'installed',
    'upgrade-constraint-policy',
    'cluster',
    'catalogd-url',
    'kubeconfig',
    'context',
    'system-namespace',
  ] as const;
  for (const flag of once) {
    if ((values[flag]?.length ?? 0) > 1) return `--${flag} may be given only once`;
    if (values[flag]?.[0] === '') return `--${flag} must not be empty`;
  }
  const cluster = values.cluster?.[0];
  if (cluster !== undefined) {
    const clash = (['package', 'channel', 'version', 'installed', 'upgrade-constraint-policy', 'catalog'] as const).find(
      (f) => values[f] !== undefined,
    );
    if (clash !== undefined) return `--${clash} cannot be combined with --cluster: it is taken from the ClusterExtension`;
    if (values.dependencies === true) return '--dependencies cannot be combined with --cluster';
    const url = values['catalogd-url']?.[0];
    if (url !== undefined && !(URL.canParse(url) && /^https?:$/.test(new URL(url).protocol))) {
      return `invalid --catalogd-url ${JSON.stringify(url)} (want http(s)://HOST[:PORT])`;
    }
    return {
      extension: cluster,
      catalogdUrl: url === undefined ? undefined : new URL(url),
      kubeconfig: values.kubeconfig?.[0],
      context: values.context?.[0],
      systemNamespace: values['system-namespace']?.[0] ?? 'olmv1-system',
    };
  }
  for (const flag of ['catalogd-url', 'kubeconfig', 'context', 'system-namespace'] as const) {
    if (values[flag] !== undefined) return `--${flag} needs --cluster`;
  }
  const packageName = values.package?.[0] ?? '';
  if (packageName === '') return '--package is required';
  const channels = values.channel ?? [];
  if (channels.includes('')) return '--channel must not be empty';

  let installed: Spec['installed'];
  const installedArg = values.installed?.[0];
  if (installedArg !== undefined) {
    const at = installedArg.indexOf('@');
    if (at <= 0 || at === installedArg.length - 1) {
      return `invalid --installed ${JSON.stringify(installedArg)}: want BUNDLE@VERSION`;
    }
    installed = { name: installedArg.slice(0, at), version: installedArg.slice(at + 1) };
  }
  const policy = values['upgrade-constraint-policy']?.[0];
  if (policy !== undefined && policy !== 'CatalogProvided' && policy !== 'SelfCertified') {
    return `invalid --upgrade-constraint-policy ${JSON.stringify(policy)}: want CatalogProvided or SelfCertified`;
  }

  const catalogs: CatalogArg[] = [];
  for (const arg of values.catalog ?? []) {
    const c = parseCatalogArg(arg);
    if (typeof c === 'string') return c;
    if (catalogs.some((other) => other.name === c.name)) {
      return `catalog name ${JSON.stringify(c.name)} is used twice; give each --catalog a distinct NAME=`;
    }
    catalogs.push(c);
  }
  if (catalogs.length === 0) return 'at least one --catalog is required';
  return { packageName, channels, versionRange: values.version?.[0] ?? '', installed, policy, catalogs, dependencies: values.dependencies === true };
}

function writeJson(io: CommandIO, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value)}\n`);
}

/**
 * Runs `olmv1 resolve` with `args` (the words after `resolve`). Catalog directories are
 * loaded one at a time through `deps`, and only the requested package's partition is kept.
 * A directory that fails to load counts as a catalog whose content cannot be fetched, so
 * (after the version-range check, as upstream orders it) it fails the resolution with
 * `error walking catalogs: error getting package "<pkg>" from catalog "<name>": error loading catalog directory "<dir>": <reason>`.
 * Returns the exit code.
 */
export async function runResolve(args: string[], io: CommandIO, deps: ResolveDeps): Promise<number> {
  const spec = parseSpec(args);
  if (spec === 'help') {
    io.stdout.write(HELP);
    return EXIT.ok;
  }
  if (typeof spec === 'string') {
    io.stderr.write(`olmv1 resolve: ${spec}\n\n${HELP}`);
    return EXIT.usage;
  }
  if ('extension' in spec) {
    if (deps.connectCluster === undefined || deps.catalogContent === undefined)
      throw new Error('olmv1 resolve --cluster: no cluster access composed');
    return runResolveCluster(spec, io, { connectCluster: deps.connectCluster, catalogContent: deps.catalogContent });
  }
  // An invalid range is reported before any catalog is read, as upstream does.
  const range = checkVersionRange(spec.versionRange);
  if (!range.ok) {
    writeJson(io, { error: range.error });
    return EXIT.failed;
  }

  const catalogs: CatalogInput[] = [];
  // With --dependencies: what providers are searched in (whole directories, URLs' partitions).
  const searched: ProviderCatalog[] = [];
  for (const c of spec.catalogs) {
    try {
      if (isUrl(c.dir)) {
        if (deps.loadCatalogPackage === undefined) throw new Error('no catalogd client composed');
        const partition = await deps.loadCatalogPackage(c.dir, spec.packageName);
        catalogs.push({ name: c.name, priority: c.priority, package: partition });
        if (spec.dependencies) searched.push({ name: c.name, priority: c.priority, content: [partition] });
      } else {
        const dc = await deps.loadCatalogDir(c.dir);
        catalogs.push({ name: c.name, priority: c.priority, package: packagePartition(dc, spec.packageName) });
        if (spec.dependencies) searched.push({ name: c.name, priority: c.priority, content: [dc] });
      }
    } catch (err) {
      const what = isUrl(c.dir) ? 'error reading catalog URL' : 'error loading catalog directory';
      catalogs.push({ name: c.name, error: `${what} ${JSON.stringify(c.dir)}: ${errorMessage(err)}` });
      // Resolution stops at the first unreadable catalog; later ones cannot change the result.
      break;
    }
  }

  const result = resolve({
    packageName: spec.packageName,
    channels: spec.channels,
    versionRange: spec.versionRange,
    upgradeConstraintPolicy: spec.policy,
    installed: spec.installed,
    catalogs,
    // Offline nothing is known to be installed: the closure below says what must be.
    ...(spec.dependencies ? { dependencies: () => undefined } : {}),
  });
  if (!result.ok) {
    writeJson(io, { error: result.error });
    return EXIT.failed;
  }
  const { bundle, versionRelease, catalog, deprecation } = result.value;
  writeJson(io, {
    bundle: { name: bundle.name, version: metadataFor(bundle.name, versionRelease).version, image: bundle.image },
    catalog,
    deprecation: relevantDeprecation(deprecation, spec.channels, bundle.name),
    ...(spec.dependencies ? { dependencies: dependencyClosure(bundle, searched, DEFAULT_LIMITS) } : {}),
  });
  return EXIT.ok;
}

function isUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}
