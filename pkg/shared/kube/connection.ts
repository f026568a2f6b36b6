/**
 * A Connection is what the raw transport needs to talk to one API server as one identity: the
 * server URL, one keep-alive agent for requests, a WatchChannel for watches (which so never take
 * the sockets requests need, decision 0065), and the authentication headers. A kubeconfig
 * `proxy-url` applies to all of them and to the credential-less connections built on them.
 *
 * Only exec and auth-provider plugins are evaluated through client-node, imported on demand;
 * its agents are discarded, one agent per identity never leaks sockets (decision 0061).
 */
import { readFile } from 'node:fs/promises';
import type { Agent } from 'node:http';
import type https from 'node:https';
import { createAgentPool, type ServerTlsOptions } from '../nodehttp/index.ts';
import type { KubeAuth, ResolvedKubeConfig } from './kubeconfig.ts';
import { createWatchChannel, type WatchChannel } from './watch-channel.ts';

/** TLS settings of the server side of a connection, shared by identities on the same server. */
type ServerTls = Omit<ServerTlsOptions, 'cert' | 'key'>;

/**
 * One identity on one API server. `authHeaders()` is called per request (it caches);
 * `invalidateAuth()` drops cached credentials after a 401, for one retry with fresh ones.
 */
export interface Connection {
  /** Base URL of the API server (may carry a path prefix). */
  readonly server: URL;
  /** The keep-alive agent every request (but no watch) of this identity goes through. */
  readonly agent: Agent;
  /** Where this identity's watches go (HTTP/2 sessions over TLS), never through `agent`. */
  readonly watches: WatchChannel;
  /** TLS trust of the server, reused to build credential-less (scoped) connections. */
  readonly serverTls: ServerTls;
  /** The forward proxy (kubeconfig `proxy-url`) every request and watch goes through, if any. */
  readonly proxy?: URL | undefined;
  /** Short description for logs, never a secret (e.g. `kubeconfig user admin`). */
  readonly identity: string;
  authHeaders(): Promise<Record<string, string>>;
  invalidateAuth?: () => void;
  /** Closes the agent's sockets and the watch sessions; the connection must not be used afterwards. */
  close(): void;
}

/** Tuning of the connection's agent. */
export interface ConnectionOptions {
  /** Upper bound of parallel request sockets to the server (default 64; watches hold none). */
  maxSockets?: number;
  /** How long dynamic auth headers (exec plugins, token files) are reused (default 10 s). */
  authCacheMs?: number;
}

/**
 * Builds the admin Connection of a resolved kubeconfig. Static credentials are fixed; token
 * files and plugins are re-evaluated (cached `authCacheMs`, dropped on a 401) to follow rotation.
 */
export async function connectionFromKubeConfig(kc: ResolvedKubeConfig, options: ConnectionOptions = {}): Promise<Connection> {
  const server = new URL(kc.server);
  const serverTls: ServerTls = { ca: kc.ca, servername: kc.servername, rejectUnauthorized: kc.rejectUnauthorized };
  const identity = `kubeconfig user ${kc.userName === '' ? '(none)' : kc.userName}`;
  const plugin = kc.auth.kind === 'plugin' ? await pluginCredentials(kc.auth) : undefined;
  const tls = { ...serverTls, cert: plugin?.cert ?? kc.cert, key: plugin?.key ?? kc.key };
  const proxy = kc.proxy;
  const { agent, watches, close } = openChannels(server, tls, options, proxy);
  const fetchHeaders = headerSource(kc.auth, plugin);
  if (fetchHeaders === undefined) {
    const fixed = kc.auth.kind === 'static' ? kc.auth.headers : {};
    return { server, agent, watches, serverTls, proxy, identity, authHeaders: () => Promise.resolve(fixed), close };
  }
  const cacheMs = options.authCacheMs ?? 10_000;
  let cached: { headers: Record<string, string>; at: number } | undefined;
  return {
    server,
    agent,
    watches,
    serverTls,
    proxy,
    identity,
    async authHeaders() {
      if (cached === undefined || Date.now() - cached.at >= cacheMs) cached = { headers: await fetchHeaders(), at: Date.now() };
      return cached.headers;
    },
    invalidateAuth() {
      cached = undefined;
    },
    close,
  };
}

