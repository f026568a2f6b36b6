/**
 * `olmv1 render bundle`: a bundle's objects as operator-controller would apply them, in a
 * deterministic order, with SingleOwnNamespaceInstallSupport and DeploymentConfig on (decision
 * 0040); and the plumbing every command shares (CommandError, parseCommandLine, runCommand).
 */
import { stat } from 'node:fs/promises';
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import {
  decodeSingleDocument,
  decodeUtf8,
  parseBundle,
  readBundleDir,
  type KubeObject,
  type RegistryV1Bundle,
} from '../../pkg/operator-controller/bundle/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { readRegularFile } from '../../pkg/shared/localfs/index.ts';
import { objectsToYaml, render, type CertProviderName, type RenderOptions } from '../../pkg/operator-controller/render/index.ts';
import { refusalMessage } from '../../pkg/olmv1/install/index.ts';
import { BUNDLE_IMAGE_LIMITS, type ImageLimits } from '../../pkg/shared/image/index.ts';
import { IMAGE_LIMIT_FLAGS, imageLimitHelp, imageLimitOptions } from '../shared/limits.ts';
import { parsePositiveDuration } from '../shared/flags.ts';
import { REGISTRY_FLAGS, type RegistryAccess, loadRegistryAccess, registryFlagsHelp } from './registry-access.ts';
import type { CommandIO } from './io.ts';

/** How bundle images are fetched (the OCI client); absent means directories only. */
export interface BundleSourceDeps {
  /** Pulls and unpacks a bundle image; keys are paths relative to the bundle root. */
  fetchBundle?: (ref: string, access: RegistryAccess & { limits: ImageLimits }) => Promise<Map<string, Buffer>>;
  /** The Docker config.json used without --authfile (see registry-access.ts). */
  defaultAuthFile?: string;
}

/** A command failure with its exit code; the message goes to stderr (stdout for exit 0, i.e. --help). */
export class CommandError extends Error {
  readonly exitCode: number;

  constructor(message: string, exitCode: number) {
    super(message);
    this.name = 'CommandError';
    this.exitCode = exitCode;
  }
}

const HELP_FLAG = { help: { type: 'boolean', short: 'h' } } as const;

/** What {@link parseCommandLine} returns for `options` (plus -h/--help). */
type CommandLine<O extends ParseArgsOptionsConfig, P extends boolean> = ReturnType<
  typeof parseArgs<{ args: string[]; strict: true; allowPositionals: P; options: O & typeof HELP_FLAG }>
>;

/**
 * Parses a command's arguments strictly with `options` and -h/--help. A usage problem throws a
 * CommandError with exit code 2 and the usage; --help throws one with exit code 0.
 */
export function parseCommandLine<const O extends ParseArgsOptionsConfig, P extends boolean = true>(
  args: readonly string[],
  usage: string,
  options: O,
  allowPositionals: P = true as P,
): CommandLine<O, P> {
  // Typed loosely here (a spread of a generic); the caller gets the precise type.
  const all: ParseArgsOptionsConfig = { ...options, ...HELP_FLAG };
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], allowPositionals, strict: true, options: all });
  } catch (e) {
    throw new CommandError(`${errorMessage(e)}\n${usage}`, 2);
  }
  if (parsed.values['help'] === true) throw new CommandError(usage, 0);
  return parsed as CommandLine<O, P>;
}

/** `value` when it is one of `allowed` (or undefined); else a usage error naming `flag` and the choices. */
export function flagChoice<const T extends string>(flag: string, value: string | undefined, allowed: readonly T[], usage: string): T | undefined {
  if (value === undefined || (allowed as readonly string[]).includes(value)) return value as T | undefined;
  const choices = `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1) ?? ''}`;
  throw new CommandError(`${flag} must be ${choices}, got ${JSON.stringify(value)}\n${usage}`, 2);
}

/** The certificate providers of `--cert-provider`. */
export const CERT_PROVIDERS = ['cert-manager', 'openshift-service-ca'] as const;

