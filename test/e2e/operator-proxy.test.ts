// The cluster-wide proxy in installed operators (issue 72, decision 0132) end to end, on the
// shared control plane with catalogd and operator-controller in this process: where the
// OpenShift Proxy API is served, a newly installed extension's Deployment carries the Proxy
// object's values as HTTP_PROXY, HTTPS_PROXY and NO_PROXY, and a change of the object alone
// renders it again. The Proxy CRD (test/fixtures/openshift) is made before operator-controller
// starts, and removed after it stops when this file made it; the Proxy object always is.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { connect, isAlreadyExists, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { clusterExtension, installedAs, installerFor, offerPackage, useExtensionStack, waitForExtension } from '../support/extensions.ts';

/** The trimmed Proxy CRD of test/fixtures/openshift (as the gating and config tests install it). */
const PROXY_CRD = load(readFileSync(fileURLToPath(new URL('../fixtures/openshift/proxies.yaml', import.meta.url)), 'utf8')) as KubeObject;
const PROXY = { apiVersion: 'config.openshift.io/v1', kind: 'Proxy', name: 'cluster' };

let admin: KubeContext;
/** Whether this file made the CRD (another file's may be there already): then it removes it. */
let madeCrd = false;

// Registered before the stack's hooks: runs before operator-controller starts (it asks once
// whether the kind is served), and its afterAll after operator-controller stopped.
beforeAll(async () => {
  admin = await connect({ kind: 'file', path: inject('envtestControlPlane').kubeconfigPath });
  madeCrd = await admin.client.create(PROXY_CRD).then(
    () => true,
    (err: unknown) => {
      if (isAlreadyExists(err)) return false;
      throw err;
    },
  );
  await vi.waitFor(() => admin.client.list({ apiVersion: PROXY.apiVersion, kind: PROXY.kind }), { timeout: 30_000, interval: 200 });
});

afterAll(async () => {
  await admin.client.delete(PROXY).catch(() => undefined);
  if (madeCrd)
    await admin.client.delete({ apiVersion: PROXY_CRD.apiVersion, kind: PROXY_CRD.kind, name: PROXY_CRD.metadata.name ?? '' }).catch(() => undefined);
  admin.close();
});

const suite = useExtensionStack();
const run = randomBytes(3).toString('hex');

/** The Proxy object's status set to `status`. */
async function setProxyStatus(status: Record<string, string>): Promise<void> {
  const live = await admin.client.get(PROXY);
  await admin.client.updateStatus({ ...live, status });
}

/** The env of each container of Deployment `ns/name`'s pod template, by container name. */
async function templateEnv(ns: string, name: string): Promise<Record<string, unknown>> {
  const d = (await suite.kube.client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name })) as KubeObject & {
    spec: { template: { spec: { containers: Array<{ name: string; env?: unknown }> } } };
  };
  return Object.fromEntries(d.spec.template.spec.containers.map((c) => [c.name, c.env]));
}

describe('the cluster-wide proxy (OpenShift Proxy cluster)', () => {
  const pkg = `proxied-${run}`;

  it('is set in a newly installed operator, and a change of it alone renders the operator again', async () => {
    const client = suite.kube.client;
    await admin.client.create({ apiVersion: PROXY.apiVersion, kind: PROXY.kind, metadata: { name: PROXY.name }, spec: {} });
    await setProxyStatus({ httpProxy: 'http://proxy.example:3128', httpsProxy: 'http://proxy.example:3129', noProxy: '.cluster.local,10.0.0.0/8' });
    const v1 = { pkg, version: '1.0.0' };
    await installerFor(client, pkg, 'installer', [v1]);
    await offerPackage(suite.stack, pkg, [{ spec: v1 }]);
    await client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg }));
    await waitForExtension(client, pkg, 'installed at 1.0.0', installedAs(`${pkg}.v1.0.0`));
    expect(await templateEnv(pkg, `${pkg}-controller`)).toEqual({
      manager: [
        { name: 'HTTP_PROXY', value: 'http://proxy.example:3128' },
        { name: 'HTTPS_PROXY', value: 'http://proxy.example:3129' },
        { name: 'NO_PROXY', value: '.cluster.local,10.0.0.0/8' },
      ],
    });

    // Nothing else changes: each change of the Proxy object is rendered into the Deployment.
    // (That the object's watch queues every extension is proven by
    // cmd/operator-controller/cluster-proxy.test.ts: here, without a node, the Deployment never
    // becomes available and the extension is reconciled again on other triggers too.)
    const changes = [
      {
        status: { httpProxy: '', httpsProxy: 'http://other.example:8080', noProxy: '.svc' },
        env: [
          ['HTTPS_PROXY', 'http://other.example:8080'],
          ['NO_PROXY', '.svc'],
        ],
      },
      { status: { httpProxy: 'http://third.example:3128', httpsProxy: '', noProxy: '' }, env: [['HTTP_PROXY', 'http://third.example:3128']] },
    ];
    for (const { status, env } of changes) {
      await setProxyStatus(status);
      await expect
        .poll(() => templateEnv(pkg, `${pkg}-controller`), { timeout: 30_000, interval: 250 })
        .toEqual({ manager: env.map(([name, value]) => ({ name, value })) });
    }
    await waitForExtension(client, pkg, 'still installed at 1.0.0', installedAs(`${pkg}.v1.0.0`));
  });
});
