// How `olmv1` commands reach the real kube-apiserver (cmd/olmv1/cluster-access.ts,
// pkg/shared/kube/kubeconfig.ts): `--context` picks a context other than the current one, also across
// a merged $KUBECONFIG list; a cluster's `proxy-url` carries every request and watch through a
// real CONNECT proxy on loopback (the API server is named by a host only the proxy can resolve,
// so a request that bypassed the proxy could not connect at all); a proxy that refuses the
// tunnel fails the command with its status text.
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createKubeconfigLookup, type KubeconfigLookup } from '../../cmd/olmv1/cluster-access.ts';
import { runRelease } from '../../cmd/olmv1/release.ts';
import { StatusReport } from '../../pkg/olmv1/status/index.ts';
import { runStatus } from '../../cmd/olmv1/status.ts';
import { connect, decodeWatchStream, type KubeContext } from '../../pkg/shared/kube/index.ts';
import { useCrds } from '../support/crd-admission.ts';
import { startForwardProxy, type ForwardProxy } from '../support/forward-proxy.ts';
import { testTempDir } from '../support/temp-dir.ts';

const NS = `cluster-access-${randomBytes(3).toString('hex')}`;
const b64 = (s: string): string => Buffer.from(s).toString('base64');
let admin: KubeContext;

useCrds();
beforeAll(async () => {
  admin = await connect({ kind: 'file', path: inject('envtestControlPlane').kubeconfigPath });
  await admin.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
});
afterAll(() => admin?.close());

interface Cluster {
  server: string;
  proxyUrl?: string;
  tlsServerName?: string;
}

/** A kubeconfig whose contexts each name a cluster and either the admin certificate or a token nobody issued. */
function kubeconfig(current: string, contexts: Record<string, { cluster: Cluster; user: 'admin' | 'stranger' }>): string {
  const cp = inject('envtestControlPlane');
  const entries = Object.entries(contexts);
  return dump({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': current,
    clusters: entries.map(([name, { cluster }]) => ({
      name,
      cluster: {
        server: cluster.server,
        'certificate-authority-data': b64(cp.caPem),
        ...(cluster.proxyUrl === undefined ? {} : { 'proxy-url': cluster.proxyUrl }),
        ...(cluster.tlsServerName === undefined ? {} : { 'tls-server-name': cluster.tlsServerName }),
      },
    })),
    users: [
      { name: 'admin', user: { 'client-certificate-data': b64(cp.adminCertPem), 'client-key-data': b64(cp.adminKeyPem) } },
      { name: 'stranger', user: { token: 'not-a-token-anybody-issued' } },
    ],
    contexts: entries.map(([name, { user }]) => ({ name, context: { cluster: name, user } })),
  });
}

async function run(
  command: 'release' | 'status',
  args: string[],
  lookup: KubeconfigLookup,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
  const code =
    command === 'release'
      ? await runRelease(args, io, { kubeconfig: lookup })
      : await runStatus(args, io, { kubeconfig: lookup, isTTY: false, columns: undefined, noColor: true });
  return { code, stdout, stderr };
}

