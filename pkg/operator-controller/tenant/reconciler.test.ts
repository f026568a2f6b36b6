import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ok } from '../../shared/errors/index.ts';
import { ApiError, type KubeObject } from '../../shared/kube/index.ts';
import { parseExtensionPolicy, type ExtensionPolicy } from '../../shared/api/index.ts';
import type { BundleInstaller } from '../render/index.ts';
import { clusterExtensionName, ownerLabels } from './naming.ts';
import { createTenantReconciler, type TenantPorts } from './reconciler.ts';

const NS = 'team-a';
const CE_NAME = clusterExtensionName(NS, 'ops');
const req = { namespace: NS, name: 'ops', uid: 'u1' };

function key(o: { apiVersion: string; kind: string; name?: string | undefined; namespace?: string | undefined }): string {
  return `${o.kind}/${o.namespace ?? ''}/${o.name ?? ''}`;
}

/** An in-memory API server of the kinds the reconciler touches; writes are recorded in order. */
function fakeCluster(objects: KubeObject[]) {
  const store = new Map<string, KubeObject>();
  for (const o of objects) store.set(key({ ...o, name: o.metadata.name, namespace: o.metadata.namespace }), structuredClone(o));
  const writes: string[] = [];
  const notFound = () => new ApiError(404, 'NotFound', 'not found');
  const client: TenantPorts['client'] = {
    get: async <T extends KubeObject>(ref: Parameters<TenantPorts['client']['get']>[0]) => {
      const o = store.get(key(ref));
      if (o === undefined) throw notFound();
      return structuredClone(o) as T;
    },
    apply: async <T extends KubeObject>(o: KubeObject) => {
      writes.push(`apply ${key({ ...o, name: o.metadata.name, namespace: o.metadata.namespace })}`);
      store.set(key({ ...o, name: o.metadata.name, namespace: o.metadata.namespace }), {
        ...structuredClone(o),
        metadata: { ...o.metadata, uid: `uid-${o.metadata.name ?? ''}` },
      });
      return o as T;
    },
    delete: async (ref, options) => {
      const k = key(ref);
      const o = store.get(k);
      if (o === undefined) throw notFound();
      if (options?.preconditions?.uid !== undefined && options.preconditions.uid !== o.metadata.uid)
        throw new ApiError(409, 'Conflict', 'uid precondition');
      writes.push(`delete ${k}`);
      store.delete(k);
      return {};
    },
    listAll: async <T extends KubeObject>(type: { kind: string }, options?: { labelSelector?: string; namespace?: string }) => {
      const wanted = (options?.labelSelector ?? '')
        .split(',')
        .filter((s) => s !== '')
        .map((s) => s.split('='));
      const items = [...store.values()].filter(
        (o) =>
          o.kind === type.kind &&
          (options?.namespace === undefined || o.metadata.namespace === options.namespace) &&
          wanted.every(([k, v]) => o.metadata.labels?.[k ?? ''] === v),
      );
      return { items: items as T[], resourceVersion: '1' };
    },
    updateStatus: async <T extends KubeObject>(o: KubeObject) => {
      const k = key({ ...o, name: o.metadata.name, namespace: o.metadata.namespace });
      store.set(k, { ...(store.get(k) as KubeObject), status: o.status });
      return o as T;
    },
    patch: async <T extends KubeObject>(ref: Parameters<TenantPorts['client']['patch']>[0], body: unknown) => {
      const k = key(ref);
      const o = store.get(k) as KubeObject;
      const finalizers = (body as { metadata: { finalizers: string[] } }).metadata.finalizers;
      store.set(k, { ...o, metadata: { ...o.metadata, finalizers } });
      if (finalizers.length === 0 && o.metadata.deletionTimestamp !== undefined) store.delete(k);
      return o as T;
    },
  };
  return { store, writes, client };
}

