/**
 * Where operator-controller takes the cluster-wide proxy it sets in installed operators'
 * Deployments (decision 0132): the OpenShift Proxy object `cluster` where that API is served,
 * watched, so that a change queues every extension to be rendered again; elsewhere
 * operator-controller's own proxy environment, fixed for the life of the process (a change is
 * a restart, after which every extension is rendered again anyway).
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { Informer, clientListWatch, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import type { ClusterProxy } from '../render/index.ts';
import { NO_PROXY, OPENSHIFT_PROXY, proxyOf, sameProxy } from './proxy-object.ts';

/** The cluster-wide proxy as of now. */
export interface ClusterProxySource {
  current(): ClusterProxy;
}

/** A proxy that never changes (operator-controller's own environment); none when undefined. */
export function fixedClusterProxy(proxy: ClusterProxy | undefined): ClusterProxySource {
  const value = proxy === undefined ? NO_PROXY : { ...proxy };
  return { current: () => value };
}

/** What the watched source is built from. */
interface WatchedProxyOptions {
  /** operator-controller's own identity (get, list, watch on proxies.config.openshift.io). */
  client: KubeClient;
  /** Called when the values change (not on a resync, nor on a change elsewhere in the object). */
  onChange: (proxy: ClusterProxy) => void;
  log: Logger;
  registry?: Registry;
}

/**
 * The Proxy object `cluster`, watched by name: `current()` is its status's values (none while
 * it is absent or not yet listed). Run it with `run`; `waitForSync` says when it has listed.
 */
export class WatchedClusterProxy implements ClusterProxySource {
  readonly #informer: Informer<KubeObject>;

  constructor(o: WatchedProxyOptions) {
    this.#informer = new Informer({
      name: 'proxies',
      source: clientListWatch(o.client, OPENSHIFT_PROXY, { fieldSelector: `metadata.name=${OPENSHIFT_PROXY.name}` }),
      log: o.log,
      ...(o.registry === undefined ? {} : { registry: o.registry }),
    });
    this.#informer.addHandler((type, obj, old) => {
      if (obj.metadata.name !== OPENSHIFT_PROXY.name) return;
      const now = type === 'delete' ? NO_PROXY : proxyOf(obj);
      const before = type === 'add' ? NO_PROXY : proxyOf(old);
      if (sameProxy(now, before)) return;
      o.log.info({ proxy: OPENSHIFT_PROXY.name }, 'cluster-wide proxy changed, rendering every extension again');
      o.onChange(now);
    });
  }

  current(): ClusterProxy {
    return proxyOf(this.#informer.get(OPENSHIFT_PROXY.name));
  }

  run(signal: AbortSignal): Promise<void> {
    return this.#informer.run(signal);
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    return this.#informer.waitForSync(signal);
  }
}
