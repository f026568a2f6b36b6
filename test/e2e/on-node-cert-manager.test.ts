// cert-manager on the real node (issue #46): its controller, webhook and cainjector built from
// the pinned Go module into images here and deployed before the product (pkg/olmv1/in-cluster),
// a self-signed ClusterIssuer Ready; config/ deployed with its config/cert-manager component, so
// cert-manager issues catalogd's and operator-controller's serving certificates and cainjector
// puts the CA into catalogd's webhook configuration. Both components serve with the issued
// certificates (verified over TLS with the issued CA), and a renewal forced as `cmctl renew`
// does (the Certificate's Issuing condition set through the status subresource) is served
// without a restart. Then, on the same stack, the OpenShift service-CA provider: operator-controller
// switched to it with upstream's gates, examples/webhook-operator installed while nothing issues
// service-CA certificates (the install completes, its webhooks do not serve), then the service-CA
// stand-in (examples/service-ca-stand-in) issues the Secret and injects the CA, and objects
// without its annotations are left alone. Needs root and the node's prerequisites, like
// on-node.test.ts.
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushExample } from '../../cmd/olmv1/up-example.ts';
import {
  CERT_MANAGER_NAMESPACE,
  deployServiceCaStandIn,
  SELF_SIGNED_CLUSTER_ISSUER,
  SERVICE_CA_NAMESPACE,
  SERVICE_CA_SECRET,
  SYSTEM_NAMESPACE,
  type InCluster,
  type Kubectl,
} from '../../pkg/olmv1/in-cluster/index.ts';
import { envtestCertManager } from '../envtest/deferred-tools.ts';
import { condition, deployOnNode, kube, nodeEnv, nodeUnavailable, REPO, timed as timedBy, type Obj, type OnNode } from '../support/on-node.ts';

const missing = nodeUnavailable();
if (missing !== undefined) console.warn(`on-node-cert-manager.test.ts skipped: ${missing}`);
// At collection time, where no timeout applies (test/envtest/deferred-tools.ts).
const certManager = await envtestCertManager();

let onNode: OnNode | undefined;
let product: InCluster;
let kubectl: Kubectl;
let k: ReturnType<typeof kube>;
let work = '';
const log = (line: string): void => console.error(`on-node-cert-manager: ${line}`);
const timed = (name: string, started: number): void => timedBy(log, name, started);

/** The decoded `key` of a Secret. */
async function secretData(ns: string, name: string, key: string): Promise<string> {
  const secret = (await k.get(['secret', '-n', ns, name])) as { data?: Record<string, string> };
  return Buffer.from(secret.data?.[key] ?? '', 'base64').toString('utf8');
}

/** SHA-256 fingerprint of the leaf a TLS server presents, verified against `ca` for `servername`. */
function servedFingerprint(host: string, port: number, servername: string, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, servername, ca, timeout: 5000 }, () => {
      const fingerprint = socket.getPeerX509Certificate()?.fingerprint256 ?? '';
      socket.end();
      resolve(fingerprint);
    });
    socket.on('timeout', () => socket.destroy(new Error('timeout')));
    socket.on('error', reject);
  });
}

const SERVERS = [
  { secret: 'catalogd-service-cert', service: 'catalogd-service', port: 443 },
  { secret: 'operator-controller-cert', service: 'operator-controller-service', port: 8443 },
] as const;

beforeAll(async () => {
  if (missing !== undefined) return;
  onNode = await deployOnNode(log, { certManager });
  ({ product, kubectl } = onNode);
  k = kube(kubectl);
  work = await mkdtemp(join(tmpdir(), 'olmv1-service-ca-'));
  log(`cert-manager deployed: ${JSON.stringify(product.certManager?.timings)} ms`);
}, 1_800_000);

afterAll(async () => {
  await onNode?.stop();
  if (work !== '') await rm(work, { recursive: true, force: true });
}, 120_000);

