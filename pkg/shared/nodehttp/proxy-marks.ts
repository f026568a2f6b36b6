/**
 * What request.ts needs to know about proxy agents (proxy-agents.ts), apart so neither imports
 * the other: which sockets arrive established, which agents send plain HTTP to a proxy.
 */
import type { Agent } from 'node:http';

/** Sockets handed to a request already connected (TCP to the proxy, CONNECT and TLS done). */
export const establishedSockets = new WeakSet<object>();

const httpProxies = new WeakMap<Agent, { authorization: string | undefined }>();

/** Records that `agent` sends its requests to an HTTP proxy with this `Proxy-Authorization`. */
export function markHttpProxyAgent(agent: Agent, authorization: string | undefined): void {
  httpProxies.set(agent, { authorization });
}

/** For an HTTP proxy agent: the absolute URL as request path and the headers to add. */
export function httpProxyRequest(agent: Agent, url: URL): { path: string; headers: Record<string, string> } | undefined {
  const proxy = httpProxies.get(agent);
  if (proxy === undefined) return undefined;
  const headers: Record<string, string> = proxy.authorization === undefined ? {} : { 'proxy-authorization': proxy.authorization };
  return { path: url.href, headers };
}
