// ClusterCatalogs created with generateName, and a hostile body to catalogd's webhook, on a real
// API server (issue 60 items 4 and 5, decision 0113). A control plane of its own, with only the
// CRDs, so that each admission path can be tested alone: the real catalogd binary (its own
// process, serving its webhook over HTTPS with a test CA's certificate) reconciles every catalog.
//   1. config/admission's MutatingAdmissionPolicy alone (no webhook registered): a generateName
//      create carrying a spoofed name label is admitted, the label is gone in what the create
//      returns, and once catalogd has added its finalizer (an update) the label is the generated
//      name. Before: the API server refused the create (`no such key: name`).
//   2. The policy's binding deleted, config/webhook registered in its place (pointed at this
//      catalogd): the same. Before: the webhook was not called for a create without a name, and the
//      spoofed label stood until the first update.
//   3. Four POSTs of 7 MiB of `[` at once to the webhook port, unauthenticated: 400 within seconds,
//      while catalog GETs to the same process keep answering at once. Before: catalogd's event loop
//      was held for seconds per body (issue 60 measured 9.4 s for one, 17 s for four).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLUSTER_CATALOG_MUTATE_PATH } from '../../pkg/catalogd/webhook/index.ts';
import { CATALOG_NAME_LABEL } from '../../pkg/shared/api/index.ts';
import { CLUSTER_CATALOG } from '../../pkg/shared/api/index.ts';
import { connect, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { type ControlPlane, Reaper, freePorts, startControlPlane } from '../envtest/index.ts';
import { type CatalogdProcess, startCatalogdProcess } from '../support/catalogd.ts';
import { kubectlWaitEstablished } from '../support/crd-established.ts';
import { type ServingCertificate, servingCertificate } from '../support/secure-metrics.ts';

const exec = promisify(execFile);
const repo = (p: string): string => fileURLToPath(new URL(`../../${p}`, import.meta.url));
const POLICY = 'olm-clustercatalog-metadata-name-label';
const MWC = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration' } as const;
const FINALIZER = 'olm.operatorframework.io/delete-server-cache';

let cp: ControlPlane;
let work: string;
let kube: KubeContext;
let reaper: Reaper;
let cert: ServingCertificate;
let webhookPort: number;
let catalogd: CatalogdProcess;

const kubectl = (...args: string[]) => exec(cp.info.kubectl, ['--kubeconfig', cp.info.kubeconfigPath, ...args]);

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'catalog-generatename-'));
  cp = await startControlPlane({ binaries: inject('envtestBinaries') });
  kube = await connect({ kind: 'file', path: cp.info.kubeconfigPath });
  await kubectl('apply', '--server-side', '-f', repo('config/crd'));
  await kubectlWaitEstablished((args) => kubectl(...args), ['crd/clustercatalogs.olm.operatorframework.io']);
  reaper = Reaper.start();
  cert = await servingCertificate(work);
  [webhookPort = 0] = await freePorts(1);
  catalogd = await startCatalogdProcess(cp.info, {
    name: 'catalogd',
    workDir: work,
    reaper,
    flags: ['--leader-elect=false', `--tls-cert=${cert.certPath}`, `--tls-key=${cert.keyPath}`, `--webhook-server-port=${webhookPort}`],
  });
}, 300_000);

