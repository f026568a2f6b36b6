import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';
import type { ClusterProxy } from '../render/index.ts';
import { OPENSHIFT_PROXY, WatchedClusterProxy, fixedClusterProxy } from './index.ts';

const log = pino({ level: 'silent' });
const NONE: ClusterProxy = { httpProxy: '', httpsProxy: '', noProxy: '' };

function proxy(name: string, status: Record<string, unknown> | undefined) {
  return {
    apiVersion: OPENSHIFT_PROXY.apiVersion,
    kind: OPENSHIFT_PROXY.kind,
    metadata: { name },
    spec: {},
    ...(status === undefined ? {} : { status }),
  };
}

let stop = new AbortController();
afterEach(() => {
  stop.abort();
  stop = new AbortController();
});

describe('fixedClusterProxy', () => {
  it('is the given proxy for good, none when undefined', () => {
    const given = { httpProxy: 'http://p:1', httpsProxy: '', noProxy: '.svc' };
    expect(fixedClusterProxy(given).current()).toEqual(given);
    expect(fixedClusterProxy(undefined).current()).toEqual(NONE);
  });
});

describe('WatchedClusterProxy', () => {
  it('reads the status of Proxy cluster only, and reports each change of its values', async () => {
    const cluster = fakeCluster();
    cluster.seed(proxy('cluster', { httpProxy: 'http://p:3128', httpsProxy: 'http://p:3129', noProxy: '.cluster.local', extra: 1 }));
    cluster.seed(proxy('other', { httpProxy: 'http://elsewhere:1' }));
    const changes: ClusterProxy[] = [];
    const source = new WatchedClusterProxy({ client: cluster.client, log, onChange: (p) => changes.push(p) });
    expect(source.current()).toEqual(NONE);
    void source.run(stop.signal);
    await source.waitForSync(stop.signal);
    expect(source.current()).toEqual({ httpProxy: 'http://p:3128', httpsProxy: 'http://p:3129', noProxy: '.cluster.local' });
    // The first listing is a change from none.
    expect(changes).toHaveLength(1);
    await vi.waitFor(() => expect(cluster.calls).toContain('watch Proxy'));

    // A change elsewhere in the object is not a change of the proxy.
    cluster.edit(proxy('cluster', undefined), (live) => {
      live['spec'] = { trustedCA: { name: 'ca' } };
    });
    cluster.edit(proxy('cluster', undefined), (live) => {
      (live['status'] as Record<string, unknown>)['httpsProxy'] = '';
    });
    await vi.waitFor(() => expect(changes).toHaveLength(2));
    expect(changes[1]).toEqual({ httpProxy: 'http://p:3128', httpsProxy: '', noProxy: '.cluster.local' });
    expect(source.current()).toEqual(changes[1]);

    // Another Proxy object is not watched.
    cluster.edit(proxy('other', undefined), (live) => {
      live['status'] = { httpProxy: 'http://changed:1' };
    });
    await cluster.client.delete({ apiVersion: OPENSHIFT_PROXY.apiVersion, kind: OPENSHIFT_PROXY.kind, name: 'cluster' });
    await vi.waitFor(() => expect(changes).toHaveLength(3));
    expect(changes[2]).toEqual(NONE);
    expect(source.current()).toEqual(NONE);
  });

  it('takes values that are not strings for unset', async () => {
    const cluster = fakeCluster();
    cluster.seed(proxy('cluster', { httpProxy: 3128, httpsProxy: null, noProxy: ['a'] }));
    const source = new WatchedClusterProxy({ client: cluster.client, log, onChange: () => undefined });
    void source.run(stop.signal);
    await source.waitForSync(stop.signal);
    expect(source.current()).toEqual(NONE);
  });
});