describe.skipIf(missing !== undefined)('cert-manager on the node', () => {
  it('runs its three components and issues a Certificate from the self-signed ClusterIssuer', async () => {
    const started = Date.now();
    expect(await k.readyPods(CERT_MANAGER_NAMESPACE, 'app.kubernetes.io/instance=cert-manager')).toHaveLength(3);
    expect(condition(await k.get(['clusterissuer', SELF_SIGNED_CLUSTER_ISSUER]), 'Ready')).toBe('True');
    await k.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cm-probe' } });
    await k.apply({
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: { name: 'probe', namespace: 'cm-probe' },
      spec: {
        secretName: 'probe-tls',
        commonName: 'probe.example',
        dnsNames: ['probe.example'],
        issuerRef: { kind: 'ClusterIssuer', name: SELF_SIGNED_CLUSTER_ISSUER },
      },
    });
    await expect.poll(async () => condition(await k.get(['certificate', '-n', 'cm-probe', 'probe']), 'Ready'), { timeout: 60_000 }).toBe('True');
    const cert = new X509Certificate(await secretData('cm-probe', 'probe-tls', 'tls.crt'));
    expect(cert.subjectAltName).toBe('DNS:probe.example');
    // Self-signed: the certificate verifies with its own key.
    expect(cert.verify(cert.publicKey)).toBe(true);
    // cert-manager's webhook refuses an invalid object (no issuerRef name).
    await expect(
      k.apply({
        apiVersion: 'cert-manager.io/v1',
        kind: 'Certificate',
        metadata: { name: 'bad', namespace: 'cm-probe' },
        spec: { secretName: 'x', dnsNames: ['x'], issuerRef: { name: '' } },
      }),
    ).rejects.toThrow(/admission webhook "webhook.cert-manager.io" denied the request/);
    timed('cert-manager issues', started);
  });

  it('issues catalogd’s and operator-controller’s serving certificates (config/cert-manager); both serve them', async () => {
    const started = Date.now();
    for (const name of ['catalogd-service-cert', 'operator-controller-cert']) {
      expect(condition(await k.get(['certificate', '-n', SYSTEM_NAMESPACE, name]), 'Ready')).toBe('True');
    }
    // cainjector put the CA into catalogd's webhook configuration.
    const webhook = (await k.get(['mutatingwebhookconfiguration', 'catalogd-mutating-webhook-configuration'])) as unknown as {
      webhooks: Array<{ clientConfig: { caBundle?: string } }>;
    };
    expect(Buffer.from(webhook.webhooks[0]?.clientConfig.caBundle ?? '', 'base64').toString()).toBe(product.caCertPem);
    for (const s of SERVERS) {
      const expected = new X509Certificate(await secretData(SYSTEM_NAMESPACE, s.secret, 'tls.crt')).fingerprint256;
      const host = await k.clusterIp(s.service);
      const servername = `${s.service}.${SYSTEM_NAMESPACE}.svc`;
      await expect
        .poll(() => servedFingerprint(host, s.port, servername, product.caCertPem).catch((e: Error) => e.message), { timeout: 60_000 })
        .toBe(expected);
    }
    timed('serving certificates issued and served', started);
  });

  it('serves renewed certificates without a restart (renewal forced as cmctl renew does)', async () => {
    const started = Date.now();
    const restarts = async (): Promise<string[]> =>
      (await k.list(['pods', '-n', SYSTEM_NAMESPACE])).map(
        (p) =>
          `${p.metadata.name}:${JSON.stringify((p.status?.['containerStatuses'] as Array<{ restartCount: number }> | undefined)?.map((c) => c.restartCount))}`,
      );
    const podsBefore = await restarts();
    // Both renewals at once: each waits for the kubelet to update its mounted Secret.
    await Promise.all(
      SERVERS.map(async (s) => {
        const before = await secretData(SYSTEM_NAMESPACE, s.secret, 'tls.crt');
        const cert = await k.get(['certificate', '-n', SYSTEM_NAMESPACE, s.secret]);
        const conditions = (cert.status?.['conditions'] as Array<{ type: string }> | undefined) ?? [];
        const issuing = {
          type: 'Issuing',
          status: 'True',
          reason: 'ManuallyTriggered',
          message: 'Certificate re-issuance manually triggered',
          lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        };
        const patch = { status: { conditions: [...conditions.filter((c) => c.type !== 'Issuing'), issuing] } };
        await kubectl([
          'patch',
          'certificate',
          '-n',
          SYSTEM_NAMESPACE,
          s.secret,
          '--subresource=status',
          '--type=merge',
          '-p',
          JSON.stringify(patch),
        ]);
        await expect.poll(() => secretData(SYSTEM_NAMESPACE, s.secret, 'tls.crt'), { timeout: 60_000 }).not.toBe(before);
        const renewed = new X509Certificate(await secretData(SYSTEM_NAMESPACE, s.secret, 'tls.crt')).fingerprint256;
        const host = await k.clusterIp(s.service);
        const servername = `${s.service}.${SYSTEM_NAMESPACE}.svc`;
        // The kubelet updates the mounted Secret within its sync period; the component reloads it.
        await expect
          .poll(() => servedFingerprint(host, s.port, servername, product.caCertPem).catch((e: Error) => e.message), {
            timeout: 180_000,
            interval: 2000,
          })
          .toBe(renewed);
        timed(`${s.secret} renewed and served`, started);
      }),
    );
    expect(await restarts()).toEqual(podsBefore);
  }, 300_000);
});

