import { describe, expect, it } from 'vitest';
import { ApiError, type KubeObject } from '../../shared/kube/index.ts';
import { deleteOwnedObjects } from './delete.ts';
import { withOwnerLabels } from './objects.ts';
import { OwnershipConflictError, checkOwnership, conflictMessage, ownershipOf, type Owner } from './ownership.ts';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';

const OWNER: Owner = { extension: 'ext', packageName: 'pkg', installNamespace: 'ns' };
const KEPT = 'olm.operatorframework.io/kept-for-package';

function obj(apiVersion: string, kind: string, name: string, namespace?: string, meta: Partial<KubeObject['metadata']> = {}): KubeObject {
  return { apiVersion, kind, metadata: { name, ...(namespace === undefined ? {} : { namespace }), ...meta } };
}
const cm = (name: string, meta: Partial<KubeObject['metadata']> = {}): KubeObject => obj('v1', 'ConfigMap', name, 'ns', meta);
const crd = (name: string, meta: Partial<KubeObject['metadata']> = {}): KubeObject =>
  obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', name, undefined, meta);
const clusterRole = (name: string, meta: Partial<KubeObject['metadata']> = {}): KubeObject =>
  obj('rbac.authorization.k8s.io/v1', 'ClusterRole', name, undefined, meta);
const ours = (o: KubeObject, extension = 'ext'): KubeObject => withOwnerLabels([o], extension)[0] ?? o;

/** The field selector of every LIST `cluster`'s client makes from now on (undefined: none), in order. */
function recordFieldSelectors(cluster: ReturnType<typeof fakeCluster>): Array<string | undefined> {
  const selectors: Array<string | undefined> = [];
  const listAll = cluster.client.listAll.bind(cluster.client);
  cluster.client.listAll = ((type, options) => {
    selectors.push(options?.fieldSelector);
    return listAll(type, options);
  }) as typeof cluster.client.listAll;
  return selectors;
}

describe('ownershipOf', () => {
  it.each([
    ['absent', undefined, { kind: 'absent' }],
    ['our owner labels', ours(cm('a')).metadata, { kind: 'ours' }],
    ['another extension', ours(cm('a'), 'other').metadata, { kind: 'other-extension', extension: 'other' }],
    ['no labels (made by hand)', cm('a').metadata, { kind: 'unowned' }],
    ['only the owner-name label', { labels: { 'olm.operatorframework.io/owner-name': 'ext' } }, { kind: 'unowned' }],
    [
      "upstream Helm's metadata for this release",
      {
        labels: { 'app.kubernetes.io/managed-by': 'Helm' },
        annotations: { 'meta.helm.sh/release-name': 'ext', 'meta.helm.sh/release-namespace': 'ns' },
      },
      { kind: 'ours' },
    ],
    [
      "Helm's metadata for another namespace",
      {
        labels: { 'app.kubernetes.io/managed-by': 'Helm' },
        annotations: { 'meta.helm.sh/release-name': 'ext', 'meta.helm.sh/release-namespace': 'elsewhere' },
      },
      { kind: 'unowned' },
    ],
  ])('a ConfigMap with %s', (_name, live, want) => {
    expect(ownershipOf(cm('a'), live, OWNER)).toEqual(want);
  });

  it('a CRD kept by an uninstall of this package is taken back, whichever extension kept it', () => {
    const kept = ours(crd('w.example.com', { annotations: { [KEPT]: 'pkg' } }), 'old-name').metadata;
    expect(ownershipOf(crd('w.example.com'), kept, OWNER)).toEqual({ kind: 'kept-crd' });
  });

  it('a CRD kept for another package is not ours, even under our own name', () => {
    const kept = ours(crd('w.example.com', { annotations: { [KEPT]: 'another-pkg' } })).metadata;
    expect(ownershipOf(crd('w.example.com'), kept, OWNER)).toEqual({ kind: 'unowned' });
  });

  it("upstream's message names kind, name and namespace ('' for cluster-scoped objects)", () => {
    expect(conflictMessage(cm('a'))).toBe("ConfigMap 'a' already exists in namespace 'ns' and cannot be managed by operator-controller");
    expect(conflictMessage(clusterRole('system:basic-user'))).toBe(
      "ClusterRole 'system:basic-user' already exists in namespace '' and cannot be managed by operator-controller",
    );
  });
});

