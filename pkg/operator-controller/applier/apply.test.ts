import { describe, expect, it, vi } from 'vitest';
import { FIELD_MANAGER } from '../../shared/api/index.ts';
import { ApiError, NoKindMatchError, type KubeClient, type KubeObject, type ObjectRef } from '../../shared/kube/index.ts';
import { applyPhasePositions } from './apply-order.ts';
import { ApplyError } from './apply-error.ts';
import { applyObjects, dryRunObjects, refuseUnservedKinds } from './apply.ts';
import { describeObject, droppedObjects, isCrd, objectIdentity, refOf, withOwnerLabels } from './objects.ts';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';

// ---- objects ------------------------------------------------------------------------------

function obj(apiVersion: string, kind: string, name: string, namespace?: string): KubeObject {
  return { apiVersion, kind, metadata: { name, ...(namespace === undefined ? {} : { namespace }) } };
}

const crd = (name: string): KubeObject => obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', name);
const ns = (name: string): KubeObject => obj('v1', 'Namespace', name);
const sa = (name: string): KubeObject => obj('v1', 'ServiceAccount', name, 'ns');
const role = (name: string): KubeObject => obj('rbac.authorization.k8s.io/v1', 'Role', name, 'ns');
const clusterRole = (name: string): KubeObject => obj('rbac.authorization.k8s.io/v1', 'ClusterRole', name);
const binding = (name: string): KubeObject => obj('rbac.authorization.k8s.io/v1', 'RoleBinding', name, 'ns');
const clusterBinding = (name: string): KubeObject => obj('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', name);
const deploy = (name: string): KubeObject => obj('apps/v1', 'Deployment', name, 'ns');
const cm = (name: string): KubeObject => obj('v1', 'ConfigMap', name, 'ns');

const names = (objects: readonly KubeObject[]): string[] => objects.map(describeObject);

describe('objects', () => {
  it('describeObject names namespaced and cluster-scoped objects as upstream messages do', () => {
    expect(describeObject(deploy('d'))).toBe('Deployment ns/d');
    expect(describeObject(clusterRole('r'))).toBe('ClusterRole r');
    expect(describeObject({ kind: 'ConfigMap', metadata: { namespace: '', name: 'x' } })).toBe('ConfigMap x');
    expect(describeObject({ kind: 'ConfigMap' })).toBe('ConfigMap <unnamed>');
  });

  it('refOf leaves the namespace out for cluster-scoped objects', () => {
    expect(refOf(deploy('d'))).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', namespace: 'ns' });
    expect(refOf(clusterRole('r'))).toEqual({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'r' });
  });

  it('objectIdentity ignores the version, so a kind moving to a newer apiVersion is the same object', () => {
    expect(objectIdentity(obj('autoscaling/v1', 'HorizontalPodAutoscaler', 'h', 'ns'))).toBe(
      objectIdentity(obj('autoscaling/v2', 'HorizontalPodAutoscaler', 'h', 'ns')),
    );
    expect(objectIdentity(deploy('d'))).not.toBe(objectIdentity(obj('apps/v1', 'Deployment', 'd', 'other')));
    expect(droppedObjects([deploy('a'), cm('b'), crd('c')], [cm('b')])).toEqual([deploy('a'), crd('c')]);
  });

  it('isCrd needs the apiextensions group', () => {
    expect(isCrd(crd('x'))).toBe(true);
    expect(isCrd(obj('example.com/v1', 'CustomResourceDefinition', 'x'))).toBe(false);
  });

  it('withOwnerLabels merges the owner labels over the object labels without modifying the input', () => {
    const input: KubeObject = { ...cm('c'), metadata: { name: 'c', labels: { app: 'x', 'olm.operatorframework.io/owner-name': 'other' } } };
    const [out] = withOwnerLabels([input], 'ext');
    expect(out?.metadata.labels).toEqual({
      app: 'x',
      'olm.operatorframework.io/owner-kind': 'ClusterExtension',
      'olm.operatorframework.io/owner-name': 'ext',
    });
    expect(input.metadata.labels).toEqual({ app: 'x', 'olm.operatorframework.io/owner-name': 'other' });
  });
});

