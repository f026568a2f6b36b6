// The installers' ServiceAccounts from a cache (decision 0155), over the in-memory cluster: the
// grant decides whether there is an informer, a cached installer is not read at validation, one
// missing from the cache is, and one created later queues the extensions it installs.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { KubeClient, KubeObject } from '../../shared/kube/index.ts';
import type { InformerHandler } from '../../shared/kube/index.ts';
import { fakeCluster, type FakeCluster } from '../../../test/support/fake-cluster.ts';
import { extensionState } from '../../../test/support/extension-state.ts';
import { InstallerIndex, watchInstallerAccounts } from './installer-accounts.ts';
import { validateStep } from './steps-validate.ts';
import { abortedAfterEach } from '../../../test/support/per-test.ts';

const log = pino({ level: 'silent' });
const aborted = abortedAfterEach();

/** The cluster's client answering SelfSubjectAccessReviews with `allowed`. */
function withReviews(cluster: FakeCluster, allowed: boolean): KubeClient {
  const create: KubeClient['create'] = (obj, o) =>
    obj.kind === 'SelfSubjectAccessReview' ? Promise.resolve({ ...obj, status: { allowed } } as never) : cluster.client.create(obj, o);
  return { ...cluster.client, create };
}

const account = (namespace: string, name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name, namespace, annotations: { note: 'x'.repeat(100) } },
  imagePullSecrets: [{ name: 'pull' }],
});

const extension = (name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: 'olm.operatorframework.io/v1',
  kind: 'ClusterExtension',
  metadata: { name },
  spec,
});

/** A stand-in for the extensions' informer: `emit` delivers an event to the handlers. */
function extensionEvents() {
  const handlers = new Set<InformerHandler<KubeObject>>();
  return {
    addHandler: (h: InformerHandler<KubeObject>) => {
      handlers.add(h);
      return () => void handlers.delete(h);
    },
    emit: (type: 'add' | 'update' | 'delete', obj: KubeObject) => {
      for (const h of handlers) h(type, obj, undefined);
    },
    get size() {
      return handlers.size;
    },
  };
}

async function started(cluster: FakeCluster, allowed = true, defaultInstaller?: { namespace: string; name: string }) {
  const stop = aborted();
  const extensions = extensionEvents();
  const accounts = await watchInstallerAccounts({ client: withReviews(cluster, allowed), extensions, defaultInstaller, log, signal: stop.signal });
  return { accounts, extensions, stop };
}

