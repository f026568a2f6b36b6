// The service-CA stand-in (examples/service-ca-stand-in) against the test API server, with only
// the RBAC its manifests grant (pkg/olmv1/in-cluster/addon-manifests.ts): it creates its
// CA, issues serving certificates into the Secrets annotated Services name (headless ones with
// the Pods' wildcard), renews one close to its expiry and reissues a deleted one, injects the CA
// into every kind service-ca-operator serves when annotated, and never writes an object that did
// not ask: an unannotated ConfigMap and MutatingWebhookConfiguration, a Secret it did not issue
// (the Service says why, ten times at most). The node test (test/e2e/on-node-cert-manager.test.ts)
// runs it in a Pod serving a real operator's webhooks.
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { pushServiceCaStandInImage } from '../../pkg/olmv1/images/index.ts';
import { serviceCaManifests } from '../../pkg/olmv1/in-cluster/index.ts';
import { ensureServiceAccount, kubeRequest, requestServiceAccountToken } from '../envtest/index.ts';
import { testTempDir } from '../support/temp-dir.ts';

const SOURCE = fileURLToPath(new URL('../../examples/service-ca-stand-in/', import.meta.url));
const BETA = 'service.beta.openshift.io';

type Obj = { metadata: { name: string; uid?: string; resourceVersion?: string; annotations?: Record<string, string> } } & Record<string, unknown>;

