// kube-apiserver leaves a CRD whose names it finds accepted when it starts un-Established until
// its informer's 5-minute resync (it queues establishing on update events only); the applier's
// wait nudges such a CRD (pkg/operator-controller/applier/crd-establish.ts). The stuck state is
// made on a private control plane: the CRD, as stored, has its Established condition set back to
// False in etcd while kube-apiserver is down.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../envtest/index.ts';
import { connect, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { ESTABLISH_NUDGE_ANNOTATION, waitEstablished, type CrdStatus } from '../../pkg/operator-controller/applier/index.ts';

const NAME = 'widgets.establish.e2e.test';
const REF = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: NAME };
const CRD: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: NAME },
  spec: {
    group: 'establish.e2e.test',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
    ],
  },
};

let cp: ControlPlane;
let kube: KubeContext;

beforeAll(async () => {
  cp = await startControlPlane({ binaries: inject('envtestBinaries') });
  kube = await connect({ kind: 'file', path: cp.info.kubeconfigPath });
});
afterAll(async () => {
  kube?.close();
  await cp?.stop();
});

type Crd = KubeObject & CrdStatus;
const established = (crd: Crd): boolean => (crd.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');

async function until(what: string, cond: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  await expect.poll(cond, { timeout: timeoutMs, interval: 50, message: `waiting for ${what}` }).toBe(true);
}

// Writes `obj` as JSON under its etcd key (kube-apiserver reads JSON as well as protobuf).
async function putInEtcd(obj: KubeObject): Promise<void> {
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  const res = await fetch(`${cp.info.etcdUrl}/v3/kv/put`, {
    method: 'POST',
    body: JSON.stringify({ key: b64(`/registry/apiextensions.k8s.io/customresourcedefinitions/${NAME}`), value: b64(JSON.stringify(obj)) }),
  });
  expect(res.status, await res.text()).toBe(200);
}

describe('a CRD kube-apiserver found accepted but not Established when it started', () => {
  it('stays un-Established on its own, and is Established once the applier nudges it, with no annotation left', async () => {
    await kube.client.apply(CRD, { fieldManager: 'e2e', force: true });
    await until('the CRD is Established', async () => established(await kube.client.get<Crd>(REF)), 30_000);
    const stored = structuredClone(await kube.client.get<Crd>(REF));
    delete stored.metadata.resourceVersion;
    stored.status = {
      ...stored.status,
      conditions: (stored.status?.conditions ?? []).map((c) =>
        c.type === 'Established' ? { ...c, status: 'False', reason: 'InstallPending', message: 'the initial names have been accepted' } : c,
      ),
    };
    await cp.restartApiServer({ whileDown: () => putInEtcd(stored) });

    // Longer than kube-apiserver ever waits to establish (5 s with several API servers): stuck.
    // Sampled until the window ends; one Established reading fails the test.
    const watchedUntil = Date.now() + 8_000;
    let seenEstablished = false;
    await expect
      .poll(
        async () => {
          if (established(await kube.client.get<Crd>(REF))) seenEstablished = true;
          if (seenEstablished) return 'Established within the window';
          return Date.now() < watchedUntil ? 'watching' : 'never Established';
        },
        { timeout: 20_000, interval: 250, message: 'the CRD stays un-Established on its own' },
      )
      .toBe('never Established');

    const started = Date.now();
    await waitEstablished(kube.client, CRD, undefined, { crdEstablishNudgeAfterMs: 1_000, crdEstablishTimeoutMs: 30_000 });
    expect(Date.now() - started).toBeLessThan(10_000);
    const after = await kube.client.get<Crd>(REF);
    expect(established(after)).toBe(true);
    expect(after.metadata.annotations?.[ESTABLISH_NUDGE_ANNOTATION]).toBeUndefined();
  }, 120_000);
});
