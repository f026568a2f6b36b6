// Writing what `olmv1 install` creates (write.ts), and finishing an install interrupted
// after its RBAC (issue 60 item 6): what carries both install labels for the same extension is
// reused or updated, anything else is refused as a name already taken. End to end:
// test/e2e/olmv1-install.test.ts.
import { describe, expect, it } from 'vitest';
import { extensionRequest } from '../../../test/support/extension-request.ts';
import { fakeCluster, type FakeCluster } from '../../../test/support/fake-cluster.ts';
import { ApiError, type KubeObject } from '../../shared/kube/index.ts';
import { installObjects } from './objects.ts';
import type { InstallEvent } from './ports.ts';
import { InstallRefused } from './refused.ts';
import { adoption } from './resume.ts';
import { writeInstall } from './write.ts';

const request = extensionRequest('demo', { packageName: 'demo-operator', namespace: 'demo-ns' });
const RBAC = 'rbac.authorization.k8s.io/v1';
const role = (kind: 'ClusterRole' | 'Role', rules: object[]): KubeObject => ({
  apiVersion: RBAC,
  kind,
  metadata: { name: `olmv1-installer:demo-ns:demo-installer:demo.v1`, ...(kind === 'Role' ? { namespace: 'demo-ns' } : {}) },
  rules,
});
const binding = (kind: 'ClusterRoleBinding' | 'RoleBinding'): KubeObject => ({
  apiVersion: RBAC,
  kind,
  metadata: { name: `olmv1-installer:demo-ns:demo-installer:demo.v1`, ...(kind === 'RoleBinding' ? { namespace: 'demo-ns' } : {}) },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: kind.replace('Binding', ''), name: 'olmv1-installer:demo-ns:demo-installer:demo.v1' },
  subjects: [{ kind: 'ServiceAccount', name: 'demo-installer', namespace: 'demo-ns' }],
});
const rbac: KubeObject[] = [
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'demo-installer', namespace: 'demo-ns' } },
  role('ClusterRole', [{ apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['create', 'list'] }]),
  role('Role', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create'] }]),
  binding('ClusterRoleBinding'),
  binding('RoleBinding'),
];
const LABELS = { 'olm.operatorframework.io/installed-by': 'olmv1', 'olm.operatorframework.io/installed-for': 'demo' };

/** The events of a write, one line each as `olmv1 install` prints them, in `out.stderr`. */
function collect() {
  const out = { stderr: '' };
  const line = (e: InstallEvent): string => {
    if (e.type === 'remove-failed') return `could not remove ${e.object}: ${e.error}`;
    if (e.type !== 'object') return e.type;
    if (e.action === 'removed') return `removed ${e.object} again`;
    return `${e.action} ${e.object}${e.action === 'created' ? '' : ` (created for ${e.extension} by an earlier "olmv1 install")`}`;
  };
  return { out, io: { onEvent: (e: InstallEvent) => void (out.stderr += `${line(e)}\n`) } };
}

/** The client of `cluster` with `io`'s events. */
const as = (cluster: FakeCluster, io: ReturnType<typeof collect>['io']) => ({ client: cluster.client, ...io });

async function refused(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(InstallRefused);
  return (e as InstallRefused).message;
}