describe('--context', () => {
  it('selects a context other than the current one, in one file and across a $KUBECONFIG list', async () => {
    const dir = await testTempDir('olmv1-context-');
    const server = inject('envtestControlPlane').server;
    const file = join(dir, 'config');
    await writeFile(file, kubeconfig('stale', { stale: { cluster: { server }, user: 'stranger' }, good: { cluster: { server }, user: 'admin' } }));
    const none = createKubeconfigLookup({}, dir);

    const current = await run('release', ['list', '--kubeconfig', file, '--system-namespace', NS], none);
    expect(current.code).toBe(1);
    expect(current.stderr).toContain('Unauthorized');
    const chosen = await run('release', ['list', '--kubeconfig', file, '--context', 'good', '--system-namespace', NS], none);
    expect(chosen, chosen.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(chosen.stdout).toMatch(/^NAME +REVISION +UPDATED +STATUS +BUNDLE +VERSION\n$/);

    // The current context comes from the first file, the context asked for from the second.
    const first = join(dir, 'first');
    const second = join(dir, 'second');
    await writeFile(first, kubeconfig('stale', { stale: { cluster: { server }, user: 'stranger' } }));
    await writeFile(second, kubeconfig('other', { other: { cluster: { server }, user: 'admin' } }));
    const env = createKubeconfigLookup({ KUBECONFIG: `${join(dir, 'missing')}:${first}:${second}` }, dir);
    expect((await run('status', ['--cluster-version', '4.18', '--system-namespace', NS], env)).code).toBe(2);
    const status = await run('status', ['--context', 'other', '--cluster-version', '4.18', '--system-namespace', NS, '-o', 'json'], env);
    expect(status.stderr).toBe('');
    expect(StatusReport.parse(JSON.parse(status.stdout)).cluster).toMatchObject({ currentVersion: '4.18', versionSource: 'flag' });
  });
});

describe('proxy-url', () => {
  let proxy: ForwardProxy;
  let refusing: ForwardProxy;
  const HOST = 'apiserver.proxy.test';

  beforeAll(async () => {
    proxy = await startForwardProxy({ hosts: { [HOST]: '127.0.0.1' } });
    refusing = await startForwardProxy({ hosts: { [HOST]: '127.0.0.1' }, refuse: [HOST] });
  });
  afterAll(async () => {
    await proxy?.close();
    await refusing?.close();
  });

  // The serving certificate names localhost; the name the proxy resolves is checked as that.
  const behind = (p: ForwardProxy): Cluster => ({
    server: `https://${HOST}:${new URL(inject('envtestControlPlane').server).port}`,
    proxyUrl: p.url,
    tlsServerName: 'localhost',
  });

  it('olmv1 release and status reach the API server only through the proxy, by CONNECT', async () => {
    const dir = await testTempDir('olmv1-proxy-');
    const file = join(dir, 'config');
    await writeFile(file, kubeconfig('proxied', { proxied: { cluster: behind(proxy), user: 'admin' } }));
    const env = createKubeconfigLookup({ KUBECONFIG: file }, dir);
    const release = await run('release', ['list', '--system-namespace', NS], env);
    expect(release, release.stderr).toMatchObject({ code: 0, stderr: '' });
    const status = await run('status', ['--cluster-version', '4.18', '--system-namespace', NS, '-o', 'json'], env);
    expect(status.stderr).toBe('');
    expect([0, 1]).toContain(status.code);
    expect(StatusReport.parse(JSON.parse(status.stdout)).cluster.nextVersion).toBe('4.19');
    const port = new URL(inject('envtestControlPlane').server).port;
    const seen = proxy.requestsFor(HOST);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => r.method === 'CONNECT' && r.target === `${HOST}:${port}` && r.status === 200)).toBe(true);
  });

  it('watches go through the proxy too', async () => {
    const dir = await testTempDir('olmv1-proxy-watch-');
    const file = join(dir, 'config');
    await writeFile(file, kubeconfig('proxied', { proxied: { cluster: behind(proxy), user: 'admin' } }));
    const kube = await connect({ kind: 'file', path: file });
    try {
      const before = proxy.requestsFor(HOST).length;
      const stream = await kube.transport.stream('GET', `/api/v1/namespaces`, { query: { watch: true, fieldSelector: `metadata.name=${NS}` } });
      for await (const event of decodeWatchStream(stream)) {
        expect(event).toMatchObject({ type: 'ADDED', object: { metadata: { name: NS } } });
        break;
      }
      stream.destroy();
      expect(proxy.requestsFor(HOST).length).toBeGreaterThan(before);
    } finally {
      kube.close();
    }
  });

  it('a proxy that refuses the tunnel fails the command with its status text', async () => {
    const dir = await testTempDir('olmv1-proxy-refused-');
    const file = join(dir, 'config');
    await writeFile(file, kubeconfig('proxied', { proxied: { cluster: behind(refusing), user: 'admin' } }));
    const r = await run('release', ['list', '--kubeconfig', file, '--system-namespace', NS], createKubeconfigLookup({}, dir));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Forbidden');
    expect(refusing.requestsFor(HOST).map((x) => [x.method, x.status])).toContainEqual(['CONNECT', 403]);
  });
});
