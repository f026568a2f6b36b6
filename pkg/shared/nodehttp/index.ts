/**
 * The one HTTP client layer of the project: `node:http` without the cost of its ES module
 * namespace (http.ts), keep-alive agents per CA bundle and TLS material (agents.ts), certificate
 * directories as upstream reads them (cert-dir.ts), and sending a request
 * with the stale-socket retry, timeouts, aborts and Go-style error texts (request.ts), and
 * forward proxies chosen from HTTP(S)_PROXY/NO_PROXY values as Go chooses them (proxy-env.ts,
 * proxy-agents.ts). The image registry client, the catalogd content client and the Kubernetes
 * transport all use it; the Kubernetes transport never through a proxy.
 */
export { http } from './http.ts';
export { createAgentPool, type AgentPool, type ServerTlsOptions, type TlsMaterial } from './agents.ts';
export { caDirPem, checkRegistryCertDir, registryCertDir } from './cert-dir.ts';
export { createProxySelector, hasProxy, proxyEnvironment, redactProxy, type ProxyEnvironment, type ProxySelector } from './proxy-env.ts';
export { RequestTimeoutError, describeRequest, sendRequest } from './request.ts';