describe('writeInstall', () => {
  it('creates the namespace and every object in order, each tried first', async () => {
    const cluster = fakeCluster();
    const { out, io } = collect();
    const objects = installObjects(request, rbac, true);
    await writeInstall(as(cluster, io), 'demo', objects, true);
    expect(cluster.writes).toEqual(
      objects.map((o) => `create ${o.kind} ${o.metadata.namespace === undefined ? '' : 'demo-ns/'}${o.metadata.name ?? ''}`),
    );
    expect(cluster.calls.filter((c) => c.startsWith('dry-run-create')).length).toBe(objects.length - 1);
    expect(out.stderr.split('\n').filter((l) => l !== '')).toEqual(objects.map((o) => expect.stringMatching(new RegExp(`^created ${o.kind} `))));
  });

  it('finishes an install interrupted after its RBAC: reuses what is the same, updates what differs, creates the rest', async () => {
    const cluster = fakeCluster();
    const [ns, sa, clusterRole, role_, crb] = installObjects(request, rbac, true);
    // What the interrupted run wrote; its Role since changed by hand (one rule dropped), and someone added a label to it.
    for (const o of [ns, sa, clusterRole, crb]) cluster.seed(o as KubeObject);
    cluster.seed({ ...(role_ as KubeObject), metadata: { ...(role_ as KubeObject).metadata, labels: { ...LABELS, extra: 'kept' } }, rules: [] });
    const { out, io } = collect();
    await writeInstall(as(cluster, io), 'demo', installObjects(request, rbac, false), false);

    expect(cluster.writes).toEqual([
      'update Role demo-ns/olmv1-installer:demo-ns:demo-installer:demo.v1',
      'create RoleBinding demo-ns/olmv1-installer:demo-ns:demo-installer:demo.v1',
      'create ClusterExtension demo',
    ]);
    const earlier = '(created for demo by an earlier "olmv1 install")';
    expect(out.stderr).toBe(
      [
        `reused ServiceAccount demo-ns/demo-installer ${earlier}`,
        `reused ClusterRole olmv1-installer:demo-ns:demo-installer:demo.v1 ${earlier}`,
        `updated Role demo-ns/olmv1-installer:demo-ns:demo-installer:demo.v1 ${earlier}`,
        `reused ClusterRoleBinding olmv1-installer:demo-ns:demo-installer:demo.v1 ${earlier}`,
        'created RoleBinding demo-ns/olmv1-installer:demo-ns:demo-installer:demo.v1',
        'created ClusterExtension demo',
        '',
      ].join('\n'),
    );
    const live = cluster.live(role_ as KubeObject);
    expect(live?.rules).toEqual((role_ as KubeObject).rules);
    expect(live?.metadata.labels).toEqual({ ...LABELS, extra: 'kept' });
    expect(cluster.live({ kind: 'ClusterExtension', metadata: { name: 'demo' } })?.spec).toMatchObject({
      serviceAccount: { name: 'demo-installer' },
    });
  });

  it("refuses what is someone else's (unlabelled, or labelled for another extension) as a name taken, writing nothing", async () => {
    const cluster = fakeCluster();
    const [, sa, clusterRole] = installObjects(request, rbac, true);
    cluster.seed({ ...(sa as KubeObject), metadata: { name: 'demo-installer', namespace: 'demo-ns' } });
    cluster.seed({
      ...(clusterRole as KubeObject),
      metadata: { ...(clusterRole as KubeObject).metadata, labels: { ...LABELS, 'olm.operatorframework.io/installed-for': 'other' } },
    });
    const { out, io } = collect();
    const message = await refused(writeInstall(as(cluster, io), 'demo', installObjects(request, rbac, true), true));
    expect(message).toBe(
      [
        'nothing installed: 2 of the 6 objects would be refused:',
        '  ServiceAccount demo-ns/demo-installer already exists: remove it, or choose another --name',
        '  ClusterRole olmv1-installer:demo-ns:demo-installer:demo.v1 already exists: remove it, or choose another --name',
      ].join('\n'),
    );
    // Only the namespace was written, and it was deleted again; the two objects are untouched.
    expect(cluster.writes).toEqual(['create Namespace demo-ns', 'delete Namespace demo-ns']);
    expect(out.stderr).toBe('created Namespace demo-ns\nremoved Namespace demo-ns again\n');
    expect(cluster.live(sa as KubeObject)?.metadata.labels).toBeUndefined();
  });

  it('waits on a ClusterExtension an earlier run wrote with the same spec, and refuses one with another spec', async () => {
    const objects = installObjects(request, rbac, false);
    const ext = objects.at(-1) as KubeObject;
    const same = fakeCluster();
    for (const o of objects.slice(0, -1)) same.seed(o);
    // The API server defaults fields install leaves out: they do not count.
    same.seed({ ...ext, spec: { ...(ext.spec as object), install: { preflight: { crdUpgradeSafety: { enforcement: 'Strict' } } } } });
    const { out, io } = collect();
    await writeInstall(as(same, io), 'demo', objects, false);
    expect(same.writes).toEqual([]);
    expect(out.stderr).toContain('reused ClusterExtension demo (created for demo by an earlier "olmv1 install")\n');

    const other = fakeCluster();
    other.seed({ ...ext, spec: { ...(ext.spec as object), source: { sourceType: 'Catalog', catalog: { packageName: 'else' } } } });
    const message = await refused(writeInstall(as(other, collect().io), 'demo', objects, false));
    expect(message).toContain('  ClusterExtension demo already exists: choose another --name, or "olmv1 uninstall demo" first');
    expect(other.writes).toEqual([]);
  });

  it('reports an update the caller may not make with the other refusals, before writing anything', async () => {
    const cluster = fakeCluster({
      refuse: {
        'dry-run-update ClusterRole olmv1-installer:demo-ns:demo-installer:demo.v1': new ApiError(403, 'Forbidden', 'clusterroles is forbidden'),
      },
    });
    const objects = installObjects(request, rbac, false);
    const clusterRole = objects[1] as KubeObject;
    cluster.seed({ ...clusterRole, rules: [] });
    const message = await refused(writeInstall(as(cluster, collect().io), 'demo', objects, false));
    expect(message).toBe(
      [
        'nothing installed: 1 of the 6 objects would be refused:',
        '  you cannot update ClusterRole olmv1-installer:demo-ns:demo-installer:demo.v1: clusterroles is forbidden',
        '(you need the rights to create these objects, and to hold every permission the RBAC grants: ask a cluster admin, or run as one)',
      ].join('\n'),
    );
    expect(cluster.writes).toEqual([]);
    expect(cluster.live(clusterRole)?.rules).toEqual([]);
  });

  it('after a failed write deletes what this run created, never what an earlier run left', async () => {
    const cluster = fakeCluster({ refuse: { 'create ClusterExtension demo': new ApiError(500, 'InternalError', 'etcd went away') } });
    const objects = installObjects(request, rbac, false);
    cluster.seed(objects[0] as KubeObject);
    const { out, io } = collect();
    const message = await refused(writeInstall(as(cluster, io), 'demo', objects, false));
    expect(message).toBe('error creating ClusterExtension demo: etcd went away');
    expect(out.stderr).toContain('removed ClusterRole olmv1-installer:demo-ns:demo-installer:demo.v1 again\n');
    expect(out.stderr).not.toContain('removed ServiceAccount');
    expect(cluster.live(objects[0] as KubeObject)).toBeDefined();
    expect([...cluster.objects.keys()]).toEqual(['ServiceAccount demo-ns/demo-installer']);
  });
});

