// Proves the shared test environment is what integration tests rely on: a real API server
// with RBAC, TokenRequest and an admin identity, and real registries with and without auth.
import { execFile, spawn } from 'node:child_process';
import { X509Certificate, createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { testTempDir } from '../support/temp-dir.ts';
import {
  createCertificateAuthority,
  ensureServiceAccount,
  isAlive,
  issueCertificate,
  kubeRequest,
  Reaper,
  requestServiceAccountToken,
  serviceAccountKubeconfig,
  startControlPlane,
  startRegistry,
  type RegistryInfo,
} from '../envtest/index.ts';

const run = promisify(execFile);
const cp = inject('envtestControlPlane');
const registries = inject('envtestRegistries');
const binaries = inject('envtestBinaries');

function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}

async function kubectl(kubeconfig: string, args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(cp.kubectl, ['--kubeconfig', kubeconfig, ...args]);
    return { stdout, stderr, code: 0 };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; code?: number };
    return { stdout: e.stdout ?? '', stderr: e.stderr ?? '', code: e.code ?? -1 };
  }
}

async function serviceAccountToken(): Promise<{ namespace: string; name: string; token: string }> {
  const namespace = uniqueName('smoke');
  const name = 'tester';
  await ensureServiceAccount(cp, namespace, name);
  return { namespace, name, token: await requestServiceAccountToken(cp, namespace, name) };
}

describe('control plane', () => {
  it('lets the admin list namespaces with kubectl', async () => {
    const out = await kubectl(cp.kubeconfigPath, ['get', 'namespaces', '-o', 'json']);
    expect(out.code, out.stderr).toBe(0);
    const names = (JSON.parse(out.stdout) as { items: Array<{ metadata: { name: string } }> }).items.map((i) => i.metadata.name);
    expect(names).toEqual(expect.arrayContaining(['default', 'kube-system']));
  });

  it('runs the pinned kubectl and API server versions', async () => {
    const { stdout } = await run(cp.kubectl, ['--kubeconfig', cp.kubeconfigPath, 'version', '-o', 'json']);
    const v = JSON.parse(stdout) as { clientVersion: { gitVersion: string }; serverVersion: { gitVersion: string } };
    expect(v.clientVersion.gitVersion).toBe(binaries.versions.kubectl);
    expect(v.serverVersion.gitVersion).toBe(binaries.versions.kubeApiserver);
  });

  it('issues ServiceAccount tokens through TokenRequest that authenticate as the ServiceAccount', async () => {
    const { namespace, name, token } = await serviceAccountToken();
    const review = await kubeRequest(cp, {
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      auth: { token },
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    expect(review.status, review.body).toBe(201);
    const userInfo = review.json<{ status: { userInfo: { username: string; groups: string[] } } }>().status.userInfo;
    expect(userInfo.username).toBe(`system:serviceaccount:${namespace}:${name}`);
    expect(userInfo.groups).toEqual(expect.arrayContaining(['system:serviceaccounts', `system:serviceaccounts:${namespace}`]));

    const dir = await testTempDir('smoke-kubeconfig-');
    const kubeconfig = join(dir, 'sa.kubeconfig');
    await writeFile(kubeconfig, serviceAccountKubeconfig(cp, token));
    const whoami = await kubectl(kubeconfig, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    expect(whoami.stdout).toBe(`system:serviceaccount:${namespace}:${name}`);
  });

  it('enforces RBAC: a token without bindings is forbidden until a binding grants access', async () => {
    const { namespace, name, token } = await serviceAccountToken();
    const denied = await kubeRequest(cp, { path: '/api/v1/namespaces', auth: { token } });
    expect(denied.status).toBe(403);
    const status = denied.json<{ reason: string; message: string }>();
    expect(status.reason).toBe('Forbidden');
    expect(status.message).toContain(`User "system:serviceaccount:${namespace}:${name}" cannot list resource "namespaces"`);

    const role = uniqueName('smoke-list-ns');
    const admin = { token: cp.adminToken };
    const created = await kubeRequest(cp, {
      method: 'POST',
      path: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
      auth: admin,
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: role },
        rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['list'] }],
      },
    });
    expect(created.status, created.body).toBe(201);
    const bound = await kubeRequest(cp, {
      method: 'POST',
      path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
      auth: admin,
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: role },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ kind: 'ServiceAccount', name, namespace }],
      },
    });
    expect(bound.status, bound.body).toBe(201);
    await expect.poll(async () => (await kubeRequest(cp, { path: '/api/v1/namespaces', auth: { token } })).status, { timeout: 10_000 }).toBe(200);
  });

  it('rejects requests without credentials for resources', async () => {
    const res = await kubeRequest(cp, { path: '/api/v1/namespaces', auth: { anonymous: true } });
    expect(res.status).toBe(403);
    expect(res.body).toContain('system:anonymous');
  });
});

function basicAuth(r: RegistryInfo): string {
  return `Basic ${Buffer.from(`${r.username}:${r.password}`).toString('base64')}`;
}

