/**
 * Keep-alive agents of one HTTP client, by scheme, trust, TLS material and proxy. When a CA
 * provider's bundle, a destination's `tlsFor` material or its proxy changes, it gets a new agent;
 * the old one keeps its in-flight requests and closes each socket as it is released.
 */
import type { Agent, AgentOptions } from 'node:http';
import https from 'node:https';
import { http } from './http.ts';
import { createHttpProxyAgent, createTunnelAgent } from './proxy-agents.ts';
import type { ProxySelector } from './proxy-env.ts';

/** TLS of a single server (the Kubernetes API): `ca` replaces the system roots. */
export interface ServerTlsOptions {
  ca?: Buffer | string | undefined;
  cert?: Buffer | undefined;
  key?: Buffer | undefined;
  servername?: string | undefined;
  rejectUnauthorized?: boolean | undefined;
}

/** Settings of {@link createAgentPool}. */
export interface AgentPoolOptions {
  /** Sockets per origin (Infinity allowed). */
  maxSockets: number;
  /** Idle sockets kept per origin (Node's default 256 when unset). */
  maxFreeSockets?: number;
  /** TCP keep-alive probe delay of sockets (Node's default 1 s when unset). */
  keepAliveMsecs?: number;
  /** PEM trusted besides the system roots, or a provider read at each `agentFor`; not with `tls`. */
  caPem?: string | (() => string | undefined) | undefined;
  /** Fixed TLS settings of the HTTPS agent instead of `caPem`. */
  tls?: ServerTlsOptions | undefined;
  /** TLS material of one HTTPS destination, read at each `agentFor`, which throws what it throws. */
  tlsFor?: ((url: URL) => TlsMaterial | undefined) | undefined;
  /** The proxy of each request (proxy-env.ts); undefined or no selector: direct. */
  proxy?: ProxySelector | undefined;
  /** Bound of setting up one connection through a proxy (proxy, CONNECT, TLS); default 30 s. */
  proxyConnectTimeoutMs?: number | undefined;
}

/** Trust and identity for HTTPS to one destination. */
export interface TlsMaterial {
  /** Equal ids mean equal material (e.g. a digest of it): agents are kept while it stays the same. */
  id: string;
  /** PEM certificates trusted besides the system roots. */
  ca?: string | undefined;
  /** PEM client certificate and its key, presented when the server asks for one. */
  cert?: string | undefined;
  key?: string | undefined;
}

/** Go's net.Dialer timeout in http.DefaultTransport. */
const DEFAULT_PROXY_CONNECT_TIMEOUT_MS = 30_000;

/** The agents of one client. */
export interface AgentPool {
  /** The keep-alive agent for `url` (scheme, proxy, CA bundle, TLS material); throws as `tlsFor`. */
  agentFor(url: URL): Agent;
  /** Destroys every socket of every agent; `agentFor` builds fresh agents afterwards. */
  close(): void;
}

/** Creates the agents lazily, on the first request of each kind. */
export function createAgentPool(options: AgentPoolOptions): AgentPool {
  const common: AgentOptions = { keepAlive: true, maxSockets: options.maxSockets };
  if (options.maxFreeSockets !== undefined) common.maxFreeSockets = options.maxFreeSockets;
  if (options.keepAliveMsecs !== undefined) common.keepAliveMsecs = options.keepAliveMsecs;
  const connectTimeoutMs = options.proxyConnectTimeoutMs ?? DEFAULT_PROXY_CONNECT_TIMEOUT_MS;
  // Agents by kind: scheme, proxy and TLS material id. The extra CA of `caPem` is not part of
  // the key (it may be large); a new one retires every HTTPS agent.
  const agents = new Map<string, Agent>();
  const kindOfOrigin = new Map<string, string>();
  let secureCa: string | undefined;

  function create(url: URL, proxy: URL | undefined, material: TlsMaterial | undefined): Agent {
    if (url.protocol === 'http:') {
      return proxy === undefined ? new http.Agent(common) : createHttpProxyAgent({ proxy, agent: common, connectTimeoutMs });
    }
    const agent: https.AgentOptions = { ...common, ...tlsOptions(options.tls, secureCa, material) };
    return proxy === undefined ? new https.Agent(agent) : createTunnelAgent({ proxy, agent, connectTimeoutMs });
  }

  return {
    agentFor(url) {
      const secure = url.protocol !== 'http:';
      const proxy = options.proxy?.(url);
      const material = secure ? options.tlsFor?.(url) : undefined;
      if (secure) {
        const ca = typeof options.caPem === 'function' ? options.caPem() : options.caPem;
        if (ca !== secureCa) {
          for (const [kind, agent] of agents) if (kind.startsWith('https:')) retire(agents, kind, agent);
          secureCa = ca;
        }
      }
      const kind = `${url.protocol}|${proxy?.href ?? ''}|${material?.id ?? ''}`;
      const previous = kindOfOrigin.get(url.origin);
      if (previous !== kind) {
        kindOfOrigin.set(url.origin, kind);
        const stale = previous === undefined ? undefined : agents.get(previous);
        if (stale !== undefined && previous !== undefined && ![...kindOfOrigin.values()].includes(previous)) retire(agents, previous, stale);
      }
      let agent = agents.get(kind);
      if (agent === undefined) {
        agent = create(url, proxy, material);
        agents.set(kind, agent);
      }
      return agent;
    },
    close() {
      for (const agent of agents.values()) agent.destroy();
      agents.clear();
      kindOfOrigin.clear();
    },
  };
}

function tlsOptions(tls: ServerTlsOptions | undefined, ca: string | undefined, material: TlsMaterial | undefined): https.AgentOptions {
  const out: https.AgentOptions = {};
  if (tls !== undefined) {
    if (tls.ca !== undefined) out.ca = tls.ca;
    if (tls.cert !== undefined) out.cert = tls.cert;
    if (tls.key !== undefined) out.key = tls.key;
    if (tls.servername !== undefined) out.servername = tls.servername;
    if (tls.rejectUnauthorized !== undefined) out.rejectUnauthorized = tls.rejectUnauthorized;
    return out;
  }
  const extra = [ca, material?.ca].filter((pem): pem is string => pem !== undefined && pem !== '');
  // Read only here: the system roots are materialized on first access.
  if (extra.length > 0) out.ca = [...process.getBuiltinModule('node:tls').rootCertificates, ...extra];
  if (material?.cert !== undefined && material.key !== undefined) {
    out.cert = material.cert;
    out.key = material.key;
  }
  return out;
}

// Idle sockets go now; busy ones are destroyed when released (Node keeps no free socket
// beyond maxFreeSockets), so requests in flight on the old trust finish normally.
function retire(agents: Map<string, Agent>, kind: string, agent: Agent): void {
  agents.delete(kind);
  agent.maxFreeSockets = 0;
  for (const sockets of Object.values(agent.freeSockets)) for (const s of sockets ?? []) s.destroy();
}
