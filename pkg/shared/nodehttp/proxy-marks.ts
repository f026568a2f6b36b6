/**
 * What the request layer (request.ts) needs to know about proxy agents (proxy-agents.ts),
 * kept apart so that neither imports the other: which sockets arrive fully established, and
 * which agents send plain-HTTP requests to a proxy.
 */
import type { Agent } from 'node:http';

/** Sockets handed to a request already connected (TCP to the proxy, CONNECT and TLS done). */
export const establishedSockets = new WeakSet<object>();

const httpProxies = new WeakMap<Agent, { authorization: string | undefined }>();

/** Records that `agent` sends its requests to an HTTP proxy with this `Proxy-Authorization`. */
export function markHttpProxyAgent(agent: Agent, authorization: string | undefined): void {
  httpProxies.set(agent, { authorization });
}

/**
 * How to send a request through `agent` when it is an HTTP proxy agent: the request line takes
 * the absolute URL and these headers are added. Undefined for any other agent.
 */
export function httpProxyRequest(agent: Agent, url: URL): { path: string; headers: Record<string, string> } | undefined {
  const proxy = httpProxies.get(agent);
  if (proxy === undefined) return undefined;
  const headers: Record<string, string> = proxy.authorization === undefined ? {} : { 'proxy-authorization': proxy.authorization };
  return { path: url.href, headers };
}