// ---- apply order --------------------------------------------------------------------------

describe('applyPhasePositions', () => {
  it('puts CRDs, namespaces, ServiceAccounts, roles, bindings first and keeps the rest in input order', () => {
    const input = [
      deploy('d1'),
      clusterBinding('cb'),
      cm('c1'),
      binding('b'),
      role('r'),
      sa('s'),
      ns('n'),
      crd('x'),
      clusterRole('cr'),
      crd('y'),
      deploy('d2'),
      obj('example.com/v1', 'Role', 'not-rbac', 'ns'),
    ];
    expect(names(applyPhasePositions(input).flatMap((phase) => phase.map((i) => input[i]!)))).toEqual([
      'CustomResourceDefinition x',
      'CustomResourceDefinition y',
      'Namespace n',
      'ServiceAccount ns/s',
      'Role ns/r',
      'ClusterRole cr',
      'ClusterRoleBinding cb',
      'RoleBinding ns/b',
      'Deployment ns/d1',
      'ConfigMap ns/c1',
      'Deployment ns/d2',
      'Role ns/not-rbac',
    ]);
    // Six phases, empty ones kept.
    expect(applyPhasePositions([deploy('d')])).toEqual([[], [], [], [], [], [0]]);
  });
});

// ---- applyObjects against a fake client --------------------------------------

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

interface FakeOptions {
  /** Errors to throw for `apply` of an object, by `Kind ns/name`. */
  refuse?: Record<string, Error>;
  /** Errors to throw for `delete`, by `Kind ns/name`. */
  refuseDelete?: Record<string, Error>;
  /** Conditions the CRD GET returns, one entry per GET (the last repeats). */
  crdConditions?: Condition[][];
  /** Status conditions in the answer of `apply`, by `Kind ns/name` (default: the object as sent). */
  appliedConditions?: Record<string, Condition[]>;
}

/** A KubeClient recording apply/get/delete in order. */
function fakeClient(o: FakeOptions = {}): { client: KubeClient; calls: string[]; applyOptions: unknown[] } {
  const calls: string[] = [];
  const applyOptions: unknown[] = [];
  const gets = new Map<string, number>();
  // The calls applyObjects makes, over fakeCluster's client for the rest.
  const client: KubeClient = {
    ...fakeCluster().client,
    apply: <T extends KubeObject>(obj: KubeObject, options: unknown) => {
      const what = describeObject(obj);
      calls.push(`apply ${what}`);
      applyOptions.push(options);
      const refused = o.refuse?.[what];
      if (refused !== undefined) return Promise.reject(refused);
      const conditions = o.appliedConditions?.[what];
      const applied: KubeObject = conditions === undefined ? obj : { ...obj, status: { conditions } };
      return Promise.resolve(applied as T);
    },
    get: <T extends KubeObject>(ref: ObjectRef) => {
      const what = describeObject({
        kind: ref.kind,
        metadata: { name: ref.name, ...(ref.namespace === undefined ? {} : { namespace: ref.namespace }) },
      });
      calls.push(`get ${what}`);
      const n = gets.get(what) ?? 0;
      gets.set(what, n + 1);
      const seq = o.crdConditions ?? [[{ type: 'Established', status: 'True' }]];
      const conditions = seq[Math.min(n, seq.length - 1)] ?? [];
      const live: KubeObject = { apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: ref.name }, status: { conditions } };
      return Promise.resolve(live as T);
    },
    delete: (ref: ObjectRef) => {
      const what = describeObject({
        kind: ref.kind,
        metadata: { name: ref.name, ...(ref.namespace === undefined ? {} : { namespace: ref.namespace }) },
      });
      calls.push(`delete ${what}`);
      const refused = o.refuseDelete?.[what];
      if (refused !== undefined) return Promise.reject(refused);
      return Promise.resolve({});
    },
  };
  return { client, calls, applyOptions };
}