const policy = (): ExtensionPolicy => {
  const p = parseExtensionPolicy({
    metadata: { name: 'tenants' },
    spec: { namespaceSelector: {}, packages: [{ name: 'argocd', versionRange: '<2.0.0' }] },
  });
  if (!p.ok) throw new Error(p.error);
  return p.value;
};

const installer: BundleInstaller = {
  objects: [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'ops-installer', namespace: NS } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'olmv1-installer:team-a:ops-installer:argocd.v1.0.0' },
      rules: [],
    },
  ],
  warnings: [],
  rendered: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: NS } }],
  bundleName: 'argocd.v1.0.0',
};

function ports(cluster: ReturnType<typeof fakeCluster>): TenantPorts {
  const ces = () => [...cluster.store.values()].filter((o) => o.kind === 'ClusterExtension');
  return {
    client: cluster.client,
    policies: () => [policy()],
    clusterExtensions: { get: (name) => ces().find((c) => c.metadata.name === name), list: ces },
    resolve: async () => ok({ name: 'argocd.v1.0.0', version: '1.0.0', image: 'registry.test/argocd@sha256:1', catalog: 'c' }),
    installer: async () => ok(installer),
    renderFeatures: { webhookSupport: false, singleOwnNamespaceSupport: true, deploymentConfigSupport: true },
    log: pino({ level: 'silent' }),
  };
}

const ctx = () => ({ signal: new AbortController().signal, log: pino({ level: 'silent' }) });
const namespace: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS, labels: { 'kubernetes.io/metadata.name': NS } } };
const extension = (extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'olm.operatorframework.io/v1alpha1',
  kind: 'Extension',
  metadata: { name: 'ops', namespace: NS, uid: 'u1', generation: 1, resourceVersion: '1', ...extra },
  spec: { source: { sourceType: 'Catalog', catalog: { packageName: 'argocd' } } },
});

