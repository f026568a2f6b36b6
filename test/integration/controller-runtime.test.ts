// The generic controller runtime end to end on the shared kube-apiserver: informer -> queue ->
// reconciler -> status/finalizer writer, with conditions that settle (no update loop),
// finalizer-driven deletion, readiness on the health endpoint and reconcile metrics.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { Controller, HealthServer, StepReconciler, setStatusCondition, type Condition } from '../../pkg/shared/controller/index.ts';
import { createCertificateAuthority, issueCertificate } from '../envtest/index.ts';
import { customResourceDefinition } from '../support/crds.ts';
import {
  Informer,
  clientListWatch,
  connect,
  isNotFound,
  stripManagedFields,
  type KubeContext,
  type KubeObject,
} from '../../pkg/shared/kube/index.ts';

const suffix = randomBytes(3).toString('hex');
const GROUP = `ctl${suffix}.example.com`;
const TYPE = { apiVersion: `${GROUP}/v1`, kind: 'Gadget' };
const FINALIZER = `${GROUP}/cleanup`;
let kube: KubeContext;

interface Gadget extends KubeObject {
  spec: { size: number };
  status?: { conditions?: Condition[] };
}

beforeAll(async () => {
  kube = await connect({ kind: 'file', path: inject('envtestControlPlane').kubeconfigPath });
  await kube.client.apply(
    customResourceDefinition({
      group: GROUP,
      kind: 'Gadget',
      plural: 'gadgets',
      scope: 'Cluster',
      subresources: { status: {} },
      schema: {
        type: 'object',
        properties: {
          spec: { type: 'object', properties: { size: { type: 'integer' } } },
          status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
    }),
    { fieldManager: 'test', force: true },
  );
  await vi.waitFor(
    async () => {
      if (await kube.mapper.hasGroupVersion(GROUP, 'v1')) return;
      kube.mapper.invalidate();
      throw new Error(`discovery does not serve ${GROUP}/v1 yet`);
    },
    { timeout: 10_000, interval: 100 },
  );
});
afterAll(() => kube?.close());

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  return vi.waitFor(
    async () => {
      const v = await probe();
      if (v === undefined) throw new Error(`timed out waiting for ${what}`);
      return v;
    },
    { timeout: timeoutMs, interval: 100 },
  );
}

describe('controller runtime against a real API server', () => {
  it('reconciles status and finalizers once, settles, and handles deletion', async () => {
    const log = pino({ level: 'silent' });
    const registry = new Registry();
    const informer = new Informer<Gadget>({
      name: 'gadgets',
      source: clientListWatch<Gadget>(kube.client, TYPE),
      log,
      registry,
      transform: stripManagedFields,
      resyncPeriodMs: 0,
    });
    let reconciles = 0;
    const controller = new Controller({
      name: 'gadget-controller',
      log,
      registry,
      watches: [{ informer }],
      reconciler: new StepReconciler<Gadget, Gadget>({
        client: kube.client,
        type: TYPE,
        parse: (input) => ({ ok: true, value: input as Gadget }),
        state: (g) => g,
        steps: [
          {
            name: 'gadget',
            run: async (g) => {
              reconciles++;
              if (g.metadata.deletionTimestamp !== undefined) {
                g.metadata.finalizers = (g.metadata.finalizers ?? []).filter((f) => f !== FINALIZER);
                return;
              }
              if (!(g.metadata.finalizers ?? []).includes(FINALIZER)) g.metadata.finalizers = [...(g.metadata.finalizers ?? []), FINALIZER];
              g.status ??= {};
              g.status.conditions ??= [];
              setStatusCondition(g.status.conditions, {
                type: 'Ready',
                status: 'True',
                reason: 'Succeeded',
                message: `size ${g.spec.size}`,
                observedGeneration: g.metadata.generation ?? 0,
              });
              return undefined;
            },
          },
        ],
      }),
    });
    const health = new HealthServer({ port: 0, host: '127.0.0.1', registry, log });
    health.addReadinessCheck('gadget-controller', () => (controller.started ? true : 'not started'));
    await health.start();
    const ctl = new AbortController();
    const informerDone = informer.run(ctl.signal);
    const controllerDone = controller.run(ctl.signal);

    await until('readiness', async () => ((await fetch(`http://127.0.0.1:${health.port}/readyz`)).status === 200 ? true : undefined));
    await kube.client.create({ ...TYPE, metadata: { name: 'g1' }, spec: { size: 1 } });
    const ready = await until('the Ready condition', async () => {
      const g = await kube.client.get<Gadget>({ ...TYPE, name: 'g1' });
      return g.status?.conditions?.find((c) => c.type === 'Ready') !== undefined && (g.metadata.finalizers ?? []).includes(FINALIZER) ? g : undefined;
    });
    expect(ready.status?.conditions).toEqual([
      {
        type: 'Ready',
        status: 'True',
        reason: 'Succeeded',
        message: 'size 1',
        observedGeneration: 1,
        lastTransitionTime: expect.stringMatching(/Z$/),
      },
    ]);

    // The writes trigger more events; the controller must settle instead of looping: at some
    // point the informer holds the object's latest resourceVersion while nothing is queued or
    // in flight, so no event or reconcile is left that could write again. A controller that
    // rewrote the object on every reconcile never gets there.
    const settled = await until('the controller to settle', async () => {
      const g = await kube.client.get<Gadget>({ ...TYPE, name: 'g1' });
      await controller.queue.drain();
      const idle = controller.queue.length === 0 && informer.get('g1')?.metadata.resourceVersion === g.metadata.resourceVersion;
      return idle ? g : undefined;
    });
    // The create and the reconciler's own writes (finalizer, status), each reconciled at most once.
    expect(reconciles).toBeLessThanOrEqual(3);
    expect((await kube.client.get<Gadget>({ ...TYPE, name: 'g1' })).metadata.resourceVersion).toBe(settled.metadata.resourceVersion);

    // A spec change updates message and observedGeneration but not lastTransitionTime.
    await kube.client.patch({ ...TYPE, name: 'g1' }, { spec: { size: 2 } }, 'merge');
    const updated = await until('observedGeneration 2', async () => {
      const g = await kube.client.get<Gadget>({ ...TYPE, name: 'g1' });
      return g.status?.conditions?.[0]?.observedGeneration === 2 ? g : undefined;
    });
    expect(updated.status?.conditions?.[0]).toMatchObject({
      message: 'size 2',
      lastTransitionTime: ready.status?.conditions?.[0]?.lastTransitionTime,
    });

    // Deletion waits for the finalizer, which the reconciler removes.
    await kube.client.delete({ ...TYPE, name: 'g1' });
    await until('deletion', async () =>
      (await kube.client.get({ ...TYPE, name: 'g1' }).catch((e: unknown) => e)) instanceof Error ? true : undefined,
    );
    expect(isNotFound(await kube.client.get({ ...TYPE, name: 'g1' }).catch((e: unknown) => e))).toBe(true);

    const metrics = await (await fetch(`http://127.0.0.1:${health.port}/metrics`)).text();
    expect(metrics).toMatch(/controller_runtime_reconcile_total\{controller="gadget-controller",result="success"\} [1-9]/);
    expect(metrics).toContain('workqueue_adds_total{name="gadget-controller"}');
    ctl.abort();
    await Promise.all([informerDone, controllerDone]);
    await health.stop();
  });

  it('serves probes and metrics over HTTPS when given a certificate', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'health-tls-'));
    try {
      const ca = await createCertificateAuthority(dir, 'ca', 'test-ca');
      const cert = await issueCertificate(ca, dir, { name: 'serving', commonName: 'metrics', ipAddresses: ['127.0.0.1'], usage: 'server' });
      const registry = new Registry();
      const server = new HealthServer({
        port: 0,
        host: '127.0.0.1',
        registry,
        log: pino({ level: 'silent' }),
        tls: { cert: cert.certPem, key: cert.keyPem },
      });
      await server.start();
      const body = await new Promise<string>((resolve, reject) => {
        https
          .get({ host: '127.0.0.1', port: server.port, path: '/healthz', ca: ca.certPem }, (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () => resolve(`${res.statusCode} ${text}`));
          })
          .on('error', reject);
      });
      expect(body).toBe('200 ok');
      await server.stop();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