const notEstablished: Condition[] = [
  { type: 'NamesAccepted', status: 'True' },
  { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have not been accepted' },
];

async function applyError(p: Promise<unknown>): Promise<ApplyError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof ApplyError)) throw new Error(`expected an ApplyError, got ${String(e)}`);
  return e;
}

describe('applyObjects', () => {
  it('applies CRDs, waits until they are Established, then the rest in apply order, with our field manager and force', async () => {
    const { client, calls, applyOptions } = fakeClient({
      crdConditions: [notEstablished, notEstablished, [{ type: 'Established', status: 'True' }]],
    });
    const applied: string[] = [];
    await applyObjects(client, [deploy('d'), binding('b'), role('r'), sa('s'), ns('n'), crd('x')], {
      pollMs: 1,
      onApplied: (o) => applied.push(describeObject(o)),
    });
    expect(calls).toEqual([
      'apply CustomResourceDefinition x',
      'get CustomResourceDefinition x',
      'get CustomResourceDefinition x',
      'get CustomResourceDefinition x',
      'apply Namespace n',
      'apply ServiceAccount ns/s',
      'apply Role ns/r',
      'apply RoleBinding ns/b',
      'apply Deployment ns/d',
    ]);
    expect(applied).toEqual(calls.filter((c) => c.startsWith('apply ')).map((c) => c.slice('apply '.length)));
    for (const o of applyOptions) expect(o).toMatchObject({ fieldManager: FIELD_MANAGER, force: true });
  });

  it('applies every CRD before waiting for any of them', async () => {
    const { client, calls } = fakeClient();
    await applyObjects(client, [crd('x'), crd('y'), cm('c')], { pollMs: 1 });
    expect(calls).toEqual([
      'apply CustomResourceDefinition x',
      'apply CustomResourceDefinition y',
      'get CustomResourceDefinition x',
      'get CustomResourceDefinition y',
      'apply ConfigMap ns/c',
    ]);
  });

  it('reads a CRD again only when the apply answer does not show it Established', async () => {
    const { client, calls } = fakeClient({
      appliedConditions: { 'CustomResourceDefinition x': [{ type: 'Established', status: 'True' }], 'CustomResourceDefinition y': notEstablished },
    });
    await applyObjects(client, [crd('x'), crd('y'), cm('c')], { pollMs: 1 });
    expect(calls.filter((c) => c.startsWith('get '))).toEqual(['get CustomResourceDefinition y']);
    expect(calls.at(-1)).toBe('apply ConfigMap ns/c');
  });

  it('fails fast when a CRD names are not accepted, with the condition message, and applies nothing after it', async () => {
    const { client, calls } = fakeClient({
      crdConditions: [
        [
          { type: 'NamesAccepted', status: 'False', reason: 'MultipleNameConflict', message: '"widgets" is already in use' },
          { type: 'Established', status: 'False' },
        ],
      ],
    });
    const e = await applyError(applyObjects(client, [crd('widgets.example.com'), cm('c')], { pollMs: 1 }));
    expect(e.message).toBe('error applying CustomResourceDefinition widgets.example.com: names not accepted: "widgets" is already in use');
    expect(e.object).toBe('CustomResourceDefinition widgets.example.com');
    expect(calls).toEqual(['apply CustomResourceDefinition widgets.example.com', 'get CustomResourceDefinition widgets.example.com']);
  });

  it('gives up when a CRD is not Established in time, naming the last Established message', async () => {
    // The timeout is what is tested: fake time.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const { client, calls } = fakeClient({ crdConditions: [notEstablished] });
      const started = Date.now();
      const failed = applyError(applyObjects(client, [crd('x'), cm('c')], { pollMs: 20, crdEstablishTimeoutMs: 1000 }));
      await vi.advanceTimersByTimeAsync(1_100);
      const e = await failed;
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
      expect(e.message).toBe('error applying CustomResourceDefinition x: not Established after 1 s: the initial names have not been accepted');
      expect(calls.filter((c) => c.startsWith('get')).length).toBeGreaterThan(2);
      expect(calls).not.toContain('apply ConfigMap ns/c');
    } finally {
      vi.useRealTimers();
    }
  });

  it('stops at the first refusal with `error applying <Kind ns/name>: <message>` and applies nothing after it', async () => {
    const refusal = new ApiError(422, 'Invalid', 'Deployment.apps "d" is invalid: spec.replicas: Invalid value: -1');
    const { client, calls } = fakeClient({ refuse: { 'Deployment ns/d': refusal } });
    const e = await applyError(applyObjects(client, [cm('a'), deploy('d'), cm('z'), role('r')], { pollMs: 1 }));
    expect(e.message).toBe('error applying Deployment ns/d: Deployment.apps "d" is invalid: spec.replicas: Invalid value: -1');
    expect(e.object).toBe('Deployment ns/d');
    expect(e.cause).toBe(refusal);
    expect(calls).toEqual(['apply Role ns/r', 'apply ConfigMap ns/a', 'apply Deployment ns/d']);
  });

  it('names cluster-scoped objects without a namespace and stops before later phases', async () => {
    const { client, calls } = fakeClient({ refuse: { 'ClusterRole cr': new Error('forbidden: escalation') } });
    const e = await applyError(applyObjects(client, [clusterBinding('cb'), clusterRole('cr'), cm('c')], { pollMs: 1 }));
    expect(e.message).toBe('error applying ClusterRole cr: forbidden: escalation');
    expect(calls).toEqual(['apply ClusterRole cr']);
  });

  it('stops between objects when the signal aborts', async () => {
    const ac = new AbortController();
    const { client, calls } = fakeClient();
    const p = applyObjects(client, [cm('a'), cm('b')], { signal: ac.signal, onApplied: () => ac.abort(new Error('stop')) });
    await expect(p).rejects.toThrow('stop');
    expect(calls).toEqual(['apply ConfigMap ns/a']);
  });
});

