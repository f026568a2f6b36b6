/**
 * Reads kubeconfig files (and in-cluster ServiceAccount credentials) into server URL, TLS
 * material and authentication. The common forms are resolved without client-node; only `exec`
 * and `auth-provider` plugins load it, on demand (it costs more memory than catalogd's budget,
 * decision 0064). Relative paths are resolved against the kubeconfig's directory, as kubectl.
 *
 * A cluster's `proxy-url` applies to every request and watch, loopback included, as client-go's;
 * http and https proxies work, socks5 and other schemes are refused rather than bypassed.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { dump, load } from 'js-yaml';
import { redactProxy } from '../nodehttp/index.ts';
import { mergeKubeConfigFiles } from './kubeconfig-merge.ts';
import { errorMessage } from '../errors/index.ts';

/**
 * Where the admin credentials come from (chosen by `cmd/`): `file` must exist (`--kubeconfig`);
 * `files` is a `$KUBECONFIG` list (kubeconfig-merge.ts); `context` overrides (`--context`).
 */
export type KubeConfigSource =
  | { kind: 'file'; path: string; context?: string | undefined }
  | { kind: 'files'; paths: readonly string[]; context?: string | undefined }
  | { kind: 'yaml'; yaml: string; context?: string | undefined }
  | { kind: 'inCluster'; host: string; port: string; pathPrefix?: string };

/** How a resolved kubeconfig user authenticates. */
export type KubeAuth =
  | { kind: 'static'; headers: Record<string, string> }
  | { kind: 'tokenFile'; path: string; extraHeaders: Record<string, string> }
  /** An exec or auth-provider plugin, evaluated through client-node from the same kubeconfig. */
  | { kind: 'plugin'; kubeconfig: { path: string } | { yaml: string }; context: string };

/** The current context of a kubeconfig, resolved. */
export interface ResolvedKubeConfig {
  context: string;
  clusterName: string;
  userName: string;
  server: string;
  ca?: Buffer | undefined;
  servername?: string | undefined;
  rejectUnauthorized?: boolean | undefined;
  /** The cluster's `proxy-url` (http or https), which every request and watch goes through. */
  proxy?: URL | undefined;
  cert?: Buffer | undefined;
  key?: Buffer | undefined;
  auth: KubeAuth;
}

type Obj = Record<string, unknown>;
const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Resolves `source`; throws with the file, context or field at fault named. */
export function loadKubeConfig(source: KubeConfigSource): ResolvedKubeConfig {
  if (source.kind === 'inCluster') return inCluster(source.host, source.port, source.pathPrefix ?? '');
  if (source.kind === 'files') return loadMerged(source.paths, source.context);
  let yaml: string;
  let base: string;
  try {
    yaml = source.kind === 'file' ? readFileSync(source.path, 'utf8') : source.yaml;
    base = source.kind === 'file' ? dirname(source.path) : process.cwd();
  } catch (err) {
    throw new Error(`unable to load kubeconfig ${source.kind === 'file' ? source.path : ''}: ${errorMessage(err)}`, { cause: err });
  }
  try {
    const doc = load(yaml);
    if (!isObj(doc)) throw new Error('not a kubeconfig (expected a YAML mapping)');
    return resolve(doc, base, source.context, source.kind === 'file' ? { path: source.path } : { yaml });
  } catch (err) {
    const where = source.kind === 'file' ? ` ${source.path}` : '';
    throw new Error(`unable to load kubeconfig${where}: ${errorMessage(err)}`, { cause: err });
  }
}

// A kubeconfig list: merged (paths already absolute), handed to plugins as the merged YAML.
function loadMerged(paths: readonly string[], context: string | undefined): ResolvedKubeConfig {
  const where = paths.filter((p) => p !== '').join(':');
  try {
    const merged = mergeKubeConfigFiles(paths);
    return resolve(merged, process.cwd(), context, { yaml: dump(merged) });
  } catch (err) {
    throw new Error(`unable to load kubeconfig ${where}: ${errorMessage(err)}`, { cause: err });
  }
}

