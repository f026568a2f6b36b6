/**
 * Reads kubeconfig files (and in-cluster ServiceAccount credentials) into what a connection
 * needs: server URL, TLS material and how to authenticate.
 *
 * The common forms are resolved here without @kubernetes/client-node: certificate authorities,
 * client certificates, static and file tokens, basic auth, impersonation of a user. Only users
 * authenticating through an `exec` or `auth-provider` plugin need client-node, which is then
 * loaded on demand (see connection.ts): importing it costs about 80 MB of memory, which an
 * in-cluster controller should not pay. Relative file paths are resolved against the
 * kubeconfig's directory, as kubectl does.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { load } from 'js-yaml';

/** Where to read the admin credentials from; chosen by `cmd/` (which alone reads env/argv). */
export type KubeConfigSource =
  | { kind: 'file'; path: string; context?: string }
  | { kind: 'yaml'; yaml: string; context?: string }
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
  cert?: Buffer | undefined;
  key?: Buffer | undefined;
  auth: KubeAuth;
}

type Obj = Record<string, unknown>;
const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Resolves `source`; throws with the file, context or field at fault named. */
export function loadKubeConfig(source: KubeConfigSource): ResolvedKubeConfig {
  if (source.kind === 'inCluster') return inCluster(source.host, source.port, source.pathPrefix ?? '');
  let yaml: string;
  let base: string;
  try {
    yaml = source.kind === 'file' ? readFileSync(source.path, 'utf8') : source.yaml;
    base = source.kind === 'file' ? dirname(source.path) : process.cwd();
  } catch (err) {
    throw new Error(`unable to load kubeconfig ${source.kind === 'file' ? source.path : ''}: ${(err as Error).message}`, { cause: err });
  }
  try {
    return resolve(yaml, base, source.context, source.kind === 'file' ? { path: source.path } : { yaml });
  } catch (err) {
    const where = source.kind === 'file' ? ` ${source.path}` : '';
    throw new Error(`unable to load kubeconfig${where}: ${(err as Error).message}`, { cause: err });
  }
}

function resolve(yaml: string, base: string, wanted: string | undefined, origin: { path: string } | { yaml: string }): ResolvedKubeConfig {
  const doc = load(yaml);
  if (!isObj(doc)) throw new Error('not a kubeconfig (expected a YAML mapping)');
  const contextName = wanted ?? str(doc['current-context']);
  if (contextName === '') throw new Error('the kubeconfig has no current context with a cluster; set current-context');
  const ctx = named(doc.contexts, 'context', contextName);
  if (ctx === undefined) {
    if (wanted !== undefined) throw new Error(`context "${wanted}" does not exist in the kubeconfig`);
    throw new Error(`current context "${contextName}" is not defined`);
  }
  const clusterName = str(ctx.cluster);
  const cluster = named(doc.clusters, 'cluster', clusterName);
  if (cluster === undefined) throw new Error(`context "${contextName}" names cluster "${clusterName}", which is not defined`);
  const userName = str(ctx.user);
  const user = userName === '' ? {} : named(doc.users, 'user', userName);
  if (user === undefined) throw new Error(`context "${contextName}" names user "${userName}", which is not defined`);
  if (str(cluster['proxy-url']) !== '') {
    throw new Error(`cluster "${clusterName}" uses proxy-url, which is not supported; connect to the API server directly`);
  }
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
    throw new Error(`unable to load in-cluster configuration: ${(err as Error).message}`, { cause: err });
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
