// An informer on a private control plane survives a kube-apiserver restart: what was created,
// changed or deleted around the outage (while its watch was broken and it was backing off)
// is delivered once the server is back, and its cache ends equal to the server's state.
import { Writable } from 'node:stream';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../envtest/index.ts';
import { Informer, clientListWatch, connect, stripManagedFields, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';

const NS = 'informer-restart';
const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
let cp: ControlPlane;
let kube: KubeContext;

beforeAll(async () => {
  cp = await startControlPlane({ binaries: inject('envtestBinaries') });
  kube = await connect({ kind: 'file', path: cp.info.kubeconfigPath });
  await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
});
afterAll(async () => {
  kube?.close();
  await cp?.stop();
});

function configMap(name: string, value: string): KubeObject {
  return { ...CM, metadata: { name, namespace: NS }, data: { value } };
}

async function until(what: string, cond: () => boolean, timeoutMs = 60_000): Promise<void> {
  await expect.poll(cond, { timeout: timeoutMs, interval: 50, message: `waiting for ${what}` }).toBe(true);
}

describe('Informer across a kube-apiserver restart', () => {
  it('delivers every change made around the outage and converges to the server state', async () => {
    for (const n of ['keep', 'change', 'remove']) await kube.client.create(configMap(n, 'v1'));

    const messages: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _e, cb) {
        messages.push(
          ...chunk
            .toString()
            .split('\n')
            .filter(Boolean)
            .map((l) => (JSON.parse(l) as { msg: string }).msg),
        );
        cb();
      },
    });
    const registry = new Registry();
    const informer = new Informer<KubeObject>({
      name: 'configmaps',
      source: clientListWatch(kube.client, CM, { namespace: NS }),
      log: pino({ level: 'info' }, sink),
      registry,
      transform: stripManagedFields,
      // A fixed, long-ish backoff keeps the informer disconnected for a while after the
      // restart, so the changes below happen while nobody is watching.
      backoff: { initialMs: 4_000, maxMs: 4_000, random: () => 0 },
      watchdogMs: 60_000,
      resyncPeriodMs: 0,
    });
    const events: string[] = [];
    informer.addHandler((type, obj) => events.push(`${type} ${obj.metadata.name} ${(obj.data as { value?: string } | undefined)?.value ?? ''}`));
    const ctl = new AbortController();
    const running = informer.run(ctl.signal);
    await informer.waitForSync(AbortSignal.timeout(30_000));
    expect(events.sort()).toEqual(['add change v1', 'add keep v1', 'add remove v1']);
    expect(Object.isFrozen(informer.get(`${NS}/keep`))).toBe(true);
    expect(informer.get(`${NS}/keep`)?.metadata.managedFields).toBeUndefined();
    events.length = 0;

    await cp.restartApiServer();
    // Changes right after the server is back, while the informer is still backing off.
    await kube.client.create(configMap('created', 'v1'));
    await kube.client.patch({ ...CM, namespace: NS, name: 'change' }, { data: { value: 'v2' } }, 'merge');
    await kube.client.delete({ ...CM, namespace: NS, name: 'remove' });
    const failuresSeen = messages.filter((m) => m === 'informer failed, restarting after backoff').length;
    expect(failuresSeen).toBeGreaterThan(0);

    await until('the changes to arrive', () => events.length >= 3);
    expect(events.sort()).toEqual(['add created v1', 'delete remove v1', 'update change v2']);

    // The cache matches the server exactly, and a later change still streams in.
    const server = await kube.client.listAll(CM, { namespace: NS });
    const serverState = Object.fromEntries(server.items.map((o) => [o.metadata.name, o.metadata.resourceVersion]));
    const cacheState = Object.fromEntries(informer.list().map((o) => [o.metadata.name, o.metadata.resourceVersion]));
    expect(cacheState).toEqual(serverState);
    await kube.client.patch({ ...CM, namespace: NS, name: 'keep' }, { data: { value: 'v3' } }, 'merge');
    await until('a post-restart watch event', () => events.includes('update keep v3'));

    const restarts = await registry.getSingleMetric('informer_restarts_total')?.get();
    expect(restarts?.values.reduce((n, v) => n + v.value, 0)).toBeGreaterThan(0);
    ctl.abort();
    await running;
  });
});
