/**
 * A Connection is everything the raw transport needs to talk to one API server as one identity:
 * the server URL, one long-lived keep-alive agent, and the authentication headers.
 *
 * client-node is used only here, to read kubeconfig files and turn users/clusters into TLS
 * options and auth headers (certificates, tokens, token files, exec plugins). Its own agents
 * are discarded: we keep exactly one keep-alive agent per identity so reconnects never leak
 * sockets (style.md §9.4, FD growth row).
 */
import http from 'node:http';
import https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { createKubeClient, type KubeClient } from './client.ts';
import { createResourceMapper, type ResourceMapper } from './resource-mapper.ts';
import { createTransport, type Transport, type TransportOptions } from './transport.ts';

/** TLS settings of the server side of a connection, shared by identities on the same server. */
export interface ServerTls {
  ca?: Buffer | string | undefined;
  servername?: string | undefined;
  rejectUnauthorized?: boolean | undefined;
}

/**
 * One identity on one API server. `authHeaders()` may be called for every request (it caches
 * what it can); `invalidateAuth()`, when present, drops cached credentials after a 401 so the
 * transport can retry once with fresh ones.
 */
export interface Connection {
  /** Base URL of the API server (may carry a path prefix). */
  readonly server: URL;
  /** The keep-alive agent every request of this identity goes through. */
  readonly agent: http.Agent;
  /** TLS trust of the server, reused to build credential-less (scoped) connections. */
  readonly serverTls: ServerTls;
  /** Short description for logs, never a secret (e.g. `kubeconfig user admin`). */
  readonly identity: string;
  authHeaders(): Promise<Record<string, string>>;
  invalidateAuth?: () => void;
  /** Closes idle sockets of the agent; the connection must not be used afterwards. */
  close(): void;
}

/** Where to read the admin credentials from; chosen by `cmd/` (which alone reads env/argv). */
export type KubeConfigSource =
  | { kind: 'file'; path: string; context?: string }
  | { kind: 'yaml'; yaml: string; context?: string }
  | { kind: 'inCluster'; host: string; port: string; pathPrefix?: string };

/** Tuning of the connection's agent. */
export interface ConnectionOptions {
  /** Upper bound of parallel sockets to the server (default 64; watches hold one each). */
  maxSockets?: number;
  /** How long dynamic auth headers (exec plugins, token files) are reused (default 10 s). */
  authCacheMs?: number;
}

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Loads a kubeconfig per `source`; throws with the file/context named when it cannot. */
export function loadKubeConfig(source: KubeConfigSource): KubeConfig {
  const kc = new KubeConfig();
  try {
    if (source.kind === 'file') kc.loadFromFile(source.path);
    if (source.kind === 'yaml') kc.loadFromString(source.yaml);
    if (source.kind === 'inCluster') loadInCluster(kc, source.host, source.port, source.pathPrefix ?? '');
  } catch (err) {
    const where = source.kind === 'file' ? ` ${source.path}` : '';
    throw new Error(`unable to load kubeconfig${where}: ${(err as Error).message}`, { cause: err });
  }
  if (source.kind !== 'inCluster' && source.context !== undefined) {
    if (kc.getContextObject(source.context) === null) {
      throw new Error(`context "${source.context}" does not exist in the kubeconfig`);
    }
    kc.setCurrentContext(source.context);
  }
  if (kc.getCurrentCluster() === null) {
    throw new Error('the kubeconfig has no current context with a cluster; set current-context');
  }
  return kc;
}

// Mirrors client-go's in-cluster config, with host/port handed in by cmd/ (which reads
// KUBERNETES_SERVICE_HOST/PORT) instead of this library reading the environment.
function loadInCluster(kc: KubeConfig, host: string, port: string, prefix: string): void {
  if (host === '' || port === '') {
    throw new Error('in-cluster configuration needs the service host and port of the API server');
  }
  const bracketed = host.includes(':') ? `[${host}]` : host;
  kc.loadFromOptions({
    clusters: [{ name: 'inCluster', server: `https://${bracketed}:${port}`, caFile: `${prefix}${SA_DIR}/ca.crt`, skipTLSVerify: false }],
    users: [{ name: 'inClusterUser', authProvider: { name: 'tokenFile', config: { tokenFile: `${prefix}${SA_DIR}/token` } } }],
    contexts: [{ name: 'inClusterContext', cluster: 'inCluster', user: 'inClusterUser' }],
    currentContext: 'inClusterContext',
  });
}

/**
 * Builds the admin Connection of a kubeconfig's current context. TLS material is read once;
 * static tokens/certs become fixed headers, exec plugins and token files are re-evaluated
 * (cached `authCacheMs`) so rotated credentials are picked up; a 401 drops that cache.
 */
