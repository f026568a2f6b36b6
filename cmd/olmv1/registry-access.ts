/**
 * How the image commands (`catalog push`, `render bundle IMAGE`, `rbac IMAGE`) reach a
 * registry: credentials from a Docker config.json (`--authfile`, else $REGISTRY_AUTH_FILE,
 * else ~/.docker/config.json when present, as podman and skopeo look them up) and extra CAs
 * from a PEM bundle (`--ca-file`, as catalogd and operator-controller take `--pull-ca-file`).
 * Both files are read as regular files only (pkg/localfs), with a size limit.
 */
import { errorMessage } from '../../pkg/errors/index.ts';
import { type DockerConfig, parseDockerConfigJson } from '../../pkg/image/index.ts';
import { readRegularFile } from '../../pkg/localfs/index.ts';

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
    if (missingIsFine && ((err as Error).cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') return undefined;
    throw new Error(`reading ${flag}: ${errorMessage(err)}`, { cause: err });
  }
}
