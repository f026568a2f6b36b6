// An operator with webhooks on the real node (issue #46): examples/webhook-operator (a small Go
// program serving a conversion webhook between Widget v1 and v2 and a validating webhook; its
// CSV declares both as webhookdefinitions) built here, its bundles and catalog pushed to the
// node's registry and served by catalogd, installed through a ClusterExtension with
// cert-manager as the certificate provider. First without cert-manager: the install waits,
// Progressing naming the missing kind, nothing of the bundle applied; then cert-manager is
// deployed (pkg/olmv1/in-cluster) while a ResourceQuota forbids Secrets in the namespace, so
// the Certificate cannot be issued and Healthy names it with cert-manager's reason; the quota
// lifted, the same extension completes: its Certificate is issued,
// cainjector puts the CA into the CRD's conversion and the ValidatingWebhookConfiguration, a
// Widget stored as v1 is read as v2 through the conversion webhook, an invalid one is refused
// by the validating webhook; the upgrade to 0.2.0 changes the webhook (UPDATE too, its refusal
// names 0.2.0); with 0.3.0's Pod never ready, uninstall still completes, removes the webhook
// configuration and keeps the CRD and the Widgets (uninstall keeps data, docs/webhook-operators.md).
// Then the README's walk-through for an operator with webhooks runs as written. Last,
// upstream's own scenario "Install operator having webhooks" runs as written on the same
// stack, with upstream's bundle (test/support/upstream-webhook-scenario.ts).
// Needs root and the node's prerequisites, like on-node.test.ts.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushExample } from '../../cmd/olmv1/up-example.ts';
import { deployCertManager, type Kubectl } from '../../pkg/olmv1/in-cluster/index.ts';
import { mirrorRegistry, runCommand } from '../../pkg/olmv1/localstack/index.ts';
import { envtestCertManager } from '../envtest/deferred-tools.ts';
import { shellBlocks } from '../support/readme-blocks.ts';
import { condition, deployOnNode, kube, nodeEnv, nodeUnavailable, REPO, timed as timedBy, type Obj, type OnNode } from '../support/on-node.ts';
import {
  matchesAsUpstream,
  pushUpstreamWebhookScenario,
  UPSTREAM_E2E_VERSION,
  UPSTREAM_WEBHOOK_IMAGE,
} from '../support/upstream-webhook-scenario.ts';

const missing = nodeUnavailable();
if (missing !== undefined) console.warn(`on-node-webhook-operator.test.ts skipped: ${missing}`);
// At collection time, where no timeout applies (test/envtest/deferred-tools.ts).
const certManager = await envtestCertManager();

const NS = 'webhook-operator';
const EXTENSION = 'webhook-operator';
const CATALOG = 'webhook-catalog';
const CRD = 'widgets.webhook.example.com';
const VALIDATING_WEBHOOK = 'vwidget.webhook.example.com';
const NO_SECRETS = 'no-secrets';

let onNode: OnNode | undefined;
let kubectl: Kubectl;
let k: ReturnType<typeof kube>;
let work = '';
const log = (line: string): void => console.error(`on-node-webhook-operator: ${line}`);
const timed = (name: string, started: number): void => timedBy(log, name, started);

const extension = (version: string): object => ({
  apiVersion: 'olm.operatorframework.io/v1',
  kind: 'ClusterExtension',
  metadata: { name: EXTENSION },
  spec: {
    namespace: NS,
    serviceAccount: { name: 'installer' },
    source: { sourceType: 'Catalog', catalog: { packageName: 'webhook-operator', version } },
  },
});
const widget = (name: string, valid: boolean): object => ({
  apiVersion: 'webhook.example.com/v1',
  kind: 'Widget',
  metadata: { name, namespace: NS },
  spec: { valid },
});

async function healthy(): Promise<{ status?: string; message?: string }> {
  const conditions = (await k.get(['clusterextension', EXTENSION])).status?.['conditions'] as
    Array<{ type: string; status: string; message: string }> | undefined;
  const c = conditions?.find((x) => x.type === 'Healthy');
  return { status: c?.status, message: c?.message };
}

async function extensionState(): Promise<{ installed?: string; version?: string }> {
  const ext = await k.get(['clusterextension', EXTENSION]);
  const install = ext.status?.['install'] as { bundle?: { version?: string } } | undefined;
  return { installed: condition(ext, 'Installed'), version: install?.bundle?.version };
}

