import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NoKindMatchError } from '../../pkg/shared/kube/index.ts';
import { fakeCluster } from '../../test/support/fake-cluster.ts';
import { clusterProxySource } from './cluster-proxy.ts';

const log = pino({ level: 'silent' });
const ENV = { httpProxy: 'http://env:3128', httpsProxy: '', noProxy: '.svc' };
const PROXY = { apiVersion: 'config.openshift.io/v1', kind: 'Proxy', metadata: { name: 'cluster' }, spec: {} };

let stop = new AbortController();
afterEach(() => {
  stop.abort();
  stop = new AbortController();
});

/** The deps over `cluster`, the Proxy kind served or not, with extensions a and b. */
function deps(cluster: ReturnType<typeof fakeCluster>, served: boolean) {
  const asked: unknown[] = [];
  const resolve = (kind: unknown) => {
    asked.push(kind);
    const gvk = { group: 'config.openshift.io', version: 'v1', kind: 'Proxy' };
    return served
      ? Promise.resolve({ ...gvk, resource: 'proxies', namespaced: false, verbs: ['list', 'watch'] })
      : Promise.reject(new NoKindMatchError(gvk));
  };
  return { asked, d: { kube: { client: cluster.client, mapper: { resolve } }, extensions: { keys: () => ['a', 'b'] }, log } };
}

describe('clusterProxySource', () => {
  it('where the Proxy API is not served: operator-controller’s own proxy environment, read nothing else', async () => {
    const cluster = fakeCluster();
    const { asked, d } = deps(cluster, false);
    const source = await clusterProxySource({ proxy: ENV }, d, () => undefined, stop.signal);
    expect(asked).toEqual([{ group: 'config.openshift.io', version: 'v1', kind: 'Proxy' }]);
    expect(source.current()).toEqual(ENV);
    expect(cluster.calls).toEqual([]);
    // In-process, without a proxy environment: none.
    expect((await clusterProxySource({}, d, () => undefined, stop.signal)).current()).toEqual({ httpProxy: '', httpsProxy: '', noProxy: '' });
  });

  it('where it is served: the Proxy object (not the environment), listed before it resolves; a change queues every extension', async () => {
    const cluster = fakeCluster();
    cluster.seed({ ...PROXY, status: { httpProxy: 'http://p:3128', httpsProxy: 'http://p:3129', noProxy: '.cluster.local' } });
    const { d } = deps(cluster, true);
    const queued: string[] = [];
    const source = await clusterProxySource({ proxy: ENV }, d, (n) => queued.push(n), stop.signal);
    expect(source.current()).toEqual({ httpProxy: 'http://p:3128', httpsProxy: 'http://p:3129', noProxy: '.cluster.local' });
    await vi.waitFor(() => expect(cluster.calls).toContain('watch Proxy'));
    queued.length = 0;
    cluster.edit(PROXY, (live) => {
      live['status'] = { httpProxy: '', httpsProxy: 'http://q:1', noProxy: '' };
    });
    await vi.waitFor(() => expect(queued).toEqual(['a', 'b']));
    expect(source.current()).toEqual({ httpProxy: '', httpsProxy: 'http://q:1', noProxy: '' });
  });
});
