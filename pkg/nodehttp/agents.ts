/**
 * Keep-alive agents of one HTTP client: one for plain HTTP and one for HTTPS per trust
 * setting. With a CA provider the HTTPS agent is rebuilt when the provider returns a different
 * bundle; the replaced agent keeps its in-flight requests and closes each socket as it is
 * released, so a rotated CA never leaves a pool of idle sockets behind.
 */
import type { Agent, AgentOptions } from 'node:http';
import https from 'node:https';
import { http } from './http.ts';

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
  /**
   * PEM bundle trusted in addition to the system roots, or a provider read at each
   * `agentFor` (a changed bundle gets a new HTTPS agent). Not combined with `tls`.
   */
  caPem?: string | (() => string | undefined) | undefined;
  /** Fixed TLS settings of the HTTPS agent instead of `caPem`. */
  tls?: ServerTlsOptions | undefined;
}

/** The agents of one client. */
export interface AgentPool {
  /** The keep-alive agent for `url`'s scheme (and the current CA bundle for HTTPS). */
  agentFor(url: URL): Agent;
  /** Destroys every socket of every agent; `agentFor` builds fresh agents afterwards. */
  close(): void;
}

/** Creates the agents lazily, on the first request of each scheme. */
export function createAgentPool(options: AgentPoolOptions): AgentPool {
  const common: AgentOptions = { keepAlive: true, maxSockets: options.maxSockets };
  if (options.maxFreeSockets !== undefined) common.maxFreeSockets = options.maxFreeSockets;
  if (options.keepAliveMsecs !== undefined) common.keepAliveMsecs = options.keepAliveMsecs;
  let plain: Agent | undefined;
  let secure: { ca: string | undefined; agent: https.Agent } | undefined;

  function httpsAgent(): https.Agent {
    const ca = typeof options.caPem === 'function' ? options.caPem() : options.caPem;
    if (secure !== undefined && secure.ca === ca) return secure.agent;
    if (secure !== undefined) retire(secure.agent);
    const agent = new https.Agent({ ...common, ...tlsOptions(options.tls, ca) });
    secure = { ca, agent };
    return agent;
  }

  return {
    agentFor(url) {
      if (url.protocol !== 'http:') return httpsAgent();
      plain ??= new http.Agent(common);
      return plain;
    },
    close() {
      plain?.destroy();
      secure?.agent.destroy();
      plain = undefined;
      secure = undefined;
    },
  };
}

function tlsOptions(tls: ServerTlsOptions | undefined, ca: string | undefined): https.AgentOptions {
  const out: https.AgentOptions = {};
  if (tls !== undefined) {
    if (tls.ca !== undefined) out.ca = tls.ca;
    if (tls.cert !== undefined) out.cert = tls.cert;
    if (tls.key !== undefined) out.key = tls.key;
    if (tls.servername !== undefined) out.servername = tls.servername;
    if (tls.rejectUnauthorized !== undefined) out.rejectUnauthorized = tls.rejectUnauthorized;
  } else if (ca !== undefined && ca !== '') {
    // Read only here: the system roots are materialized on first access.
    out.ca = [...process.getBuiltinModule('node:tls').rootCertificates, ca];
  }
  return out;
}

// Idle sockets go now; busy ones are destroyed when released (Node keeps no free socket
// beyond maxFreeSockets), so requests in flight on the old trust finish normally.
function retire(agent: https.Agent): void {
  agent.maxFreeSockets = 0;
  for (const sockets of Object.values(agent.freeSockets)) for (const s of sockets ?? []) s.destroy();
}
