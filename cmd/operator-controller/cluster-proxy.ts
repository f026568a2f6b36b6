/**
 * The cluster-wide proxy operator-controller sets in installed operators' Deployments
 * (decision 0132): the OpenShift Proxy object `cluster` where that API is served (watched: a
 * change queues every extension), else operator-controller's own proxy environment.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import {
  OPENSHIFT_PROXY,
  WatchedClusterProxy,
  fixedClusterProxy,
  type ClusterProxySource,
} from '../../pkg/operator-controller/clusterproxy/index.ts';
import { isNoKindMatch, settlesWithin, type Informer, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import type { OperatorControllerOptions } from './options.ts';

/** How long the first renderings wait for the Proxy object to be listed. */
const PROXY_LIST_WAIT_MS = 10_000;

/** What the source is built from. */
interface ClusterProxyDeps {
  kube: Pick<KubeContext, 'client'> & { mapper: Pick<KubeContext['mapper'], 'resolve'> };
  /** Whose names are queued when the proxy changes: every extension. */
  extensions: Pick<Informer<KubeObject>, 'keys'>;
  log: Logger;
  registry?: Registry;
}

/**
 * The source, running until `signal` aborts. Where the Proxy API is served (asked once, when
 * leading starts), it resolves once the object has been listed (or after PROXY_LIST_WAIT_MS,
 * logged): an extension rendered before would be rendered again at once, a revision too many.
 */
export async function clusterProxySource(
  o: Pick<OperatorControllerOptions, 'proxy'>,
  d: ClusterProxyDeps,
  enqueue: (name: string) => void,
  signal: AbortSignal,
): Promise<ClusterProxySource> {
  const [group = '', version = ''] = OPENSHIFT_PROXY.apiVersion.split('/');
  const served = await d.kube.mapper.resolve({ group, version, kind: OPENSHIFT_PROXY.kind }, signal).then(
    () => true,
    (err: unknown) => {
      // Not served is the answer elsewhere; a discovery failure is taken for it too (as for the
      // other optional kinds asked when leading starts), and said.
      if (!isNoKindMatch(err) && !signal.aborted) d.log.warn({ err }, 'discovery of the cluster-wide Proxy kind failed, using the proxy environment');
      return false;
    },
  );
  if (!served) return fixedClusterProxy(o.proxy);
  const watched = new WatchedClusterProxy({
    client: d.kube.client,
    log: d.log,
    ...(d.registry === undefined ? {} : { registry: d.registry }),
    onChange: () => {
      for (const name of d.extensions.keys()) enqueue(name);
    },
  });
  void watched.run(signal);
  if (!(await settlesWithin(watched.waitForSync(signal), PROXY_LIST_WAIT_MS))) {
    d.log.warn({ waitedMs: PROXY_LIST_WAIT_MS }, 'the cluster-wide proxy is not listed yet, rendering without it until it is');
  }
  return watched;
}