/** Re-evaluates credentials that can change (token files, plugins); undefined for static ones. */
function headerSource(auth: KubeAuth, plugin: PluginCredentials | undefined): (() => Promise<Record<string, string>>) | undefined {
  if (auth.kind === 'tokenFile') {
    return async () => {
      const token = (await readFile(auth.path, 'utf8')).trim();
      return { ...auth.extraHeaders, Authorization: `Bearer ${token}` };
    };
  }
  return plugin?.headers;
}

interface PluginCredentials {
  cert: Buffer | undefined;
  key: Buffer | undefined;
  headers: () => Promise<Record<string, string>>;
}

// exec and auth-provider plugins are evaluated by client-node, loaded only here.
async function pluginCredentials(auth: Extract<KubeAuth, { kind: 'plugin' }>): Promise<PluginCredentials> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  if ('path' in auth.kubeconfig) kc.loadFromFile(auth.kubeconfig.path);
  else kc.loadFromString(auth.kubeconfig.yaml);
  kc.setCurrentContext(auth.context);
  const evaluate = async (): Promise<https.RequestOptions> => {
    const opts: https.RequestOptions = {};
    await kc.applyToHTTPSOptions(opts);
    return opts;
  };
  const first = await evaluate();
  return { cert: first.cert as Buffer | undefined, key: first.key as Buffer | undefined, headers: async () => headersOf(await evaluate()) };
}

/** The request agent and watch channel credential-less connections to one server share. */
interface SharedChannels {
  readonly agent: Agent;
  readonly watches: WatchChannel;
  /** Closes both; connections using them must not be used afterwards. */
  close(): void;
}

/**
 * A connection to the same server without client certificate or admin credentials, only the
 * headers `authHeaders` returns; all such connections may share one agent and watch channel.
 */
export function bearerConnection(
  base: Pick<Connection, 'server' | 'serverTls' | 'proxy'>,
  channels: Pick<SharedChannels, 'agent' | 'watches'>,
  identity: string,
  authHeaders: () => Promise<Record<string, string>>,
  invalidateAuth?: () => void,
): Connection {
  const conn: Connection = {
    server: base.server,
    agent: channels.agent,
    watches: channels.watches,
    serverTls: base.serverTls,
    proxy: base.proxy,
    identity,
    authHeaders,
    // The channels are shared with other scoped identities; their owner closes them.
    close: () => undefined,
  };
  if (invalidateAuth !== undefined) conn.invalidateAuth = invalidateAuth;
  return conn;
}

/** Creates the request agent and watch channel for credential-less connections to `base`'s server (through its proxy). */
export function anonymousChannels(base: Pick<Connection, 'server' | 'serverTls' | 'proxy'>, options: ConnectionOptions = {}): SharedChannels {
  return openChannels(base.server, base.serverTls, options, base.proxy);
}

// A proxy-url applies to every request to the server, loopback included, as Go's
// http.ProxyURL does: the selector ignores the target.
function openChannels(server: URL, tls: ServerTlsOptions, options: ConnectionOptions, proxy: URL | undefined): SharedChannels {
  const agent = createAgentPool({
    maxSockets: options.maxSockets ?? 64,
    maxFreeSockets: 8,
    keepAliveMsecs: 30_000,
    tls,
    proxy: proxy === undefined ? undefined : () => proxy,
  }).agentFor(server);
  const watches = createWatchChannel(server, tls, proxy === undefined ? {} : { proxy });
  return {
    agent,
    watches,
    close() {
      agent.destroy();
      watches.close();
    },
  };
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