function resolve(doc: Obj, base: string, wanted: string | undefined, origin: { path: string } | { yaml: string }): ResolvedKubeConfig {
  const contextName = wanted ?? str(doc['current-context']);
  if (contextName === '') throw new Error('the kubeconfig has no current context with a cluster; set current-context or pass a context');
  const ctx = named(doc.contexts, 'context', contextName);
  if (ctx === undefined) {
    const known = contextNames(doc.contexts);
    const listed = known.length === 0 ? 'it defines no context' : `contexts: ${known.join(', ')}`;
    if (wanted !== undefined) throw new Error(`context "${wanted}" does not exist in the kubeconfig (${listed})`);
    throw new Error(`current context "${contextName}" is not defined (${listed})`);
  }
  const clusterName = str(ctx.cluster);
  const cluster = named(doc.clusters, 'cluster', clusterName);
  if (cluster === undefined) throw new Error(`context "${contextName}" names cluster "${clusterName}", which is not defined`);
  const userName = str(ctx.user);
  const user = userName === '' ? {} : named(doc.users, 'user', userName);
  if (user === undefined) throw new Error(`context "${contextName}" names user "${userName}", which is not defined`);
  const proxy = proxyUrl(str(cluster['proxy-url']), clusterName);
  const server = str(cluster.server);
  if (server === '') throw new Error(`cluster "${clusterName}" has no server`);
  const file = (p: unknown): Buffer | undefined => (str(p) === '' ? undefined : readFileSync(isAbsolute(str(p)) ? str(p) : join(base, str(p))));
  const data = (d: unknown, field: string): Buffer | undefined => {
    if (str(d) === '') return undefined;
    const b = Buffer.from(str(d), 'base64');
    if (b.length === 0) throw new Error(`${field} is not base64`);
    return b;
  };
  const out: ResolvedKubeConfig = {
    context: contextName,
    clusterName,
    userName,
    server,
    ca: data(cluster['certificate-authority-data'], 'certificate-authority-data') ?? file(cluster['certificate-authority']),
    servername: str(cluster['tls-server-name']) || undefined,
    rejectUnauthorized: cluster['insecure-skip-tls-verify'] === true ? false : undefined,
    proxy,
    cert: data(user['client-certificate-data'], 'client-certificate-data') ?? file(user['client-certificate']),
    key: data(user['client-key-data'], 'client-key-data') ?? file(user['client-key']),
    auth: { kind: 'static', headers: {} },
  };
  const headers: Record<string, string> = {};
  if (str(user.as) !== '') headers['Impersonate-User'] = str(user.as);
  if (user.exec !== undefined || user['auth-provider'] !== undefined) {
    out.auth = { kind: 'plugin', kubeconfig: origin, context: contextName };
  } else if (str(user.token) !== '') {
    out.auth = { kind: 'static', headers: { ...headers, Authorization: `Bearer ${str(user.token)}` } };
  } else if (str(user.tokenFile) !== '') {
    const path = str(user.tokenFile);
    out.auth = { kind: 'tokenFile', path: isAbsolute(path) ? path : join(base, path), extraHeaders: headers };
  } else if (str(user.username) !== '') {
    const basic = Buffer.from(`${str(user.username)}:${str(user.password)}`).toString('base64');
    out.auth = { kind: 'static', headers: { ...headers, Authorization: `Basic ${basic}` } };
  } else {
    out.auth = { kind: 'static', headers };
  }
  return out;
}

// client-go's in-cluster config, with host/port handed in by cmd/ (which reads
// KUBERNETES_SERVICE_HOST/PORT) instead of this library reading the environment.
function inCluster(host: string, port: string, prefix: string): ResolvedKubeConfig {
  if (host === '' || port === '') throw new Error('in-cluster configuration needs the service host and port of the API server');
  const bracketed = host.includes(':') ? `[${host}]` : host;
  let ca: Buffer;
  try {
    ca = readFileSync(`${prefix}${SA_DIR}/ca.crt`);
  } catch (err) {
    throw new Error(`unable to load in-cluster configuration: ${errorMessage(err)}`, { cause: err });
  }
  return {
    context: 'inCluster',
    clusterName: 'inCluster',
    userName: 'inClusterUser',
    server: `https://${bracketed}:${port}`,
    ca,
    auth: { kind: 'tokenFile', path: `${prefix}${SA_DIR}/token`, extraHeaders: {} },
  };
}

/** A cluster's `proxy-url`, http or https, else refused; errors never show its password. */
function proxyUrl(raw: string, clusterName: string): URL | undefined {
  if (raw === '') return undefined;
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (url === undefined) throw new Error(`cluster "${clusterName}" has an invalid proxy-url: could not parse it as a URL`);
  const scheme = url.protocol.slice(0, -1);
  if (scheme === 'socks5') {
    throw new Error(`cluster "${clusterName}" has proxy-url ${redactProxy(url)}: socks5 proxies are not supported, only http and https ones`);
  }
  if (scheme !== 'http' && scheme !== 'https') {
    throw new Error(`cluster "${clusterName}" has proxy-url ${redactProxy(url)}: unsupported scheme "${scheme}", must be http or https`);
  }
  if (url.hostname === '') throw new Error(`cluster "${clusterName}" has proxy-url ${redactProxy(url)} without a host`);
  return url;
}

function contextNames(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((e) => (isObj(e) && typeof e.name === 'string' ? [e.name] : []));
}

function named(list: unknown, field: string, name: string): Obj | undefined {
  if (!Array.isArray(list)) return undefined;
  for (const entry of list) {
    if (isObj(entry) && entry.name === name) return isObj(entry[field]) ? entry[field] : {};
  }
  return undefined;
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
