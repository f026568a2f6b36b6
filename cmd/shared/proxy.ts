/**
 * HTTPS_PROXY, HTTP_PROXY and NO_PROXY, read once as Go's http.ProxyFromEnvironment reads them
 * (pkg/shared/nodehttp), for registry traffic and requests to catalogd; never for the Kubernetes
 * API (decision 0093).
 */
import type { Logger } from 'pino';
import {
  type ProxyEnvironment,
  type ProxySelector,
  createProxySelector,
  hasProxy,
  proxyEnvironment,
  redactProxy,
} from '../../pkg/shared/nodehttp/index.ts';

/**
 * The proxy variables of `env`.
 * @throws Error naming the variable when a proxy value is unusable (a usage error at start-up).
 */
export function readProxyEnvironment(env: NodeJS.ProcessEnv): ProxyEnvironment {
  const e = proxyEnvironment(env);
  createProxySelector(e);
  return e;
}

/** The selector of `e`, or undefined when no proxy is set; logs where traffic goes. */
export function proxySelector(e: ProxyEnvironment, log?: Pick<Logger, 'info'>): ProxySelector | undefined {
  if (!hasProxy(e)) return undefined;
  const select = createProxySelector(e);
  // Valid by now (readProxyEnvironment); passwords are not logged.
  const shown = (value: string): string | undefined =>
    value === '' ? undefined : redactProxy(new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`));
  log?.info({ httpsProxy: shown(e.httpsProxy), httpProxy: shown(e.httpProxy), noProxy: e.noProxy }, 'using the proxy of the environment');
  return select;
}