/** Uploads a blob (POST + PUT) and returns its digest; throws with the registry's answer. */
async function uploadBlob(r: RegistryInfo, repo: string, content: Buffer, headers: Record<string, string>): Promise<string> {
  const digest = `sha256:${createHash('sha256').update(content).digest('hex')}`;
  const start = await fetch(`${r.url}/v2/${repo}/blobs/uploads/`, { method: 'POST', headers });
  expect(start.status, await start.clone().text()).toBe(202);
  const location = new URL(start.headers.get('location') ?? '', r.url);
  location.searchParams.set('digest', digest);
  const put = await fetch(location, { method: 'PUT', headers: { ...headers, 'Content-Type': 'application/octet-stream' }, body: content });
  expect(put.status, await put.clone().text()).toBe(201);
  expect(put.headers.get('docker-content-digest')).toBe(digest);
  return digest;
}

describe('registries', () => {
  it('stores and serves a blob anonymously', async () => {
    const r = registries.anonymous;
    expect(r.host).toMatch(/^127\.0\.0\.1:\d+$/);
    const content = randomBytes(4096);
    const digest = await uploadBlob(r, 'smoke/anon', content, {});
    const got = await fetch(`${r.url}/v2/smoke/anon/blobs/${digest}`);
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(content)).toBe(true);
    const deleted = await fetch(`${r.url}/v2/smoke/anon/blobs/${digest}`, { method: 'DELETE' });
    expect(deleted.status).toBe(202);
  });

  it('requires basic auth credentials and serves blobs with them', async () => {
    const r = registries.basicAuth;
    expect(r.username).toBeTruthy();
    const anonymous = await fetch(`${r.url}/v2/`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    const wrong = await fetch(`${r.url}/v2/`, { headers: { Authorization: `Basic ${Buffer.from(`${r.username}:nope`).toString('base64')}` } });
    expect(wrong.status).toBe(401);

    const auth = { Authorization: basicAuth(r) };
    const content = randomBytes(1024);
    const digest = await uploadBlob(r, 'smoke/private', content, auth);
    expect((await fetch(`${r.url}/v2/smoke/private/blobs/${digest}`)).status).toBe(401);
    const got = await fetch(`${r.url}/v2/smoke/private/blobs/${digest}`, { headers: auth });
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(content)).toBe(true);
  });
});

describe('own registries', () => {
  it('serves HTTPS with a certificate issued by a test CA', async () => {
    const dir = await testTempDir('smoke-tls-');
    const ca = await createCertificateAuthority(dir, 'ca', 'smoke-ca');
    const cert = await issueCertificate(ca, dir, { name: 'registry', commonName: 'registry', ipAddresses: ['127.0.0.1'], usage: 'server' });
    expect(new X509Certificate(cert.certPem).checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(new X509Certificate(cert.certPem).verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
    const reg = await startRegistry({ binaries, tls: { certPath: cert.certPath, keyPath: cert.keyPath } });
    try {
      expect(reg.url).toBe(`https://${reg.host}`);
      const res = await kubeRequest({ server: reg.url, caPem: ca.certPem }, { path: '/v2/', auth: { anonymous: true } });
      expect(res.status).toBe(200);
    } finally {
      await reg.stop();
    }
    expect(existsSync(reg.storageDir)).toBe(false);
  });

  it('passes a raw auth section through to the registry configuration', async () => {
    const realm = 'https://127.0.0.1:1/token';
    const reg = await startRegistry({ binaries, auth: { silly: { realm, service: 'smoke' } } });
    try {
      const res = await fetch(`${reg.url}/v2/`);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain(`Bearer realm="${realm}"`);
    } finally {
      await reg.stop();
    }
  });
});

describe('own control plane', () => {
  it('starts from the cached binaries, keeps data across an API server restart and cleans up on stop', async () => {
    const own = await startControlPlane({ binaries });
    try {
      const admin = { token: own.info.adminToken };
      const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'survivor' }, data: { k: 'v' } };
      const created = await kubeRequest(own.info, { method: 'POST', path: '/api/v1/namespaces/default/configmaps', auth: admin, body: cm });
      expect(created.status, created.body).toBe(201);
      const serverBefore = own.info.server;
      await own.restartApiServer({ downtimeMs: 200 });
      expect(own.info.server).toBe(serverBefore);
      const read = await kubeRequest(own.info, { path: '/api/v1/namespaces/default/configmaps/survivor', auth: admin });
      expect(read.status).toBe(200);
      expect(read.json<{ data: Record<string, string> }>().data).toEqual({ k: 'v' });
    } finally {
      await own.stop();
    }
    expect(existsSync(own.info.dir)).toBe(false);
    const down = await kubeRequest(own.info, { path: '/readyz', auth: { token: own.info.adminToken }, timeoutMs: 2000 }).catch((e: Error) => e);
    expect(down).toBeInstanceOf(Error);
  });
});

describe('reaper', () => {
  it('kills tracked process groups and deletes tracked directories once its owner is gone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'smoke-reaper-'));
    const sleeper = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    sleeper.unref();
    const pid = sleeper.pid ?? 0;
    const reaper = Reaper.start();
    reaper.track('group', pid);
    reaper.track('dir', dir);
    // Closing the pipe is what the reaper sees when its owner dies.
    reaper.close();
    await expect.poll(() => isAlive(pid), { timeout: 10_000 }).toBe(false);
    await expect.poll(() => existsSync(dir), { timeout: 10_000 }).toBe(false);
  });
});
