/**
 * How the image commands reach a registry: credentials from a Docker config.json (`--authfile`,
 * $REGISTRY_AUTH_FILE, ~/.docker/config.json, as podman looks them up) and extra CAs (`--ca-file`),
 * both read as size-limited regular files (pkg/shared/localfs).
 */
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { errorMessage, isErrno } from '../../pkg/shared/errors/index.ts';
import { stat } from 'node:fs/promises';
import { goQuote } from '../../pkg/gocompat/gotext/index.ts';
import {
  type BuiltImage,
  type DockerConfig,
  type ImageClient,
  type ImageReference,
  createImageClient,
  parseDockerConfigJson,
  parseImageReference,
} from '../../pkg/shared/image/index.ts';
import type { ProxySelector } from '../../pkg/shared/nodehttp/index.ts';
import { type CommandIO, EXIT } from './io.ts';
import { readRegularFile } from '../../pkg/shared/localfs/index.ts';

/** parseArgs options of the registry flags. */
export const REGISTRY_FLAGS = { authfile: { type: 'string' }, 'ca-file': { type: 'string' } } as const;

/** Help lines of the registry flags, descriptions starting at `column`. */
export function registryFlagsHelp(column: number): string {
  const flag = (name: string): string => `  ${name}`.padEnd(column);
  return [
    `${flag('--authfile FILE')}registry credentials in Docker config.json format`,
    `${' '.repeat(column)}(default: $REGISTRY_AUTH_FILE, else ~/.docker/config.json when present)`,
    `${flag('--ca-file FILE')}PEM CA bundle trusted for registries besides the system's`,
    '',
  ].join('\n');
}

/** What the image client needs from the flags. */
export interface RegistryAccess {
  credentials?: DockerConfig;
  caPem?: string;
}

// Far above any real Docker config.json or CA bundle; a larger file is refused before it is read.
const MAX_FILE_BYTES = 4 << 20;

/**
 * Reads the files the registry flags name. A missing default auth file means anonymous access;
 * a missing file given by flag is an error.
 *
 * @throws Error naming the flag and the file when one cannot be read or parsed.
 */
export async function loadRegistryAccess(
  values: { authfile?: string; 'ca-file'?: string },
  defaultAuthFile: string | undefined,
): Promise<RegistryAccess> {
  const access: RegistryAccess = {};
  const authFile = values.authfile ?? defaultAuthFile;
  if (authFile !== undefined) {
    const text = await readFlagFile('--authfile', authFile, values.authfile === undefined);
    if (text !== undefined) access.credentials = parseDockerConfigJson(text, authFile);
  }
  const caFile = values['ca-file'];
  if (caFile !== undefined) {
    const pem = (await readFlagFile('--ca-file', caFile, false)) ?? '';
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`--ca-file ${JSON.stringify(caFile)} holds no PEM certificate`);
    access.caPem = pem;
  }
  return access;
}

async function readFlagFile(flag: string, path: string, missingIsFine: boolean): Promise<string | undefined> {
  try {
    return (await readRegularFile(path, { maxBytes: MAX_FILE_BYTES })).toString('utf8');
  } catch (err) {
    if (missingIsFine && err instanceof Error && isErrno(err.cause, 'ENOENT')) return undefined;
    throw new Error(`reading ${flag}: ${errorMessage(err)}`, { cause: err });
  }
}

/** Where the image commands reach registries from: the composition root's settings. */
interface RegistrySettings {
  insecureRegistries: string[];
  defaultAuthFile: string | undefined;
  proxy?: ProxySelector | undefined;
}

/** What `pushBuilt` needs besides the image. */
interface PushTarget extends RegistrySettings {
  ref: string;
  /** The parsed registry flags (`--authfile`, `--ca-file`). */
  values: { authfile?: string; 'ca-file'?: string };
  /** What stdout gets for the pushed digest. */
  printed: (digest: string) => string;
}

/**
 * The push tail `catalog push` and `bundle push` share: reads the registry flags (a bad one is
 * a usage error), builds the image, reports its size on stderr, pushes it and prints what
 * `printed` makes of the digest. Returns the command's exit code.
 */