afterAll(async () => {
  await catalogd?.proc.stop();
  reaper?.close();
  kube?.close();
  await cp?.stop();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

const generated = (labels: Record<string, string>): KubeObject => ({
  apiVersion: CLUSTER_CATALOG.apiVersion,
  kind: CLUSTER_CATALOG.kind,
  metadata: { generateName: 'generated-', labels },
  spec: { source: { type: 'Image', image: { ref: 'registry.invalid/catalogs/test:latest' } } },
});

const getCatalog = (name: string): Promise<KubeObject> =>
  kube.client.get({ apiVersion: CLUSTER_CATALOG.apiVersion, kind: CLUSTER_CATALOG.kind, name });

/** What a dry-run create of a named catalog without the label comes back with: the label, if any admission path set it. */
async function probeLabel(): Promise<string | undefined> {
  const probe = { ...generated({}), metadata: { name: 'probe' } };
  return (await kube.client.create(probe, { dryRun: true })).metadata.labels?.[CATALOG_NAME_LABEL];
}

/**
 * Creates a catalog with generateName and a spoofed name label: admitted, the label gone at
 * creation (the other label kept), then equal to the generated name once catalogd has added its
 * finalizer.
 */
async function createsGeneratedCatalog(): Promise<void> {
  const created = await kube.client.create(generated({ [CATALOG_NAME_LABEL]: 'victim', team: 'a' }));
  const name = created.metadata.name ?? '';
  expect(name).toMatch(/^generated-[a-z0-9]{5}$/);
  expect(created.metadata.labels).toEqual({ team: 'a' });
  await expect
    .poll(
      async () => {
        const live = await getCatalog(name);
        return { labels: live.metadata.labels, finalizers: live.metadata.finalizers };
      },
      { timeout: 30_000 },
    )
    .toEqual({ labels: { team: 'a', [CATALOG_NAME_LABEL]: name }, finalizers: [FINALIZER] });
}

describe('a ClusterCatalog created with generateName and a spoofed name label', () => {
  it('is admitted under the MutatingAdmissionPolicy alone, without the label, and labelled once catalogd has reconciled it', async () => {
    await kubectl('apply', '--server-side', '-f', repo('config/admission/clustercatalog-metadata-name-label.yaml'));
    await expect.poll(probeLabel, { timeout: 60_000 }).toBe('probe');
    await createsGeneratedCatalog();
  });

  it('is admitted under the webhook alone, without the label, and labelled once catalogd has reconciled it', async () => {
    await kubectl('delete', 'mutatingadmissionpolicybinding', POLICY);
    await expect.poll(probeLabel, { timeout: 60_000 }).toBeUndefined();
    const shipped = load(await readFile(repo('config/webhook/catalogd-mutating-webhook.yaml'), 'utf8')) as KubeObject & {
      webhooks: Array<{ clientConfig: Record<string, unknown> }>;
    };
    const [hook] = shipped.webhooks;
    if (hook === undefined) throw new Error('config/webhook has no webhook');
    hook.clientConfig = {
      url: `https://127.0.0.1:${webhookPort}${CLUSTER_CATALOG_MUTATE_PATH}`,
      caBundle: Buffer.from(cert.caPem).toString('base64'),
    };
    await kube.client.create({ ...shipped, ...MWC });
    await expect.poll(probeLabel, { timeout: 60_000 }).toBe('probe');
    await createsGeneratedCatalog();
  });
});

/** One HTTPS request to catalogd trusting the test CA; the status and how long the answer took. */
function timed(o: { port: number; path: string; method: string; body?: Buffer }): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: o.port, path: o.path, method: o.method, ca: cert.caPem, headers: { 'Content-Type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      },
    );
    req.on('error', reject);
    req.end(o.body);
  });
}

describe("catalogd's webhook port under 7 MiB of [", () => {
  it('answers four at once 400 within seconds while catalog GETs to the same process keep answering at once', async () => {
    const get = () => timed({ port: catalogd.port, path: '/catalogs/none/api/v1/all', method: 'GET' });
    expect((await get()).status).toBe(404);
    // 7 MiB of `[`, unterminated and closed again (JSON.parse builds 3.5 million arrays of the latter).
    const half = 7 << 19;
    const bodies = [Buffer.alloc(7 << 20, '['), Buffer.concat([Buffer.alloc(half, '['), Buffer.alloc(half, ']')])];
    const posts = [0, 1, 2, 3].map((i) =>
      timed({ port: webhookPort, path: CLUSTER_CATALOG_MUTATE_PATH, method: 'POST', body: bodies[i % 2] as Buffer }),
    );
    let done = false;
    const posted = Promise.all(posts).finally(() => (done = true));
    // GETs one after another for as long as the POSTs are in flight, and one more after them.
    const gets: number[] = [];
    do {
      const g = await get();
      expect(g.status).toBe(404);
      gets.push(g.ms);
    } while (!done);
    const answers = await posted;
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400]);
    // Before the bounds: seconds of JSON.parse per body, during which catalogd answered nothing.
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(3_000);
    expect(Math.max(...gets)).toBeLessThan(1_000);
  });
});