export async function connectionFromKubeConfig(kc: KubeConfig, options: ConnectionOptions = {}): Promise<Connection> {
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new Error('the kubeconfig has no current cluster');
  if (cluster.proxyUrl !== undefined && cluster.proxyUrl !== '') {
    throw new Error(`cluster "${cluster.name}" uses proxy-url, which is not supported; connect to the API server directly`);
  }
  const user = kc.getCurrentUser();
  const opts: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const serverTls: ServerTls = { ca: opts.ca as Buffer | undefined, servername: opts.servername, rejectUnauthorized: opts.rejectUnauthorized };
  const server = new URL(cluster.server);
  const agent = makeAgent(server, { ...serverTls, cert: opts.cert as Buffer | undefined, key: opts.key as Buffer | undefined }, options);
  const initial = headersOf(opts);
  const dynamic = user !== null && (user.exec !== undefined || user.authProvider !== undefined);
  const identity = `kubeconfig user ${user?.name ?? '(none)'}`;
  if (!dynamic) {
    return { server, agent, serverTls, identity, authHeaders: () => Promise.resolve(initial), close: () => agent.destroy() };
  }
  const cacheMs = options.authCacheMs ?? 10_000;
  let cached = { headers: initial, at: Date.now() };
  return {
    server,
    agent,
    serverTls,
    identity,
    async authHeaders() {
      if (Date.now() - cached.at < cacheMs) return cached.headers;
      const fresh: https.RequestOptions = {};
      await kc.applyToHTTPSOptions(fresh);
      cached = { headers: headersOf(fresh), at: Date.now() };
      return cached.headers;
    },
    invalidateAuth() {
      cached = { headers: cached.headers, at: 0 };
    },
    close: () => agent.destroy(),
  };
}

/**
 * A connection to the same server that carries no client certificate and no admin
 * credentials: only the headers `authHeaders` returns (e.g. a ServiceAccount bearer token).
 * All such connections may share one agent, since their TLS identity is the same (anonymous).
 */
export function bearerConnection(
  base: Pick<Connection, 'server' | 'serverTls'>,
  agent: http.Agent,
  identity: string,
  authHeaders: () => Promise<Record<string, string>>,
  invalidateAuth?: () => void,
): Connection {
  const conn: Connection = {
    server: base.server,
    agent,
    serverTls: base.serverTls,
    identity,
    authHeaders,
    // The agent is shared with other scoped identities; its owner closes it.
    close: () => undefined,
  };
  if (invalidateAuth !== undefined) conn.invalidateAuth = invalidateAuth;
  return conn;
}

/** Creates the keep-alive agent for credential-less connections to `base`'s server. */
export function anonymousAgent(base: Pick<Connection, 'server' | 'serverTls'>, options: ConnectionOptions = {}): http.Agent {
  return makeAgent(base.server, base.serverTls, options);
}

function makeAgent(server: URL, tls: ServerTls & { cert?: Buffer | undefined; key?: Buffer | undefined }, options: ConnectionOptions): http.Agent {
  const common = { keepAlive: true, keepAliveMsecs: 30_000, maxSockets: options.maxSockets ?? 64, maxFreeSockets: 8 };
  if (server.protocol === 'http:') return new http.Agent(common);
  const agentOpts: https.AgentOptions = { ...common };
  if (tls.ca !== undefined) agentOpts.ca = tls.ca;
  if (tls.cert !== undefined) agentOpts.cert = tls.cert;
  if (tls.key !== undefined) agentOpts.key = tls.key;
  if (tls.servername !== undefined) agentOpts.servername = tls.servername;
  if (tls.rejectUnauthorized !== undefined) agentOpts.rejectUnauthorized = tls.rejectUnauthorized;
  return new https.Agent(agentOpts);
}

// Auth headers client-node computed (Authorization, Impersonate-User) plus basic auth,
// which it puts into `opts.auth` instead of a header.
function headersOf(opts: https.RequestOptions): Record<string, string> {
  const out: Record<string, string> = {};
  const raw = opts.headers ?? {};
  for (const [k, v] of Object.entries(raw)) {
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  if (typeof opts.auth === 'string' && opts.auth !== '') {
    out.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
  }
  return out;
}

/** Everything that talks to the API server as the controller itself. */
export interface KubeContext {
  connection: Connection;
  transport: Transport;
  mapper: ResourceMapper;
  client: KubeClient;
  /** Closes the connection's sockets. */
  close(): void;
}

/** Loads credentials from `source` and builds connection, transport, mapper and client. */
export async function connect(source: KubeConfigSource, options: TransportOptions & ConnectionOptions = {}): Promise<KubeContext> {
  const connection = await connectionFromKubeConfig(loadKubeConfig(source), options);
  const transport = createTransport(connection, options);
  const mapper = createResourceMapper(transport);
  const client = createKubeClient(transport, mapper);
  return { connection, transport, mapper, client, close: () => connection.close() };
}