/** `--timeout`'s value in milliseconds (`fallbackMs` when not given); a bad one is a usage error. */
export function timeoutFlag(value: string | undefined, fallbackMs: number, usage: string): number {
  if (value === undefined) return fallbackMs;
  try {
    return parsePositiveDuration('--timeout', value);
  } catch (e) {
    throw new CommandError(`${errorMessage(e)}\n${usage}`, 2);
  }
}

/** The string flags of `values` (for the registry flags) and the image caps they set; a bad cap is a usage error. */
export function imageFlags(
  values: Record<string, unknown>,
  usage: string,
): { strings: Record<string, string | undefined>; imageLimits: ImageLimits } {
  const strings: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(values)) if (typeof v === 'string') strings[k] = v;
  try {
    return { strings, imageLimits: imageLimitOptions(strings, BUNDLE_IMAGE_LIMITS) };
  } catch (e) {
    throw new CommandError(`${errorMessage(e)}\n${usage}`, 2);
  }
}

/** Flags and exit codes both bundle commands share, for their help texts. */
export const BUNDLE_FLAGS_HELP = `  --install-namespace NS   namespace the extension is installed into (required)
  --watch-namespace NS     namespace its operator watches (Single/OwnNamespace install modes);
                           default: all namespaces
  --cert-provider P        cert-manager or openshift-service-ca: how webhook certificates are
                           provided (required for bundles with webhooks)
  --config FILE            JSON or YAML of what spec.config.inline would hold
                           (watchNamespace, deploymentConfig)
  -o, --output FORMAT      yaml (default: multi-document YAML) or json (one v1 List)
${registryFlagsHelp(27)}${imageLimitHelp(27, BUNDLE_IMAGE_LIMITS)}  -h, --help               show this help
`;

/** What DIR|IMAGE means, for the help texts. */
export const BUNDLE_SOURCE_HELP = `DIR is a bundle directory (manifests/ and metadata/). IMAGE is a bundle image reference that
names its registry (quay.io/acme/bundle:v1, localhost:5001/acme/bundle:v1; a name that is not
an existing directory and names no registry is refused). Images are pulled (registries on
loopback and in $OLMV1_INSECURE_REGISTRIES over plain HTTP), through the
mirrors, rewrites and blocked or insecure registries of containers-registries.conf(5)
($CONTAINERS_REGISTRIES_CONF, else ~/.config/containers/registries.conf or
/etc/containers/registries.conf, and their registries.conf.d drop-ins).`;

const RENDER_USAGE = `Usage: olmv1 render bundle DIR|IMAGE --install-namespace NS [--watch-namespace NS]
         [--cert-provider cert-manager|openshift-service-ca] [--config FILE] [-o yaml|json]
         [--authfile FILE] [--ca-file FILE]

Renders a registry+v1 bundle into the objects operator-controller would apply for it (CRDs,
Deployments, ServiceAccounts, RBAC, webhook configurations, Services, certificates), exactly
as it would render them.

${BUNDLE_SOURCE_HELP}

Flags:
${BUNDLE_FLAGS_HELP}
Output:
  stdout: every object, in a deterministic order. stderr: errors.

Exit codes:
  0  rendered
  1  the bundle or configuration was refused (upstream's message), or could not be read
  2  usage error`;

/** Runs `olmv1 render bundle`; `args` are the arguments after `render bundle`. */
export async function runRenderBundle(args: readonly string[], io: CommandIO, deps: BundleSourceDeps): Promise<number> {
  return runCommand(io, async () => {
    const parsed = parseCommandArgs(args, RENDER_USAGE, { config: { type: 'string' } });
    const bundle = await loadBundle(parsed, deps);
    const options = await buildRenderOptions(parsed);
    const result = render(bundle, options);
    if (!result.ok) throw new CommandError(refusalMessage(result.error, bundle, parsed), 1);
    io.stdout.write(formatObjects(result.value, parsed.output));
  });
}

