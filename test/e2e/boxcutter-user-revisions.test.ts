// A ServiceAccount allowed only ClusterObjectSet rights gains nothing through them (issue 69 item
// 1, decision 0126). operator-controller runs with the BoxcutterRuntime on the shared control
// plane, its default installer and an extension's installer bound to cluster-admin (as under
// `olmv1 up`), and --user-revision-service-account naming a ServiceAccount that may only patch
// ClusterRoles. The attacker creates three revisions: (1) without owner label, binding itself to
// cluster-admin; (2) the same, labelled as the other extension's; (3) adopting the built-in
// ClusterRole system:basic-user under collision protection None, with a rule added. No binding
// is created, system:basic-user is neither changed nor adopted, the conditions say why, and
// deleting the revisions changes nothing. Before decision 0126 (1) was written as the default
// installer and (2) as the extension's: the bindings were created.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { FEATURE_GATE_DEFAULTS } from '../../cmd/operator-controller/options.ts';
import { CLUSTER_EXTENSION, CLUSTER_OBJECT_SET } from '../../pkg/shared/api/index.ts';
import { connect, isNotFound, type KubeClient, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { ensureServiceAccount, requestServiceAccountToken, serviceAccountKubeconfig } from '../envtest/index.ts';
import { clusterExtension } from '../support/extensions.ts';
import { installOlmConfig } from '../support/olm-config.ts';
import { startOperatorController, type TestOperatorController } from '../support/operator-controller.ts';

const run = randomBytes(3).toString('hex');
const NS = `userrev-${run}`;
const VICTIM = `victim-${run}`;
const COS_TYPE = { apiVersion: CLUSTER_OBJECT_SET.apiVersion, kind: CLUSTER_OBJECT_SET.kind };
const CRB_TYPE = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' };
const BASIC_USER = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'system:basic-user' };

let kube: KubeContext;
let attacker: KubeContext;
let controller: TestOperatorController | undefined;
let createdCrd = false;
let dir: string | undefined;

const clusterAdminBinding = (name: string, namespace: string, sa: string): KubeObject => ({
  ...CRB_TYPE,
  metadata: { name },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
  subjects: [{ kind: 'ServiceAccount', name: sa, namespace }],
});

/** A revision of one phase holding `object`. */
const revision = (name: string, object: object, extra: { labels?: Record<string, string>; protection?: string } = {}): KubeObject => ({
  ...COS_TYPE,
  metadata: { name, ...(extra.labels === undefined ? {} : { labels: extra.labels }) },
  spec: {
    lifecycleState: 'Active',
    revision: 1,
    collisionProtection: extra.protection ?? 'Prevent',
    phases: [{ name: 'rbac', objects: [{ object }] }],
  },
});

async function gone(client: KubeClient, ref: { apiVersion: string; kind: string; name: string; namespace?: string }): Promise<boolean> {
  return client.get(ref).then(
    () => false,
    (err: unknown) => (isNotFound(err) ? true : Promise.reject(err)),
  );
}

async function progressing(name: string): Promise<{ status?: string; reason?: string; message?: string } | undefined> {
  const set = await kube.client.get({ ...COS_TYPE, name });
  const conditions = (set['status'] as { conditions?: { type: string; status?: string; reason?: string; message?: string }[] } | undefined)
    ?.conditions;
  return (conditions ?? []).find((c) => c.type === 'Progressing');
}

beforeAll(async () => {
  const cp = inject('envtestControlPlane');
  await installOlmConfig(cp);
  kube = await connect({ kind: 'file', path: cp.kubeconfigPath });
  const crd = load(
    await readFile(new URL('../../config/crd/experimental/olm.operatorframework.io_clusterobjectsets.yaml', import.meta.url), 'utf8'),
  ) as KubeObject;
  createdCrd = await gone(kube.client, { apiVersion: crd.apiVersion, kind: crd.kind, name: CLUSTER_OBJECT_SET.crdName });
  await kube.client.apply(crd, { fieldManager: 'e2e-admin', force: true });
  await vi.waitFor(
    async () => {
      kube.mapper.invalidate();
      await kube.client.list(COS_TYPE, { limit: 1 });
    },
    { timeout: 30_000, interval: 200 },
  );
  await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'olmv1-system' } }).catch(() => undefined);
  // The default installer and the victim extension's installer: cluster-admin, as under `olmv1 up`.
  for (const sa of ['default-installer', 'victim-installer', 'user-revisions', 'attacker']) await ensureServiceAccount(cp, NS, sa);
  await kube.client.create(clusterAdminBinding(`${NS}-default-installer`, NS, 'default-installer'));
  await kube.client.create(clusterAdminBinding(`${NS}-victim-installer`, NS, 'victim-installer'));
  // The identity for user-made revisions may change ClusterRoles, nothing else.
  await kube.client.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: `${NS}-user-revisions` },
    rules: [
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['get', 'list', 'watch', 'patch', 'update', 'escalate'] },
    ],
  });
  await kube.client.create({
    ...CRB_TYPE,
    metadata: { name: `${NS}-user-revisions` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${NS}-user-revisions` },
    subjects: [{ kind: 'ServiceAccount', name: 'user-revisions', namespace: NS }],
  });
  // The attacker: ClusterObjectSets only.
  await kube.client.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: `${NS}-attacker` },
    rules: [{ apiGroups: ['olm.operatorframework.io'], resources: ['clusterobjectsets'], verbs: ['create', 'get', 'list', 'watch', 'delete'] }],
  });
  await kube.client.create({
    ...CRB_TYPE,
    metadata: { name: `${NS}-attacker` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${NS}-attacker` },
    subjects: [{ kind: 'ServiceAccount', name: 'attacker', namespace: NS }],
  });
  dir = await mkdtemp(join(tmpdir(), 'userrev-'));
  await writeFile(join(dir, 'kubeconfig'), serviceAccountKubeconfig(cp, await requestServiceAccountToken(cp, NS, 'attacker')));
  attacker = await connect({ kind: 'file', path: join(dir, 'kubeconfig') });
  // The extension the second revision claims to be of (never installs: no catalog; it is there to be named).
  await kube.client.create(clusterExtension(VICTIM, { namespace: NS, serviceAccount: 'victim-installer', packageName: `nothing-${run}` }));
  controller = await startOperatorController(cp, {
    featureGates: { ...FEATURE_GATE_DEFAULTS, BoxcutterRuntime: true },
    defaultInstallServiceAccount: { namespace: NS, name: 'default-installer' },
    userRevisionServiceAccount: { namespace: NS, name: 'user-revisions' },
  });
}, 120_000);

