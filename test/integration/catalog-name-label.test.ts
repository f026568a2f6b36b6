// The ClusterCatalog name label on a real API server, set by catalogd's webhook as config/
// ships it (decision 0103). Runs in both integration projects: on KUBERNETES_VERSION and on the
// oldest supported release (OLDEST_KUBERNETES_VERSION), which has no MutatingAdmissionPolicy.
//
// A control plane of its own with only the CRDs (no policy): the webhook alone must set the
// label. catalogd runs as other tests run it, serving the webhook over HTTPS with a test CA's
// certificate; the shipped MutatingWebhookConfiguration is registered with its service
// reference replaced by that address and the CA as caBundle (the API server here cannot reach
// a Service). A catalog created without the label, one created with a wrong label and an update
// that changes the label all end with label == name; with catalogd stopped, a write that needs
// the label fails closed and one that already carries it still passes (the match condition).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
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
import { type ControlPlane, freePorts, startControlPlane } from '../envtest/index.ts';
import { startCatalogd, type TestCatalogd } from '../support/catalogd.ts';
import { servingCertificate } from '../support/secure-metrics.ts';
import { kubectlWaitEstablished } from '../support/crd-established.ts';

const exec = promisify(execFile);
const repo = (p: string): string => fileURLToPath(new URL(`../../${p}`, import.meta.url));
const MWC = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration' } as const;

let cp: ControlPlane;
let work: string;
let kube: KubeContext;
let catalogd: TestCatalogd | undefined;

interface ShippedWebhook {
  name: string;
  clientConfig: { service?: { path: string; port: number }; url?: string; caBundle?: string };
  failurePolicy: string;
  matchConditions: unknown[];
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'catalog-name-label-'));
  cp = await startControlPlane({ binaries: inject('envtestBinaries') });
  kube = await connect({ kind: 'file', path: cp.info.kubeconfigPath });
  const kubectl = (...args: string[]) => exec(cp.info.kubectl, ['--kubeconfig', cp.info.kubeconfigPath, ...args]);
  await kubectl('apply', '--server-side', '-f', repo('config/crd'));
  await kubectlWaitEstablished((args) => kubectl(...args), ['crd/clustercatalogs.olm.operatorframework.io']);

  const cert = await servingCertificate(work);
  const [port = 0] = await freePorts(1);
  catalogd = await startCatalogd(cp.info, {
    tls: { certPath: cert.certPath, keyPath: cert.keyPath },
    webhook: { host: '127.0.0.1', port },
  });
  // The shipped configuration, pointed at this catalogd.
  const shipped = load(await readFile(repo('config/webhook/catalogd-mutating-webhook.yaml'), 'utf8')) as KubeObject & { webhooks: ShippedWebhook[] };
  const [hook] = shipped.webhooks;
  if (hook?.clientConfig.service === undefined) throw new Error('config/webhook has no service-referenced webhook');
  expect(hook.clientConfig.service).toMatchObject({ path: CLUSTER_CATALOG_MUTATE_PATH, port: 9443 });
  expect(hook.failurePolicy).toBe('Fail');
  hook.clientConfig = { url: `https://127.0.0.1:${port}${hook.clientConfig.service.path}`, caBundle: Buffer.from(cert.caPem).toString('base64') };
  await kube.client.create({ ...shipped, ...MWC });
}, 300_000);

afterAll(async () => {
  await catalogd?.destroy();
  kube?.close();
  await cp?.stop();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

const catalog = (name: string, labels?: Record<string, string>): KubeObject => ({
  apiVersion: CLUSTER_CATALOG.apiVersion,
  kind: CLUSTER_CATALOG.kind,
  metadata: { name, ...(labels === undefined ? {} : { labels }) },
  spec: { source: { type: 'Image', image: { ref: 'registry.invalid/catalogs/test:latest' } } },
});

const labelsOf = async (name: string): Promise<Record<string, string>> =>
  (await kube.client.get({ apiVersion: CLUSTER_CATALOG.apiVersion, kind: CLUSTER_CATALOG.kind, name })).metadata.labels ?? {};

describe('the ClusterCatalog name label', () => {
  it('is set by catalogd on create, with and without other labels, and on an update that changes it', async () => {
    const { stdout } = await exec(cp.info.kubectl, ['--kubeconfig', cp.info.kubeconfigPath, 'version', '-o', 'json']);
    expect((JSON.parse(stdout) as { serverVersion: { gitVersion: string } }).serverVersion.gitVersion).toBe(
      inject('envtestBinaries').versions.kubeApiserver,
    );
    // The configuration takes effect a moment after it is created: the first writes wait for it.
    await expect
      .poll(async () => (await kube.client.create(catalog('probe'), { dryRun: true })).metadata.labels?.[CATALOG_NAME_LABEL], { timeout: 30_000 })
      .toBe('probe');

    await kube.client.create(catalog('unlabelled'));
    expect(await labelsOf('unlabelled')).toEqual({ [CATALOG_NAME_LABEL]: 'unlabelled' });
    await kube.client.create(catalog('mislabelled', { [CATALOG_NAME_LABEL]: 'someone-else', team: 'a' }));
    expect(await labelsOf('mislabelled')).toEqual({ [CATALOG_NAME_LABEL]: 'mislabelled', team: 'a' });

    const live = await kube.client.get({ apiVersion: CLUSTER_CATALOG.apiVersion, kind: CLUSTER_CATALOG.kind, name: 'unlabelled' });
    await kube.client.update({ ...live, metadata: { ...live.metadata, labels: { [CATALOG_NAME_LABEL]: 'renamed', team: 'b' } } });
    expect(await labelsOf('unlabelled')).toEqual({ [CATALOG_NAME_LABEL]: 'unlabelled', team: 'b' });
  });

  it('fails closed without catalogd, except for writes that already carry the right label', async () => {
    await catalogd?.stop();
    await expect(kube.client.create(catalog('while-down'))).rejects.toThrow(/inject-metadata-name\.olm\.operatorframework\.io/);
    await kube.client.create(catalog('labelled-while-down', { [CATALOG_NAME_LABEL]: 'labelled-while-down' }));
    expect(await labelsOf('labelled-while-down')).toEqual({ [CATALOG_NAME_LABEL]: 'labelled-while-down' });
  });
});
