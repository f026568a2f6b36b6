// cert-manager on the real node (issue #46): its controller, webhook and cainjector built from
// the pinned Go module into images here and deployed before the product (pkg/olmv1/in-cluster),
// a self-signed ClusterIssuer Ready; config/ deployed with its config/cert-manager component, so
// cert-manager issues catalogd's and operator-controller's serving certificates and cainjector
// puts the CA into catalogd's webhook configuration. Both components serve with the issued
// certificates (verified over TLS with the issued CA), and a renewal forced as `cmctl renew`
// does (the Certificate's Issuing condition set through the status subresource) is served
// without a restart. Needs root and the node's prerequisites, like on-node.test.ts.
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CERT_MANAGER_NAMESPACE,
  SELF_SIGNED_CLUSTER_ISSUER,
  SYSTEM_NAMESPACE,
  type InCluster,
  type Kubectl,
} from '../../pkg/olmv1/in-cluster/index.ts';
import { condition, deployOnNode, kube, nodeUnavailable, timed as timedBy, type OnNode } from '../support/on-node.ts';

const missing = nodeUnavailable();
if (missing !== undefined) console.warn(`on-node-cert-manager.test.ts skipped: ${missing}`);

let onNode: OnNode | undefined;
let product: InCluster;
let kubectl: Kubectl;
let k: ReturnType<typeof kube>;
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
  { secret: 'operator-controller-cert', service: 'operator-controller-metrics-service', port: 8443 },
] as const;

beforeAll(async () => {
  if (missing !== undefined) return;
  onNode = await deployOnNode(log, { certManager: true });
  ({ product, kubectl } = onNode);
  k = kube(kubectl);
  log(`cert-manager deployed: ${JSON.stringify(product.certManager?.timings)} ms`);
}, 1_800_000);

afterAll(async () => {
  await onNode?.stop();
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
