import { mkdir, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testTempDir } from '../../../test/support/temp-dir.ts';
import { bearerConnection, anonymousChannels } from './index.ts';
import { connectionFromKubeConfig } from './connection.ts';
import { loadKubeConfig } from './kubeconfig.ts';

function kubeconfig(user: string, extra = ''): string {
  return `apiVersion: v1
kind: Config
clusters:
- name: c1
  cluster:
    server: https://127.0.0.1:6443/prefix
    certificate-authority-data: ${Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64')}
    tls-server-name: kubernetes.default
contexts:
- name: ctx1
  context: { cluster: c1, user: u1 }
- name: ctx2
  context: { cluster: c1, user: u2 }
current-context: ctx1
users:
- name: u1
  user:
${user}
- name: u2
  user:
    username: admin
    password: secret
${extra}`;
}

describe('kubeconfig loading', () => {
  it('builds a keep-alive connection with the static token as header and the server TLS kept apart', async () => {
    const kc = loadKubeConfig({ kind: 'yaml', yaml: kubeconfig('    token: abc123') });
    const conn = await connectionFromKubeConfig(kc);
    expect(conn.server.href).toBe('https://127.0.0.1:6443/prefix');
    expect(await conn.authHeaders()).toEqual({ Authorization: 'Bearer abc123' });
    expect(conn.agent).toBeInstanceOf(https.Agent);
    expect((conn.agent as https.Agent & { keepAlive: boolean }).keepAlive).toBe(true);
    expect(conn.serverTls.servername).toBe('kubernetes.default');
    expect(String(conn.serverTls.ca)).toContain('BEGIN CERTIFICATE');
    expect(conn.identity).toBe('kubeconfig user u1');
    conn.close();
  });

  it('selects a context and turns basic auth into a header', async () => {
    const conn = await connectionFromKubeConfig(loadKubeConfig({ kind: 'yaml', yaml: kubeconfig('    token: x'), context: 'ctx2' }));
    expect(await conn.authHeaders()).toEqual({ Authorization: `Basic ${Buffer.from('admin:secret').toString('base64')}` });
    conn.close();
  });

  it('explains unusable sources', () => {
    expect(() => loadKubeConfig({ kind: 'file', path: '/nonexistent/kubeconfig' })).toThrow(/^unable to load kubeconfig \/nonexistent\/kubeconfig: /);
    expect(() => loadKubeConfig({ kind: 'yaml', yaml: kubeconfig('    token: x'), context: 'nope' })).toThrow(
      'context "nope" does not exist in the kubeconfig',
    );
    expect(() => loadKubeConfig({ kind: 'inCluster', host: '', port: '' })).toThrow('in-cluster configuration needs the service host and port');
  });

  it('builds in-cluster configuration from the given host and port, re-reading the token file', async () => {
    const prefix = await testTempDir('incluster-');
    const dir = join(prefix, 'var/run/secrets/kubernetes.io/serviceaccount');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'ca.crt'), 'CA PEM');
    await writeFile(join(dir, 'token'), 'first\n');
    const kc = loadKubeConfig({ kind: 'inCluster', host: 'fd00::1', port: '443', pathPrefix: prefix });
    expect(kc.server).toBe('https://[fd00::1]:443');
    expect(String(kc.ca)).toBe('CA PEM');
    const conn = await connectionFromKubeConfig(kc, { authCacheMs: 0 });
    expect(await conn.authHeaders()).toEqual({ Authorization: 'Bearer first' });
    await writeFile(join(dir, 'token'), 'rotated');
    expect(await conn.authHeaders()).toEqual({ Authorization: 'Bearer rotated' });
    conn.close();
  });

  it('reads certificate files relative to the kubeconfig and impersonates', async () => {
    const dir = await testTempDir('kubeconfig-');
    await writeFile(join(dir, 'ca.pem'), 'CA');
    await writeFile(join(dir, 'client.pem'), 'CERT');
    await writeFile(join(dir, 'client.key'), 'KEY');
    await writeFile(
      join(dir, 'config'),
      `current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters: [{name: k, cluster: {server: "https://k.test", certificate-authority: ca.pem, insecure-skip-tls-verify: true}}]
users: [{name: u, user: {client-certificate: client.pem, client-key: client.key, as: alice}}]
`,
    );
    const kc = loadKubeConfig({ kind: 'file', path: join(dir, 'config') });
    expect([String(kc.ca), String(kc.cert), String(kc.key), kc.rejectUnauthorized]).toEqual(['CA', 'CERT', 'KEY', false]);
    expect(kc.auth).toEqual({ kind: 'static', headers: { 'Impersonate-User': 'alice' } });
  });

  it('evaluates exec plugins through client-node, loaded on demand', async () => {
    const credential = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'from-exec' } });
    const exec = `    exec: {apiVersion: client.authentication.k8s.io/v1, command: sh, args: ["-c", ${JSON.stringify(`echo '${credential}'`)}], interactiveMode: Never}`;
    const kc = loadKubeConfig({ kind: 'yaml', yaml: kubeconfig(exec) });
    expect(kc.auth).toMatchObject({ kind: 'plugin', context: 'ctx1' });
    const conn = await connectionFromKubeConfig(kc);
    expect(await conn.authHeaders()).toEqual({ Authorization: 'Bearer from-exec' });
    conn.close();
  });

  it('scoped bearer connections carry only their own header and share the anonymous agent and watch channel', async () => {
    const base = await connectionFromKubeConfig(loadKubeConfig({ kind: 'yaml', yaml: kubeconfig('    token: admin-token') }));
    const channels = anonymousChannels(base);
    const agent = channels.agent;
    let evicted = 0;
    const conn = bearerConnection(
      base,
      channels,
      'serviceaccount ns/sa',
      async () => ({ Authorization: 'Bearer sa-token' }),
      () => evicted++,
    );
    expect(conn.agent).toBe(agent);
    expect(conn.watches).toBe(channels.watches);
    expect(conn.watches.stats()).toEqual({ protocol: 'h2', connections: 0, streams: 0 });
    expect(await conn.authHeaders()).toEqual({ Authorization: 'Bearer sa-token' });
    expect((agent as https.Agent).options.cert).toBeUndefined();
    expect((agent as https.Agent).options.ca).toEqual(base.serverTls.ca);
    conn.invalidateAuth?.();
    expect(evicted).toBe(1);
    channels.close();
    base.close();
  });
});