const NS = 'webhook-operator';
const EXTENSION = 'webhook-operator';
const CRD = 'widgets.webhook.example.com';
const INJECT = 'service.beta.openshift.io/inject-cabundle';
const SERVING_SECRET = 'service.beta.openshift.io/serving-cert-secret-name';
const widget = (name: string, valid: boolean): object => ({
  apiVersion: 'webhook.example.com/v1',
  kind: 'Widget',
  metadata: { name, namespace: NS },
  spec: { valid },
});
const annotationsOf = (o: Obj): Record<string, string> => (o.metadata as { annotations?: Record<string, string> }).annotations ?? {};
const resourceVersion = async (args: string[]): Promise<string> =>
  ((await k.get(args)).metadata as { resourceVersion?: string }).resourceVersion ?? '';
async function conditionMessage(type: string): Promise<{ status?: string; message?: string }> {
  const conditions = (await k.get(['clusterextension', EXTENSION])).status?.['conditions'] as
    Array<{ type: string; status: string; message: string }> | undefined;
  const c = conditions?.find((x) => x.type === type);
  return { status: c?.status, message: c?.message };
}
/** The ValidatingWebhookConfiguration of the operator's validating webhook. */
async function operatorWebhookConfiguration(): Promise<Obj & { webhooks: Array<{ clientConfig: { caBundle?: string } }> }> {
  const all = (await k.list(['validatingwebhookconfigurations'])) as Array<
    Obj & { webhooks: Array<{ name: string; clientConfig: { caBundle?: string } }> }
  >;
  const found = all.find((c) => c.webhooks.some((w) => w.name === 'vwidget.webhook.example.com'));
  if (found === undefined) throw new Error('no ValidatingWebhookConfiguration of the webhook operator');
  return found;
}
/** What the probes look like before the stand-in runs, to show it leaves them alone. */
let untouched: Record<string, string> = {};

