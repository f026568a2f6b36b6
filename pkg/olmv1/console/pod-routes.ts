/**
 * The operator's Pods and their logs on an extension's page (issue 71): the Pods the Deployments
 * of the installed release select, and the last lines of one container's log, each read as the
 * user (RBAC decides; a refusal is shown in the API server's words). Only Pods of the extension's
 * Deployments are answered: this is not a general log viewer.
 */
import { errorMessage } from '../../shared/errors/index.ts';
import { json } from './api-routes.ts';
import { validName } from './admin.ts';
import { deploymentSelector, podRow, type PodRow } from './pods.ts';
import { installedRelease, readReleaseObjects } from './reads.ts';
import { route, type Route } from './routes.ts';
import type { ConsoleSources } from './sources.ts';

const NOT_AN_EXTENSION = { error: 'not a ClusterExtension name' };

/** The Pods of extension `name`'s Deployments, and what could not be read. */
async function extensionPods(sources: ConsoleSources, name: string, signal: AbortSignal): Promise<{ pods: PodRow[]; problems: string[] }> {
  const list = sources.listPods;
  if (list === undefined) throw Object.assign(new Error('this console cannot list Pods'), { status: 501 });
  const release = await installedRelease(sources, name, signal);
  if (release === undefined) return { pods: [], problems: [] };
  const problems: string[] = [];
  const pods: PodRow[] = [];
  for (const r of await readReleaseObjects(sources, release, signal)) {
    if (r.identity.kind !== 'Deployment' || r.identity.apiVersion !== 'apps/v1') continue;
    const where = `Deployment ${r.identity.namespace}/${r.identity.name}`;
    if (!('object' in r.read)) {
      problems.push(`${where}: ${r.read.error}`);
      continue;
    }
    const selector = deploymentSelector(r.read.object);
    if (selector === undefined) continue;
    try {
      for (const p of await list(r.identity.namespace, selector, signal)) pods.push(podRow(p, r.identity.name));
    } catch (e) {
      problems.push(`Pods of ${where}: ${errorMessage(e)}`);
    }
  }
  return { pods, problems };
}

/** The routes over the console's sources. */
export function podRoutes(sources: ConsoleSources): Route[] {
  const read = (): AbortSignal => AbortSignal.timeout(60_000);
  return [
    route({
      method: 'GET',
      path: '/api/extensions/:name/pods',
      handle: async ({ res, params }) => {
        const name = params.name ?? '';
        if (!validName(name)) return json(res, 400, NOT_AN_EXTENSION);
        json(res, 200, await extensionPods(sources, name, read()));
      },
    }),
    route({
      method: 'GET',
      path: '/api/extensions/:name/pods/:namespace/:pod/log',
      handle: async ({ res, params, query }) => {
        const name = params.name ?? '';
        if (!validName(name)) return json(res, 400, NOT_AN_EXTENSION);
        const log = sources.podLog;
        if (log === undefined) return json(res, 501, { error: 'this console cannot read logs' });
        const signal = read();
        const pod = (await extensionPods(sources, name, signal)).pods.find((p) => p.namespace === params.namespace && p.name === params.pod);
        if (pod === undefined) return json(res, 404, { error: `no Pod ${params.namespace ?? ''}/${params.pod ?? ''} of ClusterExtension ${name}` });
        const container = query.get('container') ?? pod.containers[0] ?? '';
        if (!pod.containers.includes(container))
          return json(res, 400, { error: `no container ${JSON.stringify(container)} in Pod ${pod.namespace}/${pod.name}` });
        json(res, 200, { pod: `${pod.namespace}/${pod.name}`, container, log: await log(pod.namespace, pod.name, container, signal) });
      },
    }),
  ];
}