describe('checkOwnership', () => {
  it('lists each resource and namespace once, metadata only, and reports absent objects', async () => {
    const cluster = fakeCluster();
    cluster.seed(ours(cm('a')));
    const report = await checkOwnership(
      cluster.client,
      [ours(cm('a')), ours(cm('b')), ours(crd('w.example.com')), ours(obj('v1', 'ConfigMap', 'c', 'other'))],
      OWNER,
    );
    expect(cluster.calls).toEqual(['list ConfigMap ns', 'list CustomResourceDefinition', 'list ConfigMap other']);
    expect([...report.absent].sort()).toEqual([
      '/ConfigMap/ns/b',
      '/ConfigMap/other/c',
      'apiextensions.k8s.io/CustomResourceDefinition//w.example.com',
    ]);
  });

  it('lists a lone object of its resource and namespace by name, so that the answer does not grow with the cluster', async () => {
    const cluster = fakeCluster();
    for (let i = 0; i < 5; i++) cluster.seed(ours(clusterRole(`other-${i}`), `other-${i}`));
    cluster.seed(ours(clusterRole('mine')));
    cluster.seed(ours(cm('a'), 'other'));
    const selectors = recordFieldSelectors(cluster);
    const report = await checkOwnership(
      cluster.client,
      [ours(clusterRole('mine')), ours(clusterRole('new')), ours(cm('a')), ours(cm('b'))],
      OWNER,
    ).catch((err: unknown) => err);
    // Two ClusterRoles: each by name; the two ConfigMaps of one namespace: the namespace is listed.
    expect(selectors).toEqual(['metadata.name=mine', 'metadata.name=new', undefined]);
    expect((report as OwnershipConflictError).conflicts.map((c) => c.object.metadata.name)).toEqual(['a']);

    selectors.length = 0;
    const alone = await checkOwnership(cluster.client, [ours(clusterRole('new'))], OWNER);
    expect(selectors).toEqual(['metadata.name=new']);
    expect([...alone.absent]).toEqual(['rbac.authorization.k8s.io/ClusterRole//new']);
    const conflict = await checkOwnership(cluster.client, [ours(cm('a'))], OWNER).catch((err: unknown) => err);
    expect(selectors).toEqual(['metadata.name=new', 'metadata.name=a']);
    expect((conflict as OwnershipConflictError).conflicts.map((c) => c.ownership)).toEqual([{ kind: 'other-extension', extension: 'other' }]);
    expect(await checkOwnership(cluster.client, [ours(clusterRole('mine'))], OWNER)).toEqual({ absent: new Set(), adopted: [], referenced: [] });
  });

  it('lists a kind of many cluster-scoped objects once, and reads each object where listing is forbidden', async () => {
    const cluster = fakeCluster();
    const roles = ['r1', 'r2', 'r3', 'r4', 'r5'].map((n) => ours(clusterRole(n)));
    cluster.seed(roles[0]!);
    const selectors = recordFieldSelectors(cluster);
    const many = await checkOwnership(cluster.client, roles, OWNER);
    expect(selectors).toEqual([undefined]);
    expect(many.absent.size).toBe(4);

    // A ServiceAccount that may get but not list: one name-selected list refused, then a GET each.
    selectors.length = 0;
    cluster.client.listAll = ((_type, options) => {
      selectors.push(options?.fieldSelector);
      return Promise.reject(new ApiError(403, 'Forbidden', 'no list'));
    }) as typeof cluster.client.listAll;
    const few = await checkOwnership(cluster.client, roles.slice(0, 2), OWNER);
    expect(selectors).toEqual(['metadata.name=r1', 'metadata.name=r2']);
    expect([...few.absent]).toEqual(['rbac.authorization.k8s.io/ClusterRole//r2']);
  });

  it('reads nothing for objects known to be ours', async () => {
    const cluster = fakeCluster();
    await checkOwnership(cluster.client, [ours(cm('a')), ours(cm('b'))], OWNER, { knownOwned: () => true });
    expect(cluster.calls).toEqual([]);
  });

  it('refuses with the first conflict in release order and lists them all', async () => {
    const cluster = fakeCluster();
    cluster.seed(clusterRole('system:basic-user'));
    cluster.seed(ours(cm('b'), 'other'));
    const e = await checkOwnership(cluster.client, [ours(clusterRole('system:basic-user')), ours(cm('a')), ours(cm('b'))], OWNER).catch(
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(OwnershipConflictError);
    expect((e as Error).message).toBe(
      "failed to get release state using server-side dry-run: ClusterRole 'system:basic-user' already exists in namespace '' and cannot be managed by operator-controller",
    );
    expect((e as OwnershipConflictError).conflicts.map((c) => c.ownership)).toEqual([
      { kind: 'unowned' },
      { kind: 'other-extension', extension: 'other' },
    ]);
  });

  it('falls back to a GET per object where listing is forbidden', async () => {
    const cluster = fakeCluster({ refuse: { 'list ConfigMap ns': new ApiError(403, 'Forbidden', 'no list') } });
    cluster.seed(ours(cm('a')));
    const report = await checkOwnership(cluster.client, [ours(cm('a')), ours(cm('b'))], OWNER);
    expect(cluster.calls).toEqual(['list ConfigMap ns', 'get ConfigMap ns/a', 'get ConfigMap ns/b']);
    expect([...report.absent]).toEqual(['/ConfigMap/ns/b']);
  });

  it('counts a kind the cluster does not serve as absent (the dry run or the CRD decides)', async () => {
    const cluster = fakeCluster({ unserved: ['cert-manager.io/v1/Issuer'] });
    const report = await checkOwnership(cluster.client, [ours(obj('cert-manager.io/v1', 'Issuer', 'i', 'ns'))], OWNER);
    expect([...report.absent]).toEqual(['cert-manager.io/Issuer/ns/i']);
  });
});

describe('deleteOwnedObjects', () => {
  it('deletes only objects whose live copy carries the owner labels, conditionally on their uid; keeps CRDs', async () => {
    const cluster = fakeCluster();
    cluster.seed(ours(cm('mine')));
    cluster.seed(cm('users')); // made by hand under a name a revision had
    cluster.seed(ours(cm('theirs'), 'other'));
    cluster.seed(ours(crd('w.example.com')));
    const outcome = await deleteOwnedObjects(
      cluster.client,
      [ours(crd('w.example.com')), ours(cm('mine')), ours(cm('users')), ours(cm('theirs')), ours(cm('gone'))],
      'ext',
    );
    expect(outcome).toEqual({
      deleted: ['ConfigMap ns/mine'],
      kept: ['CustomResourceDefinition w.example.com'],
      skipped: [
        { object: 'ConfigMap ns/theirs', reason: 'not owned by this extension' },
        { object: 'ConfigMap ns/users', reason: 'not owned by this extension' },
      ],
    });
    expect([...cluster.objects.keys()].sort()).toEqual(['ConfigMap ns/theirs', 'ConfigMap ns/users', 'CustomResourceDefinition w.example.com']);
  });

  it('reports and skips a kind the cluster no longer serves and a delete the API server refuses', async () => {
    const denied = new ApiError(
      403,
      'Forbidden',
      "configmaps \"locked\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request",
    );
    const cluster = fakeCluster({ unserved: ['example.com/v1/Widget'], refuse: { 'delete ConfigMap ns/locked': denied } });
    cluster.seed(ours(cm('locked')));
    const outcome = await deleteOwnedObjects(cluster.client, [ours(obj('example.com/v1', 'Widget', 'w', 'ns')), ours(cm('locked'))], 'ext');
    expect(outcome.skipped).toEqual([
      { object: 'ConfigMap ns/locked', reason: denied.message },
      { object: 'Widget ns/w', reason: 'its kind is not served by the cluster' },
    ]);
  });

  it("fails on the ServiceAccount's lost rights over a deployed object, skips them for an object only a failed revision named", async () => {
    const forbidden = new ApiError(403, 'Forbidden', 'configmaps "a" is forbidden: User "sa" cannot get resource "configmaps"');
    const cluster = fakeCluster({ refuse: { 'get ConfigMap ns/a': forbidden } });
    await expect(deleteOwnedObjects(cluster.client, [ours(cm('a'))], 'ext')).rejects.toThrow(`error deleting ConfigMap ns/a: ${forbidden.message}`);
    const outcome = await deleteOwnedObjects(cluster.client, [ours(cm('a'))], 'ext', { tolerant: () => true });
    expect(outcome.skipped).toEqual([{ object: 'ConfigMap ns/a', reason: forbidden.message }]);
  });

  it('deletes without reading what a drift watch vouches for, conditionally on the cached uid; a replaced one is read and judged again', async () => {
    const cluster = fakeCluster();
    cluster.seed(ours(cm('cached')));
    cluster.seed(ours(cm('replaced')));
    cluster.seed(ours(cm('taken'), 'other'));
    const uid = (o: KubeObject): string | undefined => (o.metadata.name === 'cached' ? cluster.live(o)?.metadata.uid : 'stale-uid');
    const outcome = await deleteOwnedObjects(cluster.client, [ours(cm('taken')), ours(cm('replaced')), ours(cm('cached'))], 'ext', {
      knownUid: uid,
    });
    expect(cluster.calls).toEqual([
      'delete ConfigMap ns/cached',
      'delete ConfigMap ns/replaced',
      'delete ConfigMap ns/taken',
      'get ConfigMap ns/replaced',
      'get ConfigMap ns/taken',
      'delete ConfigMap ns/replaced',
    ]);
    // The replacement is still ours: deleted; the other one now belongs to another extension: left.
    expect(outcome.deleted).toEqual(['ConfigMap ns/cached', 'ConfigMap ns/replaced']);
    expect(outcome.skipped).toEqual([{ object: 'ConfigMap ns/taken', reason: 'not owned by this extension' }]);
    expect([...cluster.objects.keys()]).toEqual(['ConfigMap ns/taken']);
  });

  it('deletes up to sixteen objects at once, Namespaces last', async () => {
    const cluster = fakeCluster();
    const ns = obj('v1', 'Namespace', 'ns');
    const sa = obj('v1', 'ServiceAccount', 'sa', 'ns');
    const role = clusterRole('r');
    const binding = obj('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'b');
    const cms = Array.from({ length: 20 }, (_, i) => cm(`c${i}`));
    const all = [ns, sa, role, binding, ...cms].map((o) => ours(o));
    for (const o of all) cluster.seed(o);
    let inFlight = 0;
    let most = 0;
    const order: string[] = [];
    const del = cluster.client.delete.bind(cluster.client);
    cluster.client.delete = (async (ref, options) => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      order.push(`${ref.kind} ${ref.name}`);
      return del(ref, options);
    }) as typeof cluster.client.delete;
    const outcome = await deleteOwnedObjects(cluster.client, all, 'ext');
    expect(most).toBe(16);
    expect(outcome.deleted).toHaveLength(24);
    expect(order.at(-1)).toBe('Namespace ns');
    expect(cluster.objects.size).toBe(0);
  });

  it('tries every other object after a failure and leaves the Namespaces; what is already gone is fine', async () => {
    const cluster = fakeCluster({ refuse: { 'delete ConfigMap ns/a': new ApiError(503, 'ServiceUnavailable', 'try later') } });
    const ns = ours(obj('v1', 'Namespace', 'ns'));
    for (const o of [ours(cm('a')), ours(cm('b')), ns]) cluster.seed(o);
    await expect(deleteOwnedObjects(cluster.client, [ns, ours(cm('a')), ours(cm('b')), ours(cm('gone'))], 'ext')).rejects.toThrow(
      'error deleting ConfigMap ns/a: try later',
    );
    expect([...cluster.objects.keys()].sort()).toEqual(['ConfigMap ns/a', 'Namespace ns']);
  });

  it('retries (throws) what is not the API server final word', async () => {
    const cluster = fakeCluster({ refuse: { 'delete ConfigMap ns/a': new ApiError(503, 'ServiceUnavailable', 'try later') } });
    cluster.seed(ours(cm('a')));
    await expect(deleteOwnedObjects(cluster.client, [ours(cm('a'))], 'ext')).rejects.toThrow('error deleting ConfigMap ns/a: try later');
  });
});
