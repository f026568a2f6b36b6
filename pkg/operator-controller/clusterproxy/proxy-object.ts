/**
 * The OpenShift cluster-wide proxy: `config.openshift.io/v1` Proxy `cluster`, read from its
 * status (where OpenShift writes the values it validated from the spec), as OLM classic reads it.
 */
import type { KubeObject } from '../../shared/kube/index.ts';
import type { ClusterProxy } from '../render/index.ts';

/** The one Proxy object OpenShift keeps: `config.openshift.io/v1` Proxy `cluster`. */
export const OPENSHIFT_PROXY = { apiVersion: 'config.openshift.io/v1', kind: 'Proxy', name: 'cluster' } as const;

/** No proxy. */
export const NO_PROXY: ClusterProxy = Object.freeze({ httpProxy: '', httpsProxy: '', noProxy: '' });

/** The proxy a Proxy object's status names; none for an absent object or a value that is not a string. */
export function proxyOf(obj: Readonly<KubeObject> | undefined): ClusterProxy {
  const status = obj?.['status'];
  if (typeof status !== 'object' || status === null) return NO_PROXY;
  const s = status as Record<string, unknown>;
  const text = (v: unknown): string => (typeof v === 'string' ? v : '');
  return { httpProxy: text(s['httpProxy']), httpsProxy: text(s['httpsProxy']), noProxy: text(s['noProxy']) };
}

/** Whether two proxies set the same values. */
export function sameProxy(a: ClusterProxy, b: ClusterProxy): boolean {
  return a.httpProxy === b.httpProxy && a.httpsProxy === b.httpsProxy && a.noProxy === b.noProxy;
}
