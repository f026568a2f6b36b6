// `olmv1 uninstall NAME` (uninstall.ts) over the shared fake client: the ClusterExtension first,
// waited for, then what carries both install labels for NAME; without the ClusterExtension (an
// install interrupted before writing it, issue 60 item 6) the labelled objects alone; with
// neither, NAME is not found. End to end: test/e2e/olmv1-install.test.ts.
import { describe, expect, it } from 'vitest';
import { fakeCluster, type FakeCluster } from '../../test/support/fake-cluster.ts';
import { ApiError, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { installObjects } from './install-objects.ts';
import { runUninstall } from './uninstall.ts';

const RBAC = 'rbac.authorization.k8s.io/v1';
const NAME = 'olmv1-installer:demo:demo-installer:demo.v1';
const rbac: KubeObject[] = [
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'demo-installer', namespace: 'demo' } },
  { apiVersion: RBAC, kind: 'ClusterRole', metadata: { name: NAME }, rules: [] },
  { apiVersion: RBAC, kind: 'Role', metadata: { name: NAME, namespace: 'demo' }, rules: [] },
  { apiVersion: RBAC, kind: 'ClusterRoleBinding', metadata: { name: NAME }, roleRef: { kind: 'ClusterRole', name: NAME } },
  { apiVersion: RBAC, kind: 'RoleBinding', metadata: { name: NAME, namespace: 'demo' }, roleRef: { kind: 'Role', name: NAME } },
];
const request = {
  name: 'demo',
  packageName: 'demo',
  namespace: 'demo',
  serviceAccount: 'demo-installer',
  channels: [],
  version: undefined,
  selector: undefined,
  upgradeConstraintPolicy: undefined,
  crdUpgradeSafety: undefined,
  watchNamespace: undefined,
};
/** Everything install writes for `demo`, the namespace first and the ClusterExtension last. */
const written = installObjects(request, rbac, true);
const DELETED_RBAC = [
  `deleted ClusterRoleBinding ${NAME}`,
  `deleted RoleBinding demo/${NAME}`,
  `deleted ClusterRole ${NAME}`,
  `deleted Role demo/${NAME}`,
  'deleted ServiceAccount demo/demo-installer',
];

/** A cluster holding `objects` and what is not install's: an unlabelled ServiceAccount, and one labelled for another extension. */
function clusterWith(objects: readonly KubeObject[], options: Parameters<typeof fakeCluster>[0] = {}): FakeCluster {
  const cluster = fakeCluster(options);
  for (const o of objects) cluster.seed(o);
  cluster.seed({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bystander', namespace: 'demo' } });
  cluster.seed({
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: {
      name: 'other',
      namespace: 'demo',
      labels: { 'olm.operatorframework.io/installed-by': 'olmv1', 'olm.operatorframework.io/installed-for': 'demo-2' },
    },
  });
  return cluster;
}

async function uninstall(cluster: FakeCluster, args: string[], sleep: () => void = () => undefined) {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
  let now = 0;
  const code = await runUninstall(args, io, {
    connectCluster: () => Promise.resolve({ client: cluster.client, close: () => undefined }),
    sleep: (ms) => {
      now += ms;
      sleep();
      return Promise.resolve();
    },
    now: () => now,
  });
  return { code, stdout, stderr };
}

const remaining = (cluster: FakeCluster) => [...cluster.objects.keys()].sort();

describe('olmv1 uninstall', () => {
  it('deletes the ClusterExtension, waits until its finalizer is done, then only what install labelled for it', async () => {
    const ext = written.at(-1) as KubeObject;
    const cluster = clusterWith([
      ...written.slice(0, -1),
      { ...ext, metadata: { ...ext.metadata, finalizers: ['olm.operatorframework.io/cleanup'] } },
    ]);
    // operator-controller finishes its uninstall on the second look.
    let looks = 0;
    const finish = () => {
      if (++looks === 2) cluster.edit(ext, (live) => void (live.metadata.finalizers = []));
    };
    const out = await uninstall(cluster, ['demo'], finish);
    expect(out).toMatchObject({ code: 0, stdout: ['deleted ClusterExtension demo', ...DELETED_RBAC, ''].join('\n') });
    expect(out.stderr).toContain('deleting ClusterExtension demo; waiting for operator-controller to uninstall it\n');
    // Nothing of the RBAC went before the extension was gone.
    expect(cluster.writes[0]).toBe('delete ClusterExtension demo');
    expect(cluster.writes.filter((w) => !w.startsWith('delete ClusterExtension'))).toHaveLength(DELETED_RBAC.length);
    expect(looks).toBeGreaterThanOrEqual(2);
    expect(remaining(cluster)).toEqual(['Namespace demo', 'ServiceAccount demo/bystander', 'ServiceAccount demo/other']);
  });

  it('without a ClusterExtension, deletes what an interrupted install labelled for NAME, saying so, and nothing else', async () => {
    const cluster = clusterWith(written.slice(0, -1));
    const out = await uninstall(cluster, ['demo']);
    expect(out).toEqual({
      code: 0,
      stdout: [...DELETED_RBAC, ''].join('\n'),
      stderr: 'ClusterExtension "demo" not found; deleting what an interrupted "olmv1 install" created for it\n',
    });
    // The namespace install created is kept, as with an extension.
    expect(remaining(cluster)).toEqual(['Namespace demo', 'ServiceAccount demo/bystander', 'ServiceAccount demo/other']);
  });

  it('with neither a ClusterExtension nor labelled objects, NAME is not found (exit 1), and nothing is deleted', async () => {
    const cluster = clusterWith([]);
    const before = remaining(cluster);
    expect(await uninstall(cluster, ['demo'])).toEqual({ code: 1, stdout: '', stderr: 'ClusterExtension "demo" not found\n' });
    expect(remaining(cluster)).toEqual(before);
  });

  it('with --keep-rbac and no ClusterExtension, deletes nothing and NAME is not found', async () => {
    const cluster = clusterWith(written.slice(0, -1));
    const before = remaining(cluster);
    expect(await uninstall(cluster, ['demo', '--keep-rbac'])).toEqual({ code: 1, stdout: '', stderr: 'ClusterExtension "demo" not found\n' });
    expect(remaining(cluster)).toEqual(before);
  });

  it('says when it could not look for labelled objects, and fails', async () => {
    const cluster = clusterWith(written.slice(0, -1), {
      refuse: { 'list ClusterRoleBinding': new ApiError(403, 'Forbidden', 'clusterrolebindings is forbidden') },
    });
    const out = await uninstall(cluster, ['demo']);
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(
      'ClusterExtension "demo" not found\n(could not look for what "olmv1 install" created for it: clusterrolebindings is forbidden)\n',
    );
    expect(remaining(cluster)).toHaveLength(written.length - 1 + 2);
  });
});
