// The ClusterObjectSet controller (pkg/operator-controller/objectset) on the shared real
// kube-apiserver, with the experimental CRD from config/crd/experimental: a second phase waits
// until the first passes a user FieldValue probe, a Deployment phase waits for availability (no
// node here: the test writes the Deployment's status through the status subresource), an object
// another controller owns is refused under Prevent with upstream's collision report, and
// archiving a revision deletes what the next revision did not take over while keeping what it did;
// a revision holding a kind the server does not serve applies nothing (issue 69); a Secret value
// that is not JSON is reported without its bytes, and a ref without a namespace reads the system
// namespace's (issue 69).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { CLUSTER_OBJECT_SET, parseClusterObjectSet, type ClusterObjectSet, type Condition } from '../../pkg/shared/api/index.ts';
import {
  Informer,
  clientListWatch,
  connect,
  isNotFound,
  stripManagedFields,
  type KubeContext,
  type KubeObject,
} from '../../pkg/shared/kube/index.ts';
import { DEFAULT_PROGRESSION_PROBES, createObjectSetController, everyRevisionAs } from '../../pkg/operator-controller/objectset/index.ts';

const RUN = randomBytes(3).toString('hex');
const NS = `objset-${RUN}`;
const COS_TYPE = { apiVersion: CLUSTER_OBJECT_SET.apiVersion, kind: CLUSTER_OBJECT_SET.kind };
const CRD_NAME = CLUSTER_OBJECT_SET.crdName;

let kube: KubeContext;
let createdCrd = false;
const stop = new AbortController();
let running: Promise<unknown> | undefined;
const sets: string[] = [];

const configMap = (name: string, data: Record<string, string>, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NS, labels },
  data,
});

const deployment: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: NS },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'example.invalid/web:1' }] } },
  },
};

async function createSet(name: string, spec: Record<string, unknown>, labels: Record<string, string> = {}): Promise<void> {
  sets.push(name);
  await kube.client.create({
    ...COS_TYPE,
    metadata: { name, labels, annotations: { 'olm.operatorframework.io/bundle-version': '1.0.0' } },
    spec: { lifecycleState: 'Active', revision: 1, collisionProtection: 'Prevent', ...spec },
  });
}

