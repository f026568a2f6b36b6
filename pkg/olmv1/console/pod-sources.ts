/** The operator's Pods and their logs, read as the user over `kube` (pod-routes.ts). */
import type { KubeContext } from '../../shared/kube/index.ts';

/** The last lines of a log a page shows, and at most this many bytes of them. */
const TAIL_LINES = 200;
const LIMIT_BYTES = 256 * 1024;

/** `listPods` and `podLog` of ConsoleSources over `kube`. */
export function podSources(kube: Pick<KubeContext, 'client' | 'transport'>) {
  return {
    listPods: async (namespace: string, labelSelector: string, signal: AbortSignal): Promise<unknown[]> =>
      (await kube.client.listAll({ apiVersion: 'v1', kind: 'Pod' }, { namespace, labelSelector, signal })).items,
    podLog: async (namespace: string, pod: string, container: string, signal: AbortSignal): Promise<string> => {
      const text = await kube.transport.request<unknown>(
        'GET',
        `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log`,
        {
          query: { container, tailLines: TAIL_LINES, limitBytes: LIMIT_BYTES },
          signal,
        },
      );
      return typeof text === 'string' ? text : '';
    },
  };
}