describe('dryRunObjects', () => {
  /** A client whose dry-run applies refuse the objects named in `refusals` (by `Kind ns/name`). */
  function refusing(refusals: Record<string, Error>): KubeClient {
    return fakeCluster({ refuse: Object.fromEntries(Object.entries(refusals).map(([what, err]) => [`dry-run ${what}`, err])) }).client;
  }
  const prefix = 'failed to get release state using server-side dry-run: ';
  const invalidCrd =
    'CustomResourceDefinition.apiextensions.k8s.io "w.example.com" is invalid: spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion(nil): must have exactly one version marked as storage version';
  const forbidden =
    'deployments.apps "d" is forbidden: User "system:serviceaccount:ns:sa" cannot patch resource "deployments" in API group "apps" in the namespace "ns"';
  const issuer = obj('cert-manager.io/v1', 'Issuer', 'selfsigned', 'ns');
  const post = `${prefix}error while running post render on files: postrenderer[0] (*client.ownerPostRenderer) failed: `;
  const notFound = (name: string, namespace: string, kind: string, version: string): string =>
    `resource mapping not found for name: "${name}" namespace: "${namespace}" from "": no matches for kind "${kind}" in version "${version}"\nensure CRDs are installed first`;

  // Upstream finds these before its first write too (its Helm dry run) and says so with the prefix;
  // a kind the cluster does not serve fails upstream's owner post-renderer, with its text.
  it.each<[string, KubeObject, Error, string]>([
    ['a CRD the API server refuses', crd('w.example.com'), new ApiError(422, 'Invalid', invalidCrd), prefix + invalidCrd],
    ['an object the ServiceAccount may not write', deploy('d'), new ApiError(403, 'Forbidden', forbidden), prefix + forbidden],
    [
      'a kind the cluster does not serve',
      issuer,
      new NoKindMatchError({ group: 'cert-manager.io', version: 'v1', kind: 'Issuer' }),
      `${post}resource mapping not found for name: "selfsigned" namespace: "ns" from "": no matches for kind "Issuer" in version "cert-manager.io/v1"\nensure CRDs are installed first`,
    ],
  ])("%s: upstream's dry-run message, the object named on the error", async (_name, refused, refusal, message) => {
    const err: unknown = await dryRunObjects(refusing({ [describeObject(refused)]: refusal }), [cm('a'), refused], new Set()).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApplyError);
    expect((err as ApplyError).message).toBe(message);
    expect((err as ApplyError).object).toBe(describeObject(refused));
  });

  // Upstream's Helm maps every object before any request: all objects of unserved kinds are
  // listed, in manifest order, whatever else would be refused, and nothing is sent.
  const cert = obj('cert-manager.io/v1', 'Certificate', 'serving-cert', 'ns');
  const vpa = obj('autoscaling.k8s.io/v1', 'VerticalPodAutoscaler', 'vpa');
  const widgetCrd: KubeObject = {
    ...crd('widgets.example.com'),
    spec: { group: 'example.com', names: { kind: 'Widget', plural: 'widgets' } },
  };
  const widget = obj('example.com/v1', 'Widget', 'w', 'ns');
  const unserved = [
    'cert-manager.io/v1/Issuer',
    'cert-manager.io/v1/Certificate',
    'autoscaling.k8s.io/v1/VerticalPodAutoscaler',
    'example.com/v1/Widget',
  ];
  it.each<[string, KubeObject[], string, string]>([
    [
      'one kind, one object, among served ones',
      [cm('a'), issuer, deploy('d')],
      'Issuer ns/selfsigned',
      post + notFound('selfsigned', 'ns', 'Issuer', 'cert-manager.io/v1'),
    ],
    [
      'two kinds, in manifest order, not apply order',
      [cm('a'), cert, deploy('d'), issuer],
      'Certificate ns/serving-cert',
      `${post}[${notFound('serving-cert', 'ns', 'Certificate', 'cert-manager.io/v1')}, ${notFound('selfsigned', 'ns', 'Issuer', 'cert-manager.io/v1')}]`,
    ],
    [
      'one kind for several objects, a cluster-scoped one with namespace ""',
      [vpa, issuer, obj('autoscaling.k8s.io/v1', 'VerticalPodAutoscaler', 'vpa2')],
      'VerticalPodAutoscaler vpa',
      `${post}[${notFound('vpa', '', 'VerticalPodAutoscaler', 'autoscaling.k8s.io/v1')}, ${notFound('selfsigned', 'ns', 'Issuer', 'cert-manager.io/v1')}, ${notFound('vpa2', '', 'VerticalPodAutoscaler', 'autoscaling.k8s.io/v1')}]`,
    ],
    [
      "custom resources of the release's own CRD are not missing",
      [widgetCrd, widget, issuer],
      'Issuer ns/selfsigned',
      post + notFound('selfsigned', 'ns', 'Issuer', 'cert-manager.io/v1'),
    ],
  ])('%s', async (_name, objects, first, message) => {
    const { client, calls } = fakeCluster({ unserved, refuse: { 'dry-run ConfigMap ns/a': new ApiError(403, 'Forbidden', forbidden) } });
    const err: unknown = await refuseUnservedKinds(client, objects).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplyError);
    expect((err as ApplyError).message).toBe(message);
    expect((err as ApplyError).object).toBe(first);
    expect(calls.filter((c) => !c.startsWith('resource'))).toEqual([]);
  });

  it('passes when every kind is served or defined by the release', async () => {
    const { client, calls } = fakeCluster({ unserved });
    await expect(refuseUnservedKinds(client, [widgetCrd, widget, cm('a')])).resolves.toBeUndefined();
    expect(calls.filter((c) => !c.startsWith('resource'))).toEqual([]);
  });
});