/** Parsed common arguments of the bundle commands. */
interface BundleCommandArgs {
  source: string;
  installNamespace: string;
  watchNamespace?: string;
  certProvider?: CertProviderName;
  output: 'yaml' | 'json';
  /** Caps of an image pull (`--max-image-*`; default BUNDLE_IMAGE_LIMITS). */
  imageLimits: ImageLimits;
  values: Record<string, string | undefined>;
}

/**
 * Parses `SOURCE --install-namespace NS [--watch-namespace NS] [--cert-provider P]` plus
 * `extra` options. Usage problems throw a CommandError with exit code 2.
 */
export function parseCommandArgs(args: readonly string[], usage: string, extra: Record<string, { type: 'string' }>): BundleCommandArgs {
  const parsed = parseCommandLine(args, usage, {
    'install-namespace': { type: 'string' },
    'watch-namespace': { type: 'string' },
    'cert-provider': { type: 'string' },
    output: { type: 'string', short: 'o' },
    ...REGISTRY_FLAGS,
    ...IMAGE_LIMIT_FLAGS,
    ...extra,
  });
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (parsed.positionals.length !== 1) throw new CommandError(`expected exactly one bundle directory or image\n${usage}`, 2);
  const installNamespace = values['install-namespace'];
  if (typeof installNamespace !== 'string' || installNamespace === '') {
    throw new CommandError(`--install-namespace is required\n${usage}`, 2);
  }
  const certProvider = flagChoice('--cert-provider', values['cert-provider'] as string | undefined, CERT_PROVIDERS, usage);
  const output = flagChoice('-o', (values['output'] as string | undefined) ?? 'yaml', ['yaml', 'json'], usage) ?? 'yaml';
  const watch = values['watch-namespace'];
  const { strings, imageLimits } = imageFlags(values, usage);
  return {
    source: parsed.positionals[0] as string,
    installNamespace,
    ...(typeof watch === 'string' ? { watchNamespace: watch } : {}),
    ...(certProvider === undefined ? {} : { certProvider }),
    output,
    imageLimits,
    values: strings,
  };
}

/**
 * Reads a bundle from a directory, or fetches it as an image when `args.source` is not one,
 * with the registry access and within the image caps the flags give.
 */
export async function loadBundle(
  args: Pick<BundleCommandArgs, 'source' | 'values' | 'imageLimits'>,
  deps: BundleSourceDeps,
  origin: 'argument' | 'catalog' = 'argument',
): Promise<RegistryV1Bundle> {
  const source = args.source;
  let files: ReadonlyMap<string, Uint8Array>;
  // A catalog names an image, never a path of this machine: catalog content is hostile input.
  if (origin === 'catalog' && !namesRegistry(source)) {
    throw new CommandError(`the catalog's bundle image ${JSON.stringify(source)} does not name a registry`, 1);
  }
  if (origin === 'argument' && (await stat(source).catch(() => undefined))?.isDirectory() === true) {
    files = await readBundleDir(source);
  } else if (!namesRegistry(source)) {
    // A mistyped directory must not become a pull from docker.io.
    throw new CommandError(
      `bundle directory ${JSON.stringify(source)} not found\n(an IMAGE must name its registry, e.g. quay.io/acme/bundle:v1 or localhost:5001/acme/bundle:v1)`,
      1,
    );
  } else if (deps.fetchBundle !== undefined) {
    let access: RegistryAccess;
    try {
      access = await loadRegistryAccess(args.values, deps.defaultAuthFile);
    } catch (e) {
      throw new CommandError(errorMessage(e), 2);
    }
    files = await deps.fetchBundle(source, { ...access, limits: args.imageLimits });
  } else {
    throw new CommandError(`${JSON.stringify(source)} is not a directory, and fetching bundle images is not available`, 1);
  }
  const bundle = parseBundle(files);
  if (!bundle.ok) throw new CommandError(bundle.error, 1);
  return bundle.value;
}

