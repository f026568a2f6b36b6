import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Manifest } from '../../operator-controller/release/index.ts';
import { startTestConsole, type TestConsole } from '../../../test/support/console-routes.ts';

const listed: string[] = [];
let c: TestConsole;
beforeAll(async () => {
  c = await startTestConsole({
    releaseHistory: async (name) =>
      name !== 'rel'
        ? []
        : [
            {
              extension: 'rel',
              extensionUID: 'u-r',
              revision: 1,
              status: 'deployed',
              namespace: 'ops',
              bundle: { package: 'p', name: 'p.v1', version: '1.0.0', image: 'r/p' },
              manifest: Manifest.ofObjects([
                { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'op' } },
                { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ops' } },
              ]),
              properties: [],
              description: 'Install complete',
            },
          ],
    objectScope: async () => true,
    getObject: async (ref) => (ref.kind === 'Deployment' ? { spec: { selector: { matchLabels: { app: 'op' } } } } : {}),
    listPods: async (namespace, selector) => {
      listed.push(`${namespace} ${selector}`);
      return [{ metadata: { namespace, name: 'op-1' }, spec: { nodeName: 'n', containers: [{ name: 'manager' }] }, status: { phase: 'Running' } }];
    },
    podLog: async (namespace, pod, container) => `log of ${namespace}/${pod} ${container}\n<script>`,
  });
});
afterAll(() => c.close());
const get = (path: string) => c.get(path);

describe("an extension's Pods and logs", () => {
  it("lists the Pods its Deployments' selectors pick, in the release's namespace", async () => {
    const res = await get('/api/extensions/rel/pods');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      pods: [
        {
          namespace: 'ops',
          name: 'op-1',
          deployment: 'op',
          phase: 'Running',
          reason: '',
          ready: '0/1',
          restarts: 0,
          node: 'n',
          containers: ['manager'],
        },
      ],
      problems: [],
    });
    expect(listed).toEqual(['ops app=op']);
  });

  it('answers the log of a container of one of those Pods as text in JSON, and nothing of any other Pod or container', async () => {
    expect(await (await get('/api/extensions/rel/pods/ops/op-1/log?container=manager')).json()).toEqual({
      pod: 'ops/op-1',
      container: 'manager',
      log: 'log of ops/op-1 manager\n<script>',
    });
    expect((await get('/api/extensions/rel/pods/kube-system/etcd/log')).status).toBe(404);
    expect((await get('/api/extensions/rel/pods/ops/op-1/log?container=other')).status).toBe(400);
  });
});