describe('the tenant reconciler', () => {
  it('makes the installer, then the ClusterExtension, all labelled with the request, and adds its finalizer', async () => {
    const cluster = fakeCluster([namespace, extension()]);
    await createTenantReconciler(ports(cluster)).reconcile(`${NS}/ops`, ctx());
    expect(cluster.writes).toEqual([
      `apply ServiceAccount/${NS}/ops-installer`,
      'apply ClusterRole//olmv1-installer:team-a:ops-installer:argocd.v1.0.0',
      `apply ClusterExtension//${CE_NAME}`,
    ]);
    const ce = cluster.store.get(`ClusterExtension//${CE_NAME}`);
    expect(ce?.metadata.labels).toMatchObject(ownerLabels(req));
    expect(ce?.['spec']).toMatchObject({ namespace: NS, serviceAccount: { name: 'ops-installer' }, source: { catalog: { version: '1.0.0' } } });
    const stored = cluster.store.get(`Extension/${NS}/ops`);
    expect(stored?.metadata.finalizers).toEqual(['olm.operatorframework.io/tenant-uninstall']);
    expect((stored?.status as { conditions: { type: string; status: string }[] }).conditions[0]).toMatchObject({ type: 'Allowed', status: 'True' });
  });

  it('touches no ClusterExtension of its name that was not made for it, and says so', async () => {
    const foreign: KubeObject = {
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterExtension',
      metadata: { name: CE_NAME, uid: 'x', labels: ownerLabels({ ...req, uid: 'earlier' }) },
    };
    const cluster = fakeCluster([namespace, extension(), foreign]);
    await createTenantReconciler(ports(cluster)).reconcile(`${NS}/ops`, ctx());
    expect(cluster.writes).toEqual([]);
    const status = cluster.store.get(`Extension/${NS}/ops`)?.status as { conditions: { type: string; reason: string; message: string }[] };
    expect(status.conditions[0]).toMatchObject({
      type: 'Allowed',
      reason: 'PackageInUse',
      message: `ClusterExtension "${CE_NAME}" exists and was not made for this request`,
    });
  });

  it('keeps what is installed for a request no longer allowed, mirrors its status and says so', async () => {
    const cluster = fakeCluster([namespace, extension()]);
    const p = ports(cluster);
    const r = createTenantReconciler(p);
    await r.reconcile(`${NS}/ops`, ctx());
    const ce = cluster.store.get(`ClusterExtension//${CE_NAME}`) as KubeObject;
    cluster.store.set(`ClusterExtension//${CE_NAME}`, {
      ...ce,
      status: {
        conditions: [{ type: 'Installed', status: 'True', reason: 'Succeeded', message: 'installed', lastTransitionTime: '2026-01-01T00:00:00Z' }],
        install: { bundle: { name: 'argocd.v1.0.0', version: '1.0.0' } },
      },
    });
    cluster.writes.length = 0;
    // The policy is narrowed: the package is no longer among those it allows.
    const narrowed = parseExtensionPolicy({ metadata: { name: 'tenants' }, spec: { namespaceSelector: {}, packages: [{ name: 'other' }] } });
    if (!narrowed.ok) throw new Error(narrowed.error);
    await createTenantReconciler({ ...p, policies: () => [narrowed.value] }).reconcile(`${NS}/ops`, ctx());
    expect(cluster.writes).toEqual([]);
    expect(cluster.store.get(`ClusterExtension//${CE_NAME}`)?.['spec']).toMatchObject({ source: { catalog: { version: '1.0.0' } } });
    const status = cluster.store.get(`Extension/${NS}/ops`)?.status as {
      conditions: { type: string; status: string; reason: string; message: string }[];
      install?: { bundle: { name: string } };
    };
    const cond = (t: string) => status.conditions.find((c) => c.type === t);
    expect(cond('Allowed')).toMatchObject({ status: 'False', reason: 'PackageNotAllowed' });
    expect(cond('Allowed')?.message).toBe(
      `no longer allowed: package "argocd" is not allowed in namespace "${NS}": ExtensionPolicy "tenants" allows other; argocd.v1.0.0 stays installed (ClusterExtension "${CE_NAME}") and is not upgraded until a policy allows the request again; deleting the request uninstalls it`,
    );
    expect(cond('Installed')).toMatchObject({ status: 'True', reason: 'Succeeded' });
    expect(cond('Progressing')).toMatchObject({ status: 'False', reason: 'Blocked' });
    expect(status.install?.bundle.name).toBe('argocd.v1.0.0');
  });

  it('on deletion uninstalls the ClusterExtension first, and removes the installer only once it is gone', async () => {
    const cluster = fakeCluster([namespace, extension()]);
    const r = createTenantReconciler(ports(cluster));
    await r.reconcile(`${NS}/ops`, ctx());
    // A stranger's ClusterRole carrying the name and namespace but not the uid stays.
    await cluster.client.apply(
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'other', labels: ownerLabels({ ...req, uid: 'earlier' }) },
      },
      { fieldManager: 'test' },
    );
    const ext = cluster.store.get(`Extension/${NS}/ops`) as KubeObject;
    cluster.store.set(`Extension/${NS}/ops`, { ...ext, metadata: { ...ext.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } });
    cluster.writes.length = 0;
    const first = await r.reconcile(`${NS}/ops`, ctx());
    expect(cluster.writes).toEqual([`delete ClusterExtension//${CE_NAME}`]);
    expect(first).toEqual({ requeueAfterMs: 2000 });
    await r.reconcile(`${NS}/ops`, ctx());
    expect(cluster.writes).toEqual([
      `delete ClusterExtension//${CE_NAME}`,
      `delete ServiceAccount/${NS}/ops-installer`,
      'delete ClusterRole//olmv1-installer:team-a:ops-installer:argocd.v1.0.0',
    ]);
    expect(cluster.store.has(`Extension/${NS}/ops`)).toBe(false);
    expect(cluster.store.has('ClusterRole//other')).toBe(true);
  });
});