interface WebhookConfiguration extends Obj {
  webhooks: Array<{ name: string; clientConfig: { caBundle?: string }; rules?: Array<{ operations: string[] }> }>;
}
/** The ValidatingWebhookConfigurations holding the operator's validating webhook. */
async function validatingConfigurations(): Promise<WebhookConfiguration[]> {
  return ((await k.list(['validatingwebhookconfigurations'])) as WebhookConfiguration[]).filter((c) =>
    c.webhooks.some((w) => w.name === VALIDATING_WEBHOOK),
  );
}

beforeAll(async () => {
  if (missing !== undefined) return;
  onNode = await deployOnNode(log);
  kubectl = onNode.kubectl;
  k = kube(kubectl);
  work = await mkdtemp(join(tmpdir(), 'olmv1-webhook-operator-'));
}, 1_800_000);

afterAll(async () => {
  await onNode?.stop();
  if (work !== '') await rm(work, { recursive: true, force: true });
}, 120_000);

describe.skipIf(missing !== undefined)('an operator with webhooks, cert-manager as the certificate provider', () => {
  it('waits while cert-manager is missing (nothing applied), and installs once cert-manager runs', async () => {
    const registry = onNode?.product.registry.host ?? '';
    const example = await pushExample(REPO, registry, [registry], work, nodeEnv, 'webhook-operator');
    await k.apply({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterCatalog',
      metadata: { name: CATALOG },
      spec: { source: { type: 'Image', image: { ref: example.catalogRef } } },
    });
    await expect.poll(async () => condition(await k.get(['clustercatalog', CATALOG]), 'Serving'), { timeout: 120_000, interval: 1000 }).toBe('True');
    await k.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await k.clusterAdminInstaller(NS, 'webhook-operator-installer');
    // The fault: no Secret may be created in the namespace, so cert-manager cannot store the
    // Certificate's key or the issued certificate (lifted once the ClusterExtension reports it).
    await k.apply({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: NO_SECRETS, namespace: NS },
      spec: { hard: { 'count/secrets': '0' } },
    });
    // Quota admission enforces what status.hard says, which the resource-quota controller would
    // fill in; the stack does not run that controller, so the test writes it.
    const quotaStatus = { status: { hard: { 'count/secrets': '0' }, used: { 'count/secrets': '0' } } };
    await kubectl(['patch', 'resourcequota', '-n', NS, NO_SECRETS, '--subresource=status', '--type=merge', '-p', JSON.stringify(quotaStatus)]);
    await expect(k.apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'probe', namespace: NS } })).rejects.toThrow(/exceeded quota/);
    await k.apply(extension('0.1.0'));
    const progressing = async (): Promise<string> => {
      const ext = await k.get(['clusterextension', EXTENSION]);
      const c = (ext.status?.['conditions'] as Array<{ type: string; message: string }> | undefined)?.find((x) => x.type === 'Progressing');
      return c?.message ?? '';
    };
    await expect
      .poll(progressing, { timeout: 120_000, interval: 1000 })
      .toMatch(/no matches for kind "(Issuer|Certificate)" in version "cert-manager.io\/v1"/);
    log(`without cert-manager, Progressing says: ${await progressing()}`);
    expect(await k.list(['deployments', '-n', NS])).toEqual([]);
    expect(await validatingConfigurations()).toEqual([]);
    const deployed = await deployCertManager({ kubectl, registry, binaries: certManager, log });
    log(`cert-manager deployed: ${JSON.stringify(deployed.timings)} ms`);
    await expect.poll(() => extensionState(), { timeout: 600_000, interval: 2000 }).toEqual({ installed: 'True', version: '0.1.0' });
  }, 900_000);

  it("reports a Certificate that cannot be issued on Healthy with cert-manager's reason, and completes once it can be", async () => {
    const [cert] = await k.list(['certificates.cert-manager.io', '-n', NS]);
    const certName = cert?.metadata.name ?? '';
    expect(certName).not.toBe('');
    const unhealthy = new RegExp(`Certificate ${NS}/${certName}: Ready=False \\w+`);
    await expect
      .poll(() => healthy(), { timeout: 120_000, interval: 1000 })
      .toMatchObject({ status: 'False', message: expect.stringMatching(unhealthy) });
    log(`with the Certificate unissuable, Healthy says: ${(await healthy()).message}`);
    await expect(k.get(['secret', '-n', NS, cert?.spec?.['secretName'] as string])).rejects.toThrow(/NotFound/);

    const started = Date.now();
    await kubectl(['delete', 'resourcequota', '-n', NS, NO_SECRETS]);
    // A change of the Certificate queues it at once in cert-manager, ahead of its retry back-off.
    await kubectl(['annotate', '--overwrite', 'certificates.cert-manager.io', '-n', NS, certName, 'e2e.olmv1/retry=1']);
    await expect
      .poll(async () => condition(await k.get(['certificates.cert-manager.io', '-n', NS, certName]), 'Ready'), { timeout: 180_000, interval: 1000 })
      .toBe('True');
    await expect.poll(() => healthy(), { timeout: 300_000, interval: 2000 }).toMatchObject({ status: 'True' });
    timed('quota lifted -> Certificate issued and Healthy', started);
  }, 700_000);

  it('installs: Certificate issued, CA injected into the CRD and the webhook configuration, v1 converted, an invalid Widget refused', async () => {
    const started = Date.now();
    // Serving: a valid Widget is admitted (through the validating webhook) once the Pod is Ready.
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
    timed('Installed -> webhook serving', started);

    const certs = await k.list(['certificates.cert-manager.io', '-n', NS]);
    expect(certs.length).toBeGreaterThan(0);
    for (const c of certs) expect(condition(c, 'Ready')).toBe('True');
    const secretName = certs[0]?.spec?.['secretName'] as string;
    const secret = (await k.get(['secret', '-n', NS, secretName])) as Obj & { data: Record<string, string> };
    const ca = secret.data['ca.crt'] ?? '';
    expect(ca).not.toBe('');
    const crd = await k.get(['crd', CRD]);
    const conversion = crd.spec?.['conversion'] as { strategy: string; webhook: { clientConfig: { caBundle?: string } } };
    expect(conversion.strategy).toBe('Webhook');
    expect(conversion.webhook.clientConfig.caBundle).toBe(ca);
    const [vwc] = await validatingConfigurations();
    expect(vwc?.webhooks[0]?.clientConfig.caBundle).toBe(ca);

    // Stored as v1, read as v2: the API server asked the conversion webhook.
    const v2 = await k.get(['widgets.v2.webhook.example.com', '-n', NS, 'good']);
    expect(v2.spec).toEqual({ conversion: { valid: true } });
    await expect(k.apply(widget('bad', false))).rejects.toThrow(/denied the request: webhook-operator 0\.1\.0: this Widget is not valid/);
  }, 600_000);

  it('upgrades to 0.2.0, whose validating webhook also checks updates and names its version', async () => {
    const started = Date.now();
    await k.apply(extension('0.2.0'));
    await expect.poll(() => extensionState(), { timeout: 180_000, interval: 1000 }).toEqual({ installed: 'True', version: '0.2.0' });
    await expect
      .poll(async () => (await validatingConfigurations())[0]?.webhooks[0]?.rules?.[0]?.operations, { timeout: 60_000 })
      .toEqual(['CREATE', 'UPDATE']);
    // The new Pod answers: the refusal names 0.2.0, for an update too.
    await expect
      .poll(
        () =>
          k.apply(widget('good', false)).then(
            () => 'admitted',
            (e: Error) => e.message,
          ),
        { timeout: 120_000, interval: 1000 },
      )
      .toMatch(/webhook-operator 0\.2\.0: this Widget is not valid/);
    timed('upgrade to 0.2.0 with a changed webhook', started);
  }, 400_000);

  it('uninstalls with a webhook Pod that never becomes ready: the webhook configuration goes, the CRD and the Widgets stay', async () => {
    // 0.3.0 (channel "broken") is 0.2.0 with a readiness probe that never passes.
    await k.apply(extension('0.3.0'));
    await expect.poll(() => extensionState(), { timeout: 180_000, interval: 1000 }).toEqual({ installed: 'True', version: '0.3.0' });
    const notReady = async (): Promise<number> =>
      (await k.list(['pods', '-n', NS, '-l', 'app.kubernetes.io/name=webhook-operator'])).filter(
        (p) => (p.spec?.['containers'] as Array<{ image: string }>)[0]?.image.includes('webhook-operator@') && condition(p, 'Ready') !== 'True',
      ).length;
    await expect.poll(notReady, { timeout: 60_000 }).toBeGreaterThan(0);
    const healthy = (await k.get(['clusterextension', EXTENSION])).status?.['conditions'] as Array<{ type: string; status: string; message: string }>;
    log(`with a never-ready Pod, Healthy: ${JSON.stringify(healthy.find((c) => c.type === 'Healthy'))}`);
    const started = Date.now();
    await kubectl(['delete', 'clusterextension', EXTENSION, '--timeout=180s']);
    timed('uninstall with a never-ready webhook Pod', started);
    expect(await validatingConfigurations()).toEqual([]);
    await expect.poll(async () => (await k.list(['deployments', '-n', NS])).length, { timeout: 60_000 }).toBe(0);
    expect((await k.get(['crd', CRD])).metadata.name).toBe(CRD);
    expect((await k.get(['widgets.v1.webhook.example.com', '-n', NS, 'good'])).spec).toEqual({ valid: true });
  }, 400_000);

  it("runs the README's walk-through for an operator with webhooks as written", async () => {
    // The README starts from a stack without the example installed: the CRD kept above goes.
    await kubectl(['delete', 'crd', CRD, '--timeout=120s']);
    const [block, ...more] = shellBlocks(await readFile(join(REPO, 'README.md'), 'utf8'), '## Operators with webhooks');
    expect(more).toEqual([]);
    // `k` as the README defines it for `npm start`'s stack, here for this one.
    const info = onNode?.cp.info;
    const script = `set -euo pipefail\nk() { ${info?.kubectl ?? ''} --kubeconfig ${info?.kubeconfigPath ?? ''} "$@"; }\n${block ?? ''}`;
    const started = Date.now();
    const { stdout, stderr } = await runCommand('bash', ['-c', script], { env: nodeEnv, timeoutMs: 540_000 });
    timed("README's webhook walk-through", started);
    expect(stdout).toContain('{"conversion":{"valid":true}}');
    expect(stderr).toMatch(/denied the request: webhook-operator 0\.2\.0: this Widget is not valid/);
    expect(condition(await k.get(['clusterextension', 'widgets']), 'Healthy')).toBe('True');
  }, 600_000);
});