export async function pushBuilt(io: CommandIO, target: PushTarget, build: () => Promise<BuiltImage> | BuiltImage): Promise<number> {
  const client = await registryImageClient(io, target.values, target);
  if (typeof client === 'number') return client;
  try {
    const image = await build();
    const bytes = image.layers.reduce((n, l) => n + l.size, 0);
    io.stderr.write(`pushing ${(bytes / 1e6).toFixed(1)} MB to ${target.ref}\n`);
    const digest = await client.push(target.ref, image);
    io.stdout.write(`${target.printed(digest)}\n`);
    return EXIT.ok;
  } catch (err) {
    io.stderr.write(`Error: pushing ${target.ref}: ${errorMessage(err)}\n`);
    return EXIT.failed;
  } finally {
    client.close();
  }
}

/**
 * The image client of the registry flags `values` over `settings`; a flag that cannot be read is
 * said on stderr and resolves with the usage exit code.
 */
export async function registryImageClient(
  io: CommandIO,
  values: { authfile?: string; 'ca-file'?: string },
  settings: RegistrySettings,
): Promise<ImageClient | number> {
  let access: RegistryAccess;
  try {
    access = await loadRegistryAccess(values, settings.defaultAuthFile);
  } catch (err) {
    io.stderr.write(`Error: ${errorMessage(err)}\n`);
    return EXIT.usage;
  }
  return createImageClient({
    insecureRegistries: settings.insecureRegistries,
    ...access,
    ...(settings.proxy === undefined ? {} : { proxy: settings.proxy }),
  });
}

const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;

/** What `parseRegistryCommand` parses: the registry flags, -h and the command's `O`. */
type RegistryCommandValues<O extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof REGISTRY_FLAGS & typeof HELP_OPTION & O }>
>['values'];

/**
 * Parses an image command's `args`: two positionals (`expected` names them for the usage error),
 * the registry flags, -h and `options`. Resolves with them, or with the exit code after printing
 * help (`-h`) or a usage error.
 */
export function parseRegistryCommand<const O extends ParseArgsOptionsConfig>(
  args: string[],
  io: CommandIO,
  usage: string,
  expected: string,
  options: O,
): { positionals: [string, string]; values: RegistryCommandValues<O> } | number {
  let parsed;
  try {
    // Typed loosely here (a spread of a generic); the caller gets the precise type.
    const all: ParseArgsOptionsConfig = { ...REGISTRY_FLAGS, ...HELP_OPTION, ...options };
    parsed = parseArgs({ args, allowPositionals: true, options: all });
  } catch (err) {
    io.stderr.write(`Error: ${errorMessage(err)}\n\n${usage}`);
    return EXIT.usage;
  }
  if (parsed.values['help'] === true) {
    io.stdout.write(usage);
    return EXIT.ok;
  }
  const [first, second, ...extra] = parsed.positionals;
  if (first === undefined || second === undefined || extra.length > 0) {
    io.stderr.write(`Error: expected ${expected}\n\n${usage}`);
    return EXIT.usage;
  }
  return { positionals: [first, second], values: parsed.values as RegistryCommandValues<O> };
}

/**
 * The arguments of a push command: `<dir> <image-reference>` and the registry flags, the
 * directory checked (`notDirectory` says what is wrong) and the reference parsed. Resolves with
 * them, or with the exit code after printing help (`-h`) or a usage error naming `dirKind`.
 */
export async function parsePushArgs(
  args: string[],
  io: CommandIO,
  usage: string,
  dirKind: string,
  notDirectory: (dir: string) => string,
): Promise<{ dir: string; ref: string; parsedRef: ImageReference; values: { authfile?: string; 'ca-file'?: string } } | number> {
  const parsed = parseRegistryCommand(args, io, usage, `${dirKind} and an image reference`, {});
  if (typeof parsed === 'number') return parsed;
  const [dir, ref] = parsed.positionals;
  if ((await stat(dir).catch(() => undefined))?.isDirectory() !== true) {
    io.stderr.write(`Error: ${notDirectory(goQuote(dir))}\n`);
    return EXIT.usage;
  }
  try {
    return { dir, ref, parsedRef: parseImageReference(ref), values: parsed.values };
  } catch (err) {
    io.stderr.write(`Error: ${errorMessage(err)}\n`);
    return EXIT.usage;
  }
}