async function setOf(name: string): Promise<ClusterObjectSet> {
  const parsed = parseClusterObjectSet(await kube.client.get({ ...COS_TYPE, name }));
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

async function condition(name: string, type: string): Promise<Condition | undefined> {
  return (await setOf(name)).status?.conditions?.find((c) => c.type === type);
}

async function liveOrUndefined(obj: KubeObject): Promise<KubeObject | undefined> {
  try {
    return await kube.client.get({ apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name ?? '', namespace: NS });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

beforeAll(async () => {
  kube = await connect({ kind: 'file', path: inject('envtestControlPlane').kubeconfigPath });
  const crd = load(
    readFileSync(new URL('../../config/crd/experimental/olm.operatorframework.io_clusterobjectsets.yaml', import.meta.url), 'utf8'),
  ) as KubeObject;
  createdCrd = await kube.client.get({ apiVersion: crd.apiVersion, kind: crd.kind, name: CRD_NAME }).then(
    () => false,
    (err: unknown) => (isNotFound(err) ? true : Promise.reject(err)),
  );
  await kube.client.apply(crd, { fieldManager: 'objectset-test', force: true });
  await vi.waitFor(
    async () => {
      kube.mapper.invalidate();
      await kube.client.list(COS_TYPE, { limit: 1 });
    },
    { timeout: 30_000, interval: 200 },
  );
  await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  const log = pino({ level: 'silent' });
  const informer = new Informer<KubeObject>({
    name: 'clusterobjectsets',
    source: clientListWatch(kube.client, COS_TYPE),
    log,
    transform: stripManagedFields,
  });
  // The installer identity is the admin here; cmd/ gives each revision its extension's client.
  const controller = createObjectSetController({
    ports: { client: kube.client, writerFor: everyRevisionAs(kube.client), systemNamespace: NS },
    informer,
    log,
    probeRequeueMs: 300,
  });
  running = Promise.all([informer.run(stop.signal), controller.run(stop.signal)]);
});

afterAll(async () => {
  // Deleted while the controller runs: it lets them go (their finalizer).
  for (const name of sets) await kube.client.delete({ ...COS_TYPE, name }).catch(() => undefined);
  await vi
    .waitFor(
      async () => {
        for (const name of sets)
          if ((await kube.client.get({ ...COS_TYPE, name }).catch(() => undefined)) !== undefined) throw new Error(`${name} still there`);
      },
      { timeout: 30_000, interval: 200 },
    )
    .catch(() => undefined);
  stop.abort();
  await running;
  await kube.client.delete({ apiVersion: 'v1', kind: 'Namespace', name: NS }).catch(() => undefined);
  if (createdCrd)
    await kube.client.delete({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: CRD_NAME }).catch(() => undefined);
  kube?.close();
});

describe('ClusterObjectSet controller on a real API server', () => {
  it("applies nothing of a revision holding a kind the server does not serve, with upstream's message", async () => {
    const name = `unserved-${RUN}`;
    const first = configMap('before-unserved', { k: 'v' });
    const unserved = { apiVersion: `unserved-${RUN}.example.com/v1`, kind: 'Gadget', metadata: { name: 'g', namespace: NS } };
    await createSet(name, {
      phases: [
        { name: 'configuration', objects: [{ object: first }] },
        { name: 'deploy', objects: [{ object: unserved }] },
      ],
    });
    await expect
      .poll(async () => (await condition(name, 'Progressing'))?.message, { timeout: 30_000 })
      .toBe(`establish watch: no matches for kind "Gadget" in version "unserved-${RUN}.example.com/v1"`);
    expect((await condition(name, 'Progressing'))?.reason).toBe('Retrying');
    expect(await liveOrUndefined(first)).toBeUndefined();
  });

  it("reports a Secret value that is not JSON by Secret and key, none of its bytes; a ref without a namespace reads OLM's own (issue 69)", async () => {
    const secret = (name: string, value: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: NS },
      immutable: true,
      data: { password: Buffer.from(value).toString('base64') },
    });
    await kube.client.create(secret('creds', 'SUPERSECRET-PASSWORD'));
    const cm = configMap('from-default-namespace', { k: 'v' });
    await kube.client.create(secret('object', JSON.stringify(cm)));
    const [leak, plain] = [`secret-leak-${RUN}`, `secret-plain-${RUN}`];
    await createSet(leak, { phases: [{ name: 'deploy', objects: [{ ref: { name: 'creds', namespace: NS, key: 'password' } }] }] });
    await createSet(plain, { phases: [{ name: 'deploy', objects: [{ ref: { name: 'object', key: 'password' } }] }] });
    await expect
      .poll(async () => (await condition(leak, 'Progressing'))?.message, { timeout: 30_000 })
      .toBe(`resolving ref in phase "deploy": unmarshaling object from key "password" in Secret ${NS}/creds: not valid JSON`);
    expect(JSON.stringify((await setOf(leak)).status)).not.toMatch(/SUPER|SECRET|PASSWORD/);
    // Before, "a namespace is required"; the CRD says the empty namespace is operator-controller's own.
    await expect.poll(async () => (await liveOrUndefined(cm))?.data, { timeout: 30_000 }).toEqual({ k: 'v' });
  });

  it('rolls phases out in order, each after the previous passes its probes', async () => {
    const name = `phases-${RUN}`;
    const gate = configMap('gate', { k: 'v' }, { gate: 'yes' });
    await createSet(name, {
      progressionProbes: [
        {
          selector: { type: 'Label', label: { matchLabels: { gate: 'yes' } } },
          assertions: [{ type: 'FieldValue', fieldValue: { fieldPath: 'metadata.annotations.ready', value: 'true' } }],
        },
        ...DEFAULT_PROGRESSION_PROBES,
      ],
      phases: [
        { name: 'configuration', objects: [{ object: gate }] },
        { name: 'deploy', objects: [{ object: deployment }] },
      ],
    });
    await expect
      .poll(async () => (await condition(name, 'Available'))?.message, { timeout: 30_000 })
      .toBe(`Object ConfigMap.v1 ${NS}/gate: missing key: "metadata.annotations.ready"`);
    expect((await condition(name, 'Available'))?.reason).toBe('ProbeFailure');
    expect((await condition(name, 'Progressing'))?.reason).toBe('RollingOut');
    expect(await liveOrUndefined(deployment)).toBeUndefined();

    await kube.client.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'gate', namespace: NS },
      { metadata: { annotations: { ready: 'true' } } },
      'merge',
    );
    await expect.poll(async () => (await liveOrUndefined(deployment)) !== undefined, { timeout: 30_000 }).toBe(true);
    await expect
      .poll(async () => (await condition(name, 'Available'))?.message ?? '', { timeout: 30_000 })
      .toMatch(new RegExp(`^Object Deployment.apps/v1 ${NS}/web: `));
    expect((await condition(name, 'Succeeded'))?.status).not.toBe('True');

    const live = await liveOrUndefined(deployment);
    await kube.client.patch(
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: NS },
      {
        status: {
          observedGeneration: live?.metadata.generation,
          replicas: 1,
          updatedReplicas: 1,
          readyReplicas: 1,
          availableReplicas: 1,
          conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'simulated' }],
        },
      },
      'merge',
      { subresource: 'status' },
    );
    await expect.poll(async () => (await condition(name, 'Succeeded'))?.status, { timeout: 30_000 }).toBe('True');
    expect(await condition(name, 'Progressing')).toMatchObject({ status: 'True', reason: 'Succeeded', message: 'Revision 1.0.0 has rolled out.' });
    expect(await condition(name, 'Available')).toMatchObject({ status: 'True', reason: 'ProbesSucceeded' });
    const set = await setOf(name);
    expect(set.metadata.finalizers).toEqual(['olm.operatorframework.io/teardown']);
    expect(set.status?.observedPhases?.map((p) => p.name)).toEqual(['configuration', 'deploy']);
    expect((await liveOrUndefined(deployment))?.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'olm.operatorframework.io/v1',
        kind: 'ClusterObjectSet',
        name,
        uid: set.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
  });

  it('refuses under Prevent an object another controller owns', async () => {
    const owner = await kube.client.create(configMap('owner', {}));
    const ownerRef = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid ?? '', controller: true };
    await kube.client.create({
      ...configMap('owned', { mine: 'yes' }),
      metadata: { ...configMap('owned', {}).metadata, ownerReferences: [ownerRef] },
    });
    const name = `collision-${RUN}`;
    await createSet(name, { phases: [{ name: 'configuration', objects: [{ object: configMap('owned', { theirs: 'no' }) }] }] });
    await expect.poll(async () => (await condition(name, 'Progressing'))?.reason, { timeout: 30_000 }).toBe('Retrying');
    expect((await condition(name, 'Progressing'))?.message).toBe(
      [
        'revision object collisions in phase 0',
        `Object ConfigMap.v1 ${NS}/owned`,
        'Action: "Collision"',
        'Probes:',
        '- Progress: Succeeded',
        `Conflicting Owner: &OwnerReference{Kind:ConfigMap,Name:owner,UID:${ownerRef.uid},APIVersion:v1,Controller:*true,BlockOwnerDeletion:nil,}`,
        '',
      ].join('\n'),
    );
    const owned = await liveOrUndefined(configMap('owned', {}));
    expect(owned?.['data']).toEqual({ mine: 'yes' });
    expect(owned?.metadata.ownerReferences).toEqual([ownerRef]);
  });

  it('holds a phase the API server refuses on a dry run, writing nothing of it', async () => {
    const name = `invalid-${RUN}`;
    const invalid: KubeObject = {
      ...deployment,
      metadata: { name: 'invalid', namespace: NS },
      spec: { replicas: 1, template: { spec: { containers: [] } } },
    };
    await createSet(name, { phases: [{ name: 'deploy', objects: [{ object: invalid }] }] });
    await expect
      .poll(async () => (await condition(name, 'Progressing'))?.message ?? '', { timeout: 30_000 })
      .toMatch(
        new RegExp(`^phase 0 validation error: phase "deploy": apps/v1, Kind=Deployment ${NS}/invalid: Deployment.apps "invalid" is invalid: `),
      );
    expect((await condition(name, 'Progressing'))?.reason).toBe('Retrying');
    expect(await liveOrUndefined(invalid)).toBeUndefined();
  });

  it('archives the previous revision once the next succeeds, deleting only what was not taken over', async () => {
    const labels = { 'olm.operatorframework.io/owner-name': `ext-${RUN}` };
    const first = `ext-${RUN}-1`;
    const second = `ext-${RUN}-2`;
    await createSet(
      first,
      {
        phases: [
          { name: 'configuration', objects: [{ object: configMap('kept', { v: '1', gone: 'in 2' }) }, { object: configMap('dropped', { v: '1' }) }] },
        ],
      },
      labels,
    );
    await expect.poll(async () => (await condition(first, 'Succeeded'))?.status, { timeout: 30_000 }).toBe('True');

    await createSet(second, { revision: 2, phases: [{ name: 'configuration', objects: [{ object: configMap('kept', { v: '2' }) }] }] }, labels);
    await expect.poll(async () => (await condition(second, 'Succeeded'))?.status, { timeout: 30_000 }).toBe('True');
    await expect.poll(async () => (await condition(first, 'Progressing'))?.reason, { timeout: 30_000 }).toBe('Archived');
    expect((await setOf(first)).spec.lifecycleState).toBe('Archived');
    expect(await condition(first, 'Available')).toMatchObject({ status: 'Unknown', reason: 'Archived', message: 'revision is archived' });
    expect(await liveOrUndefined(configMap('dropped', {}))).toBeUndefined();
    const kept = await liveOrUndefined(configMap('kept', {}));
    // A field the first revision created and the second does not declare is removed by the takeover.
    expect(kept?.['data']).toEqual({ v: '2' });
    expect(kept?.metadata.annotations?.['olm.operatorframework.io/revision']).toBe('2');
    expect(kept?.metadata.ownerReferences?.map((r) => [r.name, r.controller])).toEqual([[second, true]]);
    expect((await setOf(first)).metadata.finalizers ?? []).toEqual([]);
  });
});