describe.skipIf(missing !== undefined)('the OpenShift service-CA provider, served by the service-CA stand-in', () => {
  it('installs an operator with webhooks with WebhookProviderCertManager=false; without a service CA its webhooks never serve', async () => {
    const started = Date.now();
    // Upstream's gates: cert-manager's wins when both are on, so it is turned off.
    const args = [{ op: 'add', path: '/spec/template/spec/containers/0/args/-', value: '--feature-gates=WebhookProviderCertManager=false' }];
    await kubectl([
      'patch',
      'deployment',
      '-n',
      SYSTEM_NAMESPACE,
      'operator-controller-controller-manager',
      '--type=json',
      '-p',
      JSON.stringify(args),
    ]);
    await kubectl(['rollout', 'status', 'deployment', '-n', SYSTEM_NAMESPACE, 'operator-controller-controller-manager', '--timeout=300s']);
    timed('operator-controller switched to the service-CA provider', started);
    const registry = product.registry.host;
    const example = await pushExample(REPO, registry, [registry], work, nodeEnv, 'webhook-operator');
    await k.apply({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterCatalog',
      metadata: { name: 'webhook-catalog' },
      spec: { source: { type: 'Image', image: { ref: example.catalogRef } } },
    });
    await k.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await k.clusterAdminInstaller(NS, 'webhook-operator-installer');
    // Probes: a ConfigMap asking for the bundle, one not asking, and a Service naming a Secret
    // someone else made.
    await k.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'wants-bundle', namespace: NS, annotations: { [INJECT]: 'true' } } });
    await k.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'plain', namespace: NS }, data: { 'service-ca.crt': 'mine' } });
    await k.apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'taken', namespace: NS }, stringData: { 'tls.crt': 'not a certificate' } });
    await k.apply({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'squatter', namespace: NS, annotations: { [SERVING_SECRET]: 'taken' } },
      spec: { ports: [{ port: 443 }] },
    });
    untouched = {
      plain: await resourceVersion(['configmap', '-n', NS, 'plain']),
      taken: await resourceVersion(['secret', '-n', NS, 'taken']),
      catalogdWebhook: await resourceVersion(['mutatingwebhookconfiguration', 'catalogd-mutating-webhook-configuration']),
    };
    await expect
      .poll(async () => condition(await k.get(['clustercatalog', 'webhook-catalog']), 'Serving'), { timeout: 120_000, interval: 1000 })
      .toBe('True');
    await k.apply({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterExtension',
      metadata: { name: EXTENSION },
      spec: {
        namespace: NS,
        serviceAccount: { name: 'installer' },
        source: { sourceType: 'Catalog', catalog: { packageName: 'webhook-operator', version: '0.1.0' } },
      },
    });
    await expect.poll(() => conditionMessage('Installed'), { timeout: 300_000, interval: 1000 }).toMatchObject({ status: 'True' });
    // Rendered for the service CA: no cert-manager objects, upstream's annotations instead.
    expect(await k.list(['certificates.cert-manager.io', '-n', NS])).toEqual([]);
    const [service] = (await k.list(['services', '-n', NS])).filter(
      (s) => annotationsOf(s)[SERVING_SECRET] !== undefined && s.metadata.name !== 'squatter',
    );
    const secretName = annotationsOf(service as Obj)[SERVING_SECRET] ?? '';
    expect(secretName).toBe(`${service?.metadata.name ?? ''}-cert`);
    expect(annotationsOf(await k.get(['crd', CRD]))[INJECT]).toBe('true');
    expect(annotationsOf(await operatorWebhookConfiguration())[INJECT]).toBe('true');
    // Nothing issues the Secret: the Pod cannot start, Healthy names the Deployment, and the
    // webhook configuration (no CA, no endpoint) refuses Widgets instead of admitting them.
    await expect
      .poll(() => conditionMessage('Healthy'), { timeout: 120_000, interval: 1000 })
      .toMatchObject({
        status: 'False',
        message: expect.stringMatching(/Deployment webhook-operator\/webhook-operator-controller: Available=False/),
      });
    log(`without a service CA, Healthy says: ${(await conditionMessage('Healthy')).message}`);
    await expect(k.get(['secret', '-n', NS, secretName])).rejects.toThrow(/NotFound/);
    await expect(k.apply(widget('early', true))).rejects.toThrow(/failed calling webhook "vwidget.webhook.example.com"/);
    timed('installed without a service CA', started);
  }, 900_000);

  it('the stand-in issues the serving Secret and injects its CA: v1 read as v2, an invalid Widget refused; what is not asked for is untouched', async () => {
    let started = Date.now();
    const deployed = await deployServiceCaStandIn({ kubectl, registry: product.registry.host, repoRoot: REPO, workDir: work, env: nodeEnv, log });
    log(`service-CA stand-in deployed: ${JSON.stringify(deployed.timings)} ms`);
    timed('stand-in deployed', started);
    started = Date.now();
    await expect.poll(() => conditionMessage('Healthy'), { timeout: 300_000, interval: 1000 }).toMatchObject({ status: 'True' });
    await expect
      .poll(
        () =>
          k.apply(widget('good', true)).then(
            () => 'admitted',
            (e: Error) => e.message,
          ),
        { timeout: 120_000, interval: 500 },
      )
      .toBe('admitted');
    timed('stand-in running -> Healthy and webhook serving', started);

    const caPem = await secretData(SERVICE_CA_NAMESPACE, SERVICE_CA_SECRET, 'tls.crt');
    const ca = new X509Certificate(caPem);
    const [service] = (await k.list(['services', '-n', NS])).filter(
      (s) => annotationsOf(s)[SERVING_SECRET] !== undefined && s.metadata.name !== 'squatter',
    );
    const svc = service?.metadata.name ?? '';
    const secretName = annotationsOf(service as Obj)[SERVING_SECRET] ?? '';
    const secret = await k.get(['secret', '-n', NS, secretName]);
    expect((secret as Obj & { type?: string }).type).toBe('kubernetes.io/tls');
    const leaf = new X509Certificate(await secretData(NS, secretName, 'tls.crt'));
    expect(leaf.subjectAltName).toBe(`DNS:${svc}.${NS}.svc, DNS:${svc}.${NS}.svc.cluster.local`);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(annotationsOf(secret)['service.beta.openshift.io/originating-service-name']).toBe(svc);
    expect(annotationsOf(service as Obj)['service.beta.openshift.io/serving-cert-signed-by']).toBe(ca.subject.replace(/^CN=/, ''));
    const caBundle = Buffer.from(caPem).toString('base64');
    const conversion = (await k.get(['crd', CRD])).spec?.['conversion'] as { webhook: { clientConfig: { caBundle?: string } } };
    expect(conversion.webhook.clientConfig.caBundle).toBe(caBundle);
    expect((await operatorWebhookConfiguration()).webhooks[0]?.clientConfig.caBundle).toBe(caBundle);
    // Stored as v1, read as v2 through the conversion webhook; the validating webhook refuses.
    expect((await k.get(['widgets.v2.webhook.example.com', '-n', NS, 'good'])).spec).toEqual({ conversion: { valid: true } });
    await expect(k.apply(widget('bad', false))).rejects.toThrow(/denied the request: webhook-operator 0\.1\.0: this Widget is not valid/);

    // The ConfigMap that asked holds the bundle; nothing that did not ask was written.
    expect(((await k.get(['configmap', '-n', NS, 'wants-bundle'])) as Obj & { data?: object }).data).toEqual({ 'service-ca.crt': caPem });
    expect(await resourceVersion(['configmap', '-n', NS, 'plain'])).toBe(untouched['plain']);
    expect(await resourceVersion(['mutatingwebhookconfiguration', 'catalogd-mutating-webhook-configuration'])).toBe(untouched['catalogdWebhook']);
    // A Secret the Service did not get from the service CA is never taken: the Service says why.
    expect(await resourceVersion(['secret', '-n', NS, 'taken'])).toBe(untouched['taken']);
    const squatter = await k.get(['service', '-n', NS, 'squatter']);
    expect(annotationsOf(squatter)['service.beta.openshift.io/serving-cert-generation-error']).toBe(
      `secret ${NS}/taken does not have corresponding service UID ${squatter.metadata.uid ?? ''}`,
    );
  }, 600_000);
});