// Upstream's scenario "Install operator having webhooks" (operator-controller
// UPSTREAM_E2E_VERSION, install.feature of its e2e features, @WebhookProviderCertManager:
// cert-manager is the provider here too), step by step as its step definitions (steps.go) do them:
// kubectl's client-side apply, polls of 1 s up to 5 minutes. Variables as upstream's hooks name
// them for scenario id SCENARIO: ${NAME} ce-<id>, ${TEST_NAMESPACE} ns-<id>.
const SCENARIO = 'upstream';
const NAME = `ce-${SCENARIO}`;
const TEST_NAMESPACE = `ns-${SCENARIO}`;
const STEP = { timeout: 300_000, interval: 1000 };

describe.skipIf(missing !== undefined)(`upstream's scenario "Install operator having webhooks" (${UPSTREAM_E2E_VERSION})`, () => {
  it("passes as written, with upstream's bundle and its operator image pulled through a registry mirror", async () => {
    const started = Date.now();
    const registry = onNode?.product.registry.host ?? '';
    const node = onNode?.cp.node;
    if (node === undefined) throw new Error('the stack has no node');
    // Background "OLM is available" and "an image registry is available": beforeAll's stack.
    // Given a catalog "test" with packages: webhook-operator 0.0.1 in alpha, its contents
    // StaticBundleDir(testdata/images/bundles/webhook-operator/v0.0.1).
    const pushed = await pushUpstreamWebhookScenario({ repoRoot: REPO, registry, scenarioId: SCENARIO, workDir: work, env: nodeEnv });
    // Its operator image, quay.io/olmtest/webhook-operator:0.0.4, comes from the local registry.
    expect(pushed.operatorImage).toBe(`${UPSTREAM_WEBHOOK_IMAGE.registry}/${UPSTREAM_WEBHOOK_IMAGE.repository}:${UPSTREAM_WEBHOOK_IMAGE.tag}`);
    await mirrorRegistry(node, UPSTREAM_WEBHOOK_IMAGE.registry, registry);
    const apply = (obj: object): Promise<string> => kubectl(['apply', '-f', '-'], JSON.stringify(obj));
    await apply({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterCatalog',
      metadata: { name: pushed.catalogName },
      spec: { priority: 0, source: { type: 'Image', image: { pollIntervalMinutes: 1, ref: pushed.catalogRef } } },
    });
    // And ServiceAccount "olm-admin" in test namespace is cluster admin.
    await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: TEST_NAMESPACE } });
    await apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'olm-admin', namespace: TEST_NAMESPACE } });
    await apply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${TEST_NAMESPACE}-olm-admin-cluster-admin-binding` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: 'olm-admin', namespace: TEST_NAMESPACE }],
    });
    // When ClusterExtension is applied.
    await apply({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterExtension',
      metadata: { name: NAME },
      spec: {
        namespace: TEST_NAMESPACE,
        serviceAccount: { name: 'olm-admin' },
        source: {
          sourceType: 'Catalog',
          catalog: { packageName: pushed.packageName, selector: { matchLabels: { 'olm.operatorframework.io/metadata.name': pushed.catalogName } } },
        },
      },
    });
    const conditionOf = async (type: string): Promise<{ status?: string; reason?: string }> => {
      const conditions = (await k.get(['clusterextension', NAME])).status?.['conditions'] as
        Array<{ type: string; status: string; reason: string }> | undefined;
      const c = conditions?.find((x) => x.type === type);
      return { status: c?.status, reason: c?.reason };
    };
    // Then ClusterExtension is rolled out: Progressing True, reason Succeeded.
    await expect.poll(() => conditionOf('Progressing'), STEP).toEqual({ status: 'True', reason: 'Succeeded' });
    // And ClusterExtension is available: Installed True.
    await expect.poll(async () => (await conditionOf('Installed')).status, STEP).toBe('True');
    timed('upstream scenario: applied -> rolled out and available', started);
    // And resource apply fails with error msg containing "Invalid value: false: Spec.Valid must
    // be true" (polled: upstream's step waits for the webhook to answer so).
    const webhookTest = (spec: object): object => ({
      apiVersion: 'webhook.operators.coreos.io/v1',
      kind: 'WebhookTest',
      metadata: { name: NAME, namespace: TEST_NAMESPACE },
      spec,
    });
    const applyOutcome = (obj: object): Promise<string> =>
      apply(obj).then(
        () => 'applied',
        (e: Error) => e.message,
      );
    await expect.poll(() => applyOutcome(webhookTest({ valid: false })), STEP).toContain('Invalid value: false: Spec.Valid must be true');
    // And resource is applied: the valid one.
    await apply(webhookTest({ valid: true }));
    // And resource "webhooktest/${NAME}" matches: kubectl's short name reads the preferred
    // version, v2, through the conversion webhook; mutate was set by the mutating webhook.
    const live = async (kind: string): Promise<unknown> => JSON.parse(await kubectl(['get', kind, NAME, '-n', TEST_NAMESPACE, '-o', 'json']));
    const asV2 = {
      apiVersion: 'webhook.operators.coreos.io/v2',
      kind: 'WebhookTest',
      metadata: { name: NAME, namespace: TEST_NAMESPACE },
      spec: { conversion: { valid: true, mutate: true } },
    };
    await expect.poll(async () => matchesAsUpstream(await live('webhooktest'), asV2), STEP).toBe(true);
    // And resource "webhooktest.v1.webhook.operators.coreos.io/${NAME}" matches its v1 form.
    const asV1 = { ...asV2, apiVersion: 'webhook.operators.coreos.io/v1', spec: { valid: true, mutate: true } };
    await expect.poll(async () => matchesAsUpstream(await live('webhooktest.v1.webhook.operators.coreos.io'), asV1), STEP).toBe(true);
    // Not a step of upstream's: what the expectations rest on, so a pass means what it says.
    expect(await live('webhooktest')).toMatchObject({ apiVersion: 'webhook.operators.coreos.io/v2' });
    const [pod] = await k.list(['pods', '-n', TEST_NAMESPACE, '-l', 'app.kubernetes.io/name=webhook-operator']);
    expect((pod?.spec?.['containers'] as Array<{ image: string }>)[0]?.image).toBe(pushed.operatorImage);
    timed('upstream scenario "Install operator having webhooks"', started);
  }, 900_000);
});