afterAll(async () => {
  await controller?.destroy();
  const ce = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind, name: VICTIM };
  await kube?.client.patch(ce, { metadata: { finalizers: null } }, 'merge').catch(() => undefined);
  await kube?.client.delete(ce).catch(() => undefined);
  for (const name of ['a', 'b', 'c']) {
    const ref = { ...COS_TYPE, name: `${NS}-${name}` };
    await kube?.client.patch(ref, { metadata: { finalizers: null } }, 'merge').catch(() => undefined);
    await kube?.client.delete(ref).catch(() => undefined);
  }
  if (createdCrd)
    await kube?.client.delete({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: CLUSTER_OBJECT_SET.crdName });
  attacker?.close();
  kube?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('a ServiceAccount with only ClusterObjectSet rights', () => {
  it('gains nothing: no binding, no adoption of system:basic-user, nothing changed or deleted, the revisions say why', async () => {
    const before = await kube.client.get(BASIC_USER);
    const basicUser = {
      ...before,
      metadata: { name: 'system:basic-user' },
      rules: [...((before['rules'] as object[] | undefined) ?? []), { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }],
    };
    await attacker.client.create(revision(`${NS}-a`, clusterAdminBinding(`${NS}-a`, NS, 'attacker')));
    await attacker.client.create(
      revision(`${NS}-b`, clusterAdminBinding(`${NS}-b`, NS, 'attacker'), { labels: { 'olm.operatorframework.io/owner-name': VICTIM } }),
    );
    await attacker.client.create(revision(`${NS}-c`, basicUser, { protection: 'None' }));

    // (1) and (2): written as the identity for user-made revisions, which may not bind anyone.
    for (const name of ['a', 'b']) {
      await expect.poll(async () => (await progressing(`${NS}-${name}`))?.message ?? '', { timeout: 60_000, interval: 250 }).toMatch(/forbidden/);
      expect(await progressing(`${NS}-${name}`)).toMatchObject({ status: 'True', reason: 'Retrying' });
    }
    // (3): refused whole, whatever the collision protection.
    await expect.poll(async () => (await progressing(`${NS}-c`))?.reason, { timeout: 60_000, interval: 250 }).toBe('Blocked');
    expect((await progressing(`${NS}-c`))?.message).toContain(
      'ClusterRole system:basic-user belongs to the system (its name starts with "system:"): a revision never adopts, changes or deletes it',
    );
    for (const name of ['a', 'b']) expect(await gone(kube.client, { ...CRB_TYPE, name: `${NS}-${name}` })).toBe(true);
    const after = await kube.client.get(BASIC_USER);
    expect(after['rules']).toEqual(before['rules']);
    expect(after.metadata.ownerReferences ?? []).toEqual([]);
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);

    for (const name of ['a', 'b', 'c']) await attacker.client.delete({ ...COS_TYPE, name: `${NS}-${name}` });
    for (const name of ['a', 'b', 'c'])
      await expect.poll(() => gone(kube.client, { ...COS_TYPE, name: `${NS}-${name}` }), { timeout: 30_000, interval: 250 }).toBe(true);
    const last = await kube.client.get(BASIC_USER);
    expect(last.metadata.uid).toBe(before.metadata.uid);
    expect(last.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    for (const name of ['a', 'b']) expect(await gone(kube.client, { ...CRB_TYPE, name: `${NS}-${name}` })).toBe(true);
  });
});