describe('adoption of an object found where install would create one', () => {
  const [, , clusterRole, , crb] = installObjects(request, rbac, true) as [KubeObject, KubeObject, KubeObject, KubeObject, KubeObject];

  it.each([
    ['unlabelled', { ...clusterRole, metadata: { name: 'x' } }, 'foreign'],
    [
      'labelled for another extension',
      { ...clusterRole, metadata: { name: 'x', labels: { ...LABELS, 'olm.operatorframework.io/installed-for': 'demo2' } } },
      'foreign',
    ],
    ['being deleted', { ...clusterRole, metadata: { ...clusterRole.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }, 'foreign'],
    ['the same, with fields the server added', { ...clusterRole, metadata: { ...clusterRole.metadata, uid: 'u', resourceVersion: '7' } }, 'keep'],
    ['the same with other rules', { ...clusterRole, rules: [] }, 'update'],
    ['a binding of another role', { ...crb, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' } }, 'differs'],
  ])('%s: %s', (_what, live, action) => {
    const want = live.kind === 'ClusterRole' ? clusterRole : crb;
    expect(adoption(want, live as KubeObject, 'demo').action).toBe(action);
  });

  it('updates at the live resourceVersion, keeping the labels and annotations others added', () => {
    const live: KubeObject = {
      ...clusterRole,
      metadata: { ...clusterRole.metadata, resourceVersion: '7', labels: { ...LABELS, team: 'a' }, annotations: { note: 'x' } },
      rules: [],
    };
    const found = adoption(clusterRole, live, 'demo');
    expect(found).toEqual({
      action: 'update',
      object: {
        ...clusterRole,
        metadata: { ...clusterRole.metadata, resourceVersion: '7', labels: { ...LABELS, team: 'a' }, annotations: { note: 'x' } },
      },
    });
  });
});