describe('installer ServiceAccounts from a cache', () => {
  it('validation reads no ServiceAccount the informer holds (a GET each reconcile without it); the copy keeps only its identity', async () => {
    const cluster = fakeCluster();
    cluster.seed(account('ns', 'sa'));
    const { accounts } = await started(cluster);
    expect(accounts).toBeDefined();
    await accounts?.informer.waitForSync();
    expect(accounts?.informer.get('ns/sa')).toEqual({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'sa', namespace: 'ns', uid: expect.any(String), resourceVersion: expect.any(String) },
    });

    const events = { event: () => undefined };
    cluster.calls.length = 0;
    const cached = extensionState();
    expect(await validateStep({ client: cluster.client, events, accounts: accounts?.informer }).run(cached)).toBeUndefined();
    expect(cluster.calls.filter((c) => c.startsWith('get '))).toEqual([]);
    expect(cached.ce.status).toBeUndefined();

    expect(await validateStep({ client: cluster.client, events }).run(extensionState())).toBeUndefined();
    expect(cluster.calls.filter((c) => c.startsWith('get '))).toEqual(['get ServiceAccount ns/sa']);
  });

  it("a ServiceAccount the cache lacks is read live: a just-created one passes, a missing one has upstream's message", async () => {
    const cluster = fakeCluster();
    const { accounts } = await started(cluster);
    await accounts?.informer.waitForSync();
    const validate = validateStep({ client: cluster.client, events: { event: () => undefined }, accounts: accounts?.informer });
    const missing = extensionState();
    await validate.run(missing);
    expect(missing.ce.status?.conditions?.find((c) => c.type === 'Progressing')?.message).toBe(
      'operation cannot proceed due to the following validation error(s): service account "sa" not found in namespace "ns"',
    );
    // Created, not yet delivered to the informer (as a copy a watch has not brought yet).
    const frozen = { get: () => undefined };
    await cluster.client.create(account('ns', 'sa'));
    cluster.calls.length = 0;
    expect(
      await validateStep({ client: cluster.client, events: { event: () => undefined }, accounts: frozen }).run(extensionState()),
    ).toBeUndefined();
    expect(cluster.calls).toEqual(['get ServiceAccount ns/sa']);
  });

  it('a ServiceAccount created after its extensions queues them (their own and, for those naming none, the default installer)', async () => {
    const cluster = fakeCluster();
    const { accounts, extensions } = await started(cluster, true, { namespace: 'olmv1-system', name: 'installer' });
    // The fake's watches see only later writes: the informer's watch is open first.
    await expect.poll(() => cluster.calls).toContain('watch ServiceAccount');
    const queued: string[] = [];
    accounts?.informer.addHandler((type, obj, old) => {
      const keys = accounts.watch.keys(type, obj, old);
      queued.push(...(typeof keys === 'string' ? [keys] : (keys ?? [])));
    });
    extensions.emit('add', extension('a', { namespace: 'ns', serviceAccount: { name: 'sa' } }));
    extensions.emit('add', extension('b', { namespace: 'ns', serviceAccount: { name: 'sa' } }));
    extensions.emit('add', extension('c', { namespace: 'other', serviceAccount: { name: 'sa' } }));
    extensions.emit('add', extension('d', { namespace: 'ns' }));
    await cluster.client.create(account('ns', 'sa'));
    await expect.poll(() => [...queued].sort()).toEqual(['a', 'b']);
    await cluster.client.create(account('olmv1-system', 'installer'));
    await expect.poll(() => [...queued].sort()).toEqual(['a', 'b', 'd']);
    // A change or a delete of a ServiceAccount queues nothing.
    cluster.edit(account('ns', 'sa'), (live) => void (live.metadata.labels = { x: 'y' }));
    await cluster.client.delete({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: 'ns', name: 'sa' });
    await cluster.client.create(account('other', 'sa'));
    await expect.poll(() => [...queued].sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('without list and watch of ServiceAccounts cluster-wide, starts nothing (validation reads live)', async () => {
    const cluster = fakeCluster();
    const { accounts, extensions } = await started(cluster, false);
    expect(accounts).toBeUndefined();
    expect(extensions.size).toBe(0);
    expect(cluster.calls.filter((c) => c.includes('ServiceAccount'))).toEqual([]);
  });

  it('stops following the extensions when its signal ends', async () => {
    const { accounts, extensions, stop } = await started(fakeCluster());
    expect(extensions.size).toBe(1);
    stop.abort();
    await accounts?.stopped;
    expect(extensions.size).toBe(0);
  });
});

describe('InstallerIndex', () => {
  it('follows an extension whose installer changes or that is deleted', () => {
    const index = new InstallerIndex();
    const extensions = extensionEvents();
    index.follow(extensions);
    extensions.emit('add', extension('a', { namespace: 'ns', serviceAccount: { name: 'sa' } }));
    expect(index.extensionsOf('ns/sa')).toEqual(['a']);
    // spec.serviceAccount cleared (allowed by the CRD): no default installer, no installer.
    extensions.emit('update', extension('a', { namespace: 'ns' }));
    expect(index.extensionsOf('ns/sa')).toEqual([]);
    extensions.emit('update', extension('a', { namespace: 'ns', serviceAccount: { name: 'other' } }));
    expect(index.extensionsOf('ns/other')).toEqual(['a']);
    extensions.emit('delete', extension('a', { namespace: 'ns', serviceAccount: { name: 'other' } }));
    expect(index.extensionsOf('ns/other')).toEqual([]);
  });
});
