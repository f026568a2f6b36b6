/**
 * Registry credentials from Docker config files / `kubernetes.io/dockerconfigjson` Secrets. Keys
 * are normalised as containers/image does (scheme and path dropped, Docker Hub aliases become
 * `index.docker.io`); a key may name a namespace (`quay.io/team`): the most specific wins.
 */
import { z } from 'zod';
import { jsonSyntaxProblem } from '../errors/index.ts';
import type { ImageReference } from './reference.ts';

/** One `auths` entry as written in a Docker config. Unused fields are ignored. */
const DockerAuthEntry = z.object({
  auth: z.string().optional(),
  username: z.string().optional(),
  password: z.string().optional(),
});
type DockerAuthEntry = z.infer<typeof DockerAuthEntry>;

/** `.dockerconfigjson` content: `{"auths": {key: entry}}`. */
const DockerConfigJson = z.object({ auths: z.record(z.string(), DockerAuthEntry) });

/** Legacy `.dockercfg` content: `{key: entry}`. */
const Dockercfg = z.record(z.string(), DockerAuthEntry);

/** A username/password pair for HTTP basic auth or a token request. */
export interface RegistryCredentials {
  username: string;
  password: string;
}

/** Usable credentials by normalised registry key. Immutable once built. */
export interface DockerConfig {
  readonly auths: Readonly<Record<string, RegistryCredentials>>;
}

const DOCKER_HUB_ALIASES = new Set(['docker.io', 'registry-1.docker.io', 'index.docker.io']);

/** The lookup key for a registry host: Docker Hub aliases collapse to `index.docker.io`. */
function normalizeRegistryHost(host: string): string {
  return DOCKER_HUB_ALIASES.has(host) ? 'index.docker.io' : host;
}

/** Normalises an auth file key (see module comment). */
export function normalizeAuthKey(key: string, legacyFormat: boolean): string {
  let stripped = key.replace(/^https?:\/\//, '');
  if (legacyFormat || stripped !== key) stripped = stripped.split('/')[0] ?? '';
  const slash = stripped.indexOf('/');
  const host = slash >= 0 ? stripped.slice(0, slash) : stripped;
  const rest = slash >= 0 ? stripped.slice(slash) : '';
  return normalizeRegistryHost(host) + rest.replace(/\/+$/, '');
}

function decodeEntry(key: string, entry: DockerAuthEntry, source: string): RegistryCredentials | undefined {
  if (entry.auth !== undefined && entry.auth !== '') {
    const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) {
      throw new Error(`invalid "auth" for registry ${JSON.stringify(key)} in ${source}: expected base64 of "username:password"`);
    }
    return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  if (entry.username !== undefined && entry.username !== '') {
    return { username: entry.username, password: entry.password ?? '' };
  }
  return undefined;
}

function build(entries: Record<string, DockerAuthEntry>, legacyFormat: boolean, source: string): DockerConfig {
  const auths: Record<string, RegistryCredentials> = {};
  // Scheme-prefixed keys first so that a plain key for the same registry wins.
  const keys = Object.keys(entries).sort((a, b) => Number(/^https?:/.test(b)) - Number(/^https?:/.test(a)));
  for (const key of keys) {
    const entry = entries[key];
    if (entry === undefined) continue;
    const creds = decodeEntry(key, entry, source);
    if (creds !== undefined) auths[normalizeAuthKey(key, legacyFormat)] = creds;
  }
  return { auths };
}

function parseJsonText(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    // Not V8's message nor the error as cause: both quote the credentials (issue 69).
    // eslint-disable-next-line preserve-caught-error -- the SyntaxError quotes the parsed text (a Secret's bytes)
    throw new Error(`error parsing ${source}: ${jsonSyntaxProblem(err)}`);
  }
}

function issues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
}

/**
 * Parses `.dockerconfigjson` text, leaving out entries without usable credentials.
 * @throws Error naming `source` for invalid JSON, a wrong shape, or a bad `auth` value.
 */
export function parseDockerConfigJson(text: string, source = '.dockerconfigjson'): DockerConfig {
  const r = DockerConfigJson.safeParse(parseJsonText(text, source));
  if (!r.success) throw new Error(`error parsing ${source}: ${issues(r.error)}`);
  return build(r.data.auths, false, source);
}

/** Parses legacy `.dockercfg` text; errors as parseDockerConfigJson. */
export function parseDockercfg(text: string, source = '.dockercfg'): DockerConfig {
  const r = Dockercfg.safeParse(parseJsonText(text, source));
  if (!r.success) throw new Error(`error parsing ${source}: ${issues(r.error)}`);
  return build(r.data, true, source);
}

/** The data of a Secret as the API returns it: values are base64. */
interface SecretPayload {
  name?: string;
  data?: Readonly<Record<string, string>> | undefined;
}

/**
 * Credentials from a Secret: `.dockerconfigjson` when present, else `.dockercfg`; undefined
 * when the Secret has neither key (upstream ignores such Secrets).
 *
 * @throws Error as parseDockerConfigJson, naming the Secret.
 */
export function dockerConfigFromSecret(secret: SecretPayload): DockerConfig | undefined {
  const label = secret.name !== undefined ? `secret ${JSON.stringify(secret.name)}` : 'secret';
  const json = secret.data?.['.dockerconfigjson'];
  if (json !== undefined) {
    return parseDockerConfigJson(Buffer.from(json, 'base64').toString('utf8'), `${label} key .dockerconfigjson`);
  }
  const cfg = secret.data?.['.dockercfg'];
  if (cfg !== undefined) return parseDockercfg(Buffer.from(cfg, 'base64').toString('utf8'), `${label} key .dockercfg`);
  return undefined;
}

/** Merges configs in order; a later config's entry replaces an earlier one for the same key. */
export function mergeDockerConfigs(configs: readonly DockerConfig[]): DockerConfig {
  const auths: Record<string, RegistryCredentials> = {};
  for (const c of configs) Object.assign(auths, c.auths);
  return { auths };
}

/** The credentials for `ref`: `host/full/path`, then each shorter namespace, then the host; undefined: anonymous. */
export function credentialsFor(config: DockerConfig | undefined, ref: Pick<ImageReference, 'domain' | 'path'>): RegistryCredentials | undefined {
  if (config === undefined) return undefined;
  const host = normalizeRegistryHost(ref.domain);
  const parts = ref.path.split('/');
  for (let n = parts.length; n >= 0; n--) {
    const key = n === 0 ? host : `${host}/${parts.slice(0, n).join('/')}`;
    const creds = config.auths[key];
    if (creds !== undefined) return creds;
  }
  return undefined;
}