describe('the service-CA stand-in', () => {
  it('issues, renews and injects with only its own RBAC, and leaves alone what did not ask', async () => {
    const cp = inject('envtestControlPlane');
    const id = Date.now().toString(36);
    const ns = `service-ca-${id}`;
    const req = async (method: string, path: string, body?: unknown): Promise<Obj> => {
      const res = await kubeRequest(cp, { method, path, auth: { token: cp.adminToken }, ...(body === undefined ? {} : { body }) });
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.body}`);
      return JSON.parse(res.body) as Obj;
    };
    const get = (path: string): Promise<Obj> => req('GET', path);
    const tryGet = (path: string): Promise<Obj | undefined> => get(path).catch(() => undefined);
    const inject_ = { [`${BETA}/inject-cabundle`]: 'true' };
    const webhook = (name: string): object => ({
      name,
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      clientConfig: { service: { name: 'webhook', namespace: ns, path: '/' } },
      rules: [{ apiGroups: ['stand-in.example.com'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['things'] }],
    });
    const cluster = {
      crd: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things${id}.stand-in.example.com`,
      vwc: `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/stand-in-${id}`,
      mwc: `/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/stand-in-${id}`,
      apiService: `/apis/apiregistration.k8s.io/v1/apiservices/v1.${id}.stand-in.example.com`,
    };
    const rbac = (serviceCaManifests('unused').items as Obj[]).filter((o) => ['ClusterRole', 'ClusterRoleBinding'].includes(o['kind'] as string));
    onTestFinished(async () => {
      for (const path of Object.values(cluster)) await req('DELETE', path).catch(() => undefined);
      await req('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/service-ca-stand-in-${id}`).catch(() => undefined);
      await req('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterroles/service-ca-stand-in-${id}`).catch(() => undefined);
      await req('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
    });

    // Its ServiceAccount, bound to its ClusterRole as the manifests have them (renamed per run).
    await ensureServiceAccount(cp, ns, 'service-ca-stand-in');
    for (const o of rbac) {
      const renamed = { ...o, metadata: { name: `service-ca-stand-in-${id}` } } as Obj;
      if (o['kind'] === 'ClusterRoleBinding') {
        renamed['roleRef'] = { ...(o['roleRef'] as object), name: `service-ca-stand-in-${id}` };
        renamed['subjects'] = [{ kind: 'ServiceAccount', name: 'service-ca-stand-in', namespace: ns }];
      }
      await req('POST', `/apis/rbac.authorization.k8s.io/v1/${o['kind'] === 'ClusterRole' ? 'clusterroles' : 'clusterrolebindings'}`, renamed);
    }
    const api = `/api/v1/namespaces/${ns}`;
    const service = (name: string, annotations: Record<string, string>, headless = false): object => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, annotations },
      spec: { ports: [{ port: 443 }], ...(headless ? { clusterIP: 'None' } : {}) },
    });
    await req('POST', `${api}/services`, service('webhook', { [`${BETA}/serving-cert-secret-name`]: 'webhook-cert' }));
    await req('POST', `${api}/services`, service('pods', { [`${BETA}/serving-cert-secret-name`]: 'pods-cert' }, true));
    await req('POST', `${api}/secrets`, { metadata: { name: 'taken' }, stringData: { 'tls.crt': 'not ours' } });
    await req('POST', `${api}/services`, service('squatter', { [`${BETA}/serving-cert-secret-name`]: 'taken' }));
    await req('POST', `${api}/configmaps`, {
      metadata: { name: 'wants', annotations: { 'service.alpha.openshift.io/inject-cabundle': 'TRUE' } },
      data: { old: 'x' },
    });
    await req('POST', `${api}/configmaps`, { metadata: { name: 'plain' }, data: { 'service-ca.crt': 'mine' } });
    await req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      metadata: { name: `things${id}.stand-in.example.com`, annotations: inject_ },
      spec: {
        group: 'stand-in.example.com',
        names: { plural: `things${id}`, kind: `Thing${id}` },
        scope: 'Namespaced',
        versions: ['v1', 'v2'].map((name) => ({
          name,
          served: true,
          storage: name === 'v1',
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        })),
        conversion: {
          strategy: 'Webhook',
          webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { name: 'webhook', namespace: ns } } },
        },
      },
    });
    await req('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      metadata: { name: `stand-in-${id}`, annotations: inject_ },
      webhooks: [webhook('a.stand-in.example.com'), webhook('b.stand-in.example.com')],
    });
    await req('POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
      metadata: { name: `stand-in-${id}` },
      webhooks: [webhook('m.stand-in.example.com')],
    });
    await req('POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
      metadata: { name: `v1.${id}.stand-in.example.com`, annotations: inject_ },
      spec: {
        group: `${id}.stand-in.example.com`,
        version: 'v1',
        service: { name: 'webhook', namespace: ns },
        groupPriorityMinimum: 1000,
        versionPriority: 15,
      },
    });
    const untouched = {
      plain: (await get(`${api}/configmaps/plain`)).metadata.resourceVersion,
      taken: (await get(`${api}/secrets/taken`)).metadata.resourceVersion,
      mwc: (await get(cluster.mwc)).metadata.resourceVersion,
    };

    const dir = await testTempDir('service-ca-stand-in-');
    const registry = inject('envtestRegistries').anonymous.host;
    expect(await pushServiceCaStandInImage({ sourceDir: SOURCE, registry, insecureRegistries: [registry], workDir: dir, env: process.env })).toMatch(
      new RegExp(`^${registry.replaceAll('.', '\\.')}/olmv1/service-ca-stand-in@sha256:[0-9a-f]{64}$`),
    );
    const saDir = join(dir, 'serviceaccount');
    await mkdir(saDir);
    await writeFile(join(saDir, 'token'), await requestServiceAccountToken(cp, ns, 'service-ca-stand-in'));
    await writeFile(join(saDir, 'ca.crt'), cp.caPem);
    const server = new URL(cp.server);
    const child = spawn(
      join(dir, 'service-ca-stand-in'),
      ['--service-account-dir', saDir, '--namespace', ns, '--interval', '100ms', '--listen', '127.0.0.1:0'],
      { stdio: ['ignore', 'ignore', 'pipe'], env: { KUBERNETES_SERVICE_HOST: server.hostname, KUBERNETES_SERVICE_PORT: server.port } },
    );
    let output = '';
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    onTestFinished(() => {
      child.kill('SIGKILL');
    });

    const data = (o: Obj | undefined, key: string): string =>
      Buffer.from((o?.['data'] as Record<string, string> | undefined)?.[key] ?? '', 'base64').toString();
    await expect.poll(() => tryGet(`${api}/secrets/webhook-cert`), { timeout: 30_000, message: `the Secret is issued\n${output}` }).toBeDefined();
    const caPem = data(await get(`${api}/secrets/signing-key`), 'tls.crt');
    const ca = new X509Certificate(caPem);
    expect(ca.ca).toBe(true);
    const secret = await get(`${api}/secrets/webhook-cert`);
    const svc = await get(`${api}/services/webhook`);
    expect(secret['type']).toBe('kubernetes.io/tls');
    const leaf = new X509Certificate(data(secret, 'tls.crt'));
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.subjectAltName).toBe(`DNS:webhook.${ns}.svc, DNS:webhook.${ns}.svc.cluster.local`);
    expect(data(secret, 'tls.crt').endsWith(caPem)).toBe(true);
    expect(secret.metadata.annotations).toMatchObject({
      [`${BETA}/originating-service-uid`]: svc.metadata.uid,
      [`${BETA}/originating-service-name`]: 'webhook',
    });
    expect((secret.metadata as { ownerReferences?: unknown[] }).ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Service', name: 'webhook', uid: svc.metadata.uid },
    ]);
    expect(svc.metadata.annotations?.[`${BETA}/serving-cert-signed-by`]).toBe(ca.subject.replace(/^CN=/, ''));
    await expect
      .poll(async () => new X509Certificate(data(await tryGet(`${api}/secrets/pods-cert`), 'tls.crt') || caPem).subjectAltName, { timeout: 10_000 })
      .toBe(`DNS:pods.${ns}.svc, DNS:pods.${ns}.svc.cluster.local, DNS:*.pods.${ns}.svc, DNS:*.pods.${ns}.svc.cluster.local`);

    // The CA bundle, where it was asked for.
    const bundle = Buffer.from(caPem).toString('base64');
    const crdBundle = async (): Promise<unknown> =>
      ((await get(cluster.crd))['spec'] as { conversion: { webhook: { clientConfig: { caBundle?: string } } } }).conversion.webhook.clientConfig
        .caBundle;
    await expect.poll(crdBundle, { timeout: 10_000 }).toBe(bundle);
    await expect
      .poll(
        async () => ((await get(cluster.vwc))['webhooks'] as Array<{ clientConfig: { caBundle?: string } }>).map((w) => w.clientConfig.caBundle),
        { timeout: 10_000 },
      )
      .toEqual([bundle, bundle]);
    await expect.poll(async () => ((await get(cluster.apiService))['spec'] as { caBundle?: string }).caBundle, { timeout: 10_000 }).toBe(bundle);
    await expect.poll(async () => (await get(`${api}/configmaps/wants`))['data'], { timeout: 10_000 }).toEqual({ 'service-ca.crt': caPem });

    // A Secret it did not issue is never taken: the Service says why, and after ten tries it stops.
    await expect
      .poll(async () => (await get(`${api}/services/squatter`)).metadata.annotations?.[`${BETA}/serving-cert-generation-error-num`], {
        timeout: 10_000,
      })
      .toBe('10');
    const squatter = await get(`${api}/services/squatter`);
    expect(squatter.metadata.annotations?.[`${BETA}/serving-cert-generation-error`]).toBe(
      `secret ${ns}/taken does not have corresponding service UID ${squatter.metadata.uid ?? ''}`,
    );
    expect({
      plain: (await get(`${api}/configmaps/plain`)).metadata.resourceVersion,
      taken: (await get(`${api}/secrets/taken`)).metadata.resourceVersion,
      mwc: (await get(cluster.mwc)).metadata.resourceVersion,
    }).toEqual(untouched);
    expect(((await get(cluster.mwc))['webhooks'] as Array<{ clientConfig: { caBundle?: string } }>)[0]?.clientConfig.caBundle).toBeUndefined();

    // Close to its expiry (under an hour left) the certificate is renewed; a deleted one reissued.
    const expiring = {
      ...secret,
      metadata: {
        ...secret.metadata,
        annotations: { ...secret.metadata.annotations, [`${BETA}/expiry`]: new Date(Date.now() + 1_800_000).toISOString().replace(/\.\d+Z$/, 'Z') },
      },
    };
    await req('PUT', `${api}/secrets/webhook-cert`, expiring);
    await expect
      .poll(async () => new X509Certificate(data(await get(`${api}/secrets/webhook-cert`), 'tls.crt')).serialNumber, { timeout: 10_000 })
      .not.toBe(leaf.serialNumber);
    const renewed = new X509Certificate(data(await get(`${api}/secrets/webhook-cert`), 'tls.crt'));
    expect(new Date(renewed.validTo).getTime()).toBeGreaterThan(Date.now() + 700 * 86_400_000);
    await req('DELETE', `${api}/secrets/webhook-cert`);
    await expect
      .poll(async () => (await tryGet(`${api}/secrets/webhook-cert`))?.metadata.uid ?? secret.metadata.uid, { timeout: 10_000 })
      .not.toBe(secret.metadata.uid);
    expect(output).not.toMatch(/HTTP 403/);
  }, 120_000);
});