/**
 * Whether `ref` is a fully qualified image reference: its first path component is a registry
 * host (as Docker tells one: it holds a `.` or a `:` port, or is `localhost`) and a repository
 * follows. Only such an argument that is not a directory is pulled.
 */
export function namesRegistry(ref: string): boolean {
  const slash = ref.indexOf('/');
  if (slash <= 0 || slash === ref.length - 1) return false;
  return REGISTRY_HOST.test(ref.slice(0, slash));
}

// localhost[:port], a dotted name[:port], name:port, or [IPv6][:port]; `.`, `..` and `./x` are paths.
const REGISTRY_HOST = /^(localhost(:\d+)?|[a-zA-Z0-9-]+(\.[a-zA-Z0-9-]+)+(:\d+)?|[a-zA-Z0-9-]+:\d+|\[[0-9a-fA-F:.]+\](:\d+)?)$/;

/** The objects as `-o` asks: multi-document YAML, or one JSON `v1` `List` (2-space indent). */
export function formatObjects(objects: readonly KubeObject[], output: 'yaml' | 'json'): string {
  if (output === 'yaml') return objectsToYaml(objects);
  return `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }, null, 2)}\n`;
}

/**
 * Render options for the CLI: `--config` file content (JSON or YAML) merged with
 * `--watch-namespace` (a conflicting value is a usage error), both feature gates on.
 */
export async function buildRenderOptions(args: BundleCommandArgs): Promise<RenderOptions> {
  let config: unknown;
  const configFile = args.values['config'];
  if (configFile !== undefined) config = await readConfigFile(configFile);
  if (args.watchNamespace !== undefined) {
    if (config === undefined || config === null) config = {};
    if (typeof config !== 'object' || Array.isArray(config)) {
      throw new CommandError('--watch-namespace cannot be combined with a --config file that does not hold an object', 2);
    }
    const existing = (config as Record<string, unknown>)['watchNamespace'];
    if (existing !== undefined && existing !== null && existing !== args.watchNamespace) {
      throw new CommandError(
        `--watch-namespace ${JSON.stringify(args.watchNamespace)} conflicts with watchNamespace ${JSON.stringify(existing)} in --config`,
        2,
      );
    }
    config = { ...(config as Record<string, unknown>), watchNamespace: args.watchNamespace };
  }
  return {
    installNamespace: args.installNamespace,
    ...(config === undefined ? {} : { config }),
    ...(args.certProvider === undefined ? {} : { certProvider: args.certProvider }),
    singleOwnNamespaceSupport: true,
    deploymentConfigSupport: true,
  };
}

// A ClusterExtension's inline configuration is part of an object the API server stores (1.5 MB at most).
const MAX_CONFIG_BYTES = 4 << 20;

/** Reads `--config`: a JSON or YAML document (what `spec.config.inline` would hold). */
async function readConfigFile(path: string): Promise<unknown> {
  let bytes: Uint8Array;
  try {
    bytes = await readRegularFile(path, { maxBytes: MAX_CONFIG_BYTES });
  } catch (e) {
    throw new CommandError(`reading --config: ${errorMessage(e)}`, 1);
  }
  const text = decodeUtf8(bytes);
  const doc = text.ok ? decodeSingleDocument(text.value) : text;
  if (!doc.ok) throw new CommandError(`invalid ClusterExtension configuration: invalid configuration: ${doc.error}`, 1);
  return doc.value;
}

/** Runs `body` for its exit code (0 when it returns none), mapping CommandErrors and unexpected failures to stderr and an exit code. */
export async function runCommand(io: CommandIO, body: () => Promise<number | void>): Promise<number> {
  try {
    return (await body()) ?? 0;
  } catch (e) {
    const code = e instanceof CommandError ? e.exitCode : 1;
    (code === 0 ? io.stdout : io.stderr).write(`${errorMessage(e)}\n`);
    return code;
  }
}
