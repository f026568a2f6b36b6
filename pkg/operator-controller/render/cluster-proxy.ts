/**
 * The cluster-wide proxy in an operator's Deployments, with OLM classic's rules (decision 0132):
 *
 * - `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` (upper case) are set in every container of
 *   every Deployment the bundle renders; init containers are left as they are (OLM classic
 *   touches `containers` only);
 * - a variable whose cluster-wide value is empty is not set;
 * - a container's own variable of the same name is replaced in place, the others are appended
 *   after the container's variables and the `deploymentConfig` ones;
 * - the three go together: when the extension's `deploymentConfig.env` names any of them, none
 *   of the cluster-wide values is set, and the `deploymentConfig` values stand alone (an empty
 *   value there is "no proxy for this operator"), as a Subscription's `spec.config.env` does in
 *   OLM classic.
 */
import type { JsonObject, KubeObject } from '../bundle/index.ts';
import type { DeploymentConfig } from './bundle-config.ts';
import { mergeByName } from './deployment-config.ts';

/** The cluster-wide proxy: the three values, each empty when unset. */
export interface ClusterProxy {
  httpProxy: string;
  httpsProxy: string;
  noProxy: string;
}

/** The variables, upper case only, as OLM classic sets them. */
const PROXY_VARIABLES = ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY'] as const;

/** The variables `proxy` sets: those with a value. */
function clusterProxyEnv(proxy: ClusterProxy): JsonObject[] {
  const values = [proxy.httpProxy, proxy.httpsProxy, proxy.noProxy];
  return PROXY_VARIABLES.flatMap((name, i) => (values[i] === '' || values[i] === undefined ? [] : [{ name, value: values[i] }]));
}

/** Whether `dc` sets any of the proxy variables itself (then none of the cluster-wide ones applies). */
function overridesClusterProxy(dc: DeploymentConfig | undefined): boolean {
  const names = new Set((dc?.env ?? []).map((e) => e['name']));
  return PROXY_VARIABLES.some((n) => names.has(n));
}

/** Sets `proxy`'s variables in `containers` (fresh copies, changed in place) unless `dc` overrides them. */
export function applyClusterProxy(containers: readonly JsonObject[], proxy: ClusterProxy, dc: DeploymentConfig | undefined): void {
  const env = clusterProxyEnv(proxy);
  if (env.length === 0 || overridesClusterProxy(dc)) return;
  for (const c of containers) c['env'] = mergeByName(Array.isArray(c['env']) ? (c['env'] as JsonObject[]) : [], env);
}

/**
 * The cluster-wide proxy a rendering (`objects`) was made with, as far as it tells: each variable
 * whose value is the same in every container of every Deployment (a variable one container lacks
 * was the bundle's own, or unset). For a plan made outside the controller (`olmv1 upgrade plan`),
 * which cannot see where the controller reads the proxy: the installed release's proxy is the
 * current one, since a change renders every extension again at once.
 */
export function renderedClusterProxy(objects: readonly KubeObject[]): ClusterProxy {
  const containers = objects
    .filter((o) => o.kind === 'Deployment')
    .flatMap((o) => {
      const spec = ((o['spec'] as JsonObject | undefined)?.['template'] as JsonObject | undefined)?.['spec'] as JsonObject | undefined;
      return Array.isArray(spec?.['containers']) ? (spec['containers'] as JsonObject[]) : [];
    });
  const common = (name: string): string => {
    const values = containers.map((c) => (Array.isArray(c['env']) ? (c['env'] as JsonObject[]) : []).find((e) => e['name'] === name)?.['value']);
    const first = values[0];
    return typeof first === 'string' && values.every((v) => v === first) ? first : '';
  };
  return { httpProxy: common('HTTP_PROXY'), httpsProxy: common('HTTPS_PROXY'), noProxy: common('NO_PROXY') };
}
