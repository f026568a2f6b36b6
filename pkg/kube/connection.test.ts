import https from 'node:https';
import { describe, expect, it } from 'vitest';
import { bearerConnection, anonymousAgent, connectionFromKubeConfig, loadKubeConfig } from './index.ts';

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
    expect(() => loadKubeConfig({ kind: 'yaml', yaml: kubeconfig('    token: x'), context: 'nope' })).toThrow('context "nope" does not exist in the kubeconfig');
    expect(() => loadKubeConfig({ kind: 'inCluster', host: '', port: '' })).toThrow('in-cluster configuration needs the service host and port');
  });

  it('builds in-cluster configuration from the given host and port', () => {
    const kc = loadKubeConfig({ kind: 'inCluster', host: 'fd00::1', port: '443', pathPrefix: '/tmp/x' });
    expect(kc.getCurrentCluster()?.server).toBe('https://[fd00::1]:443');
    expect(kc.getCurrentCluster()?.caFile).toBe('/tmp/x/var/run/secrets/kubernetes.io/serviceaccount/ca.crt');
  });

  it('scoped bearer connections carry only their own header and share the anonymous agent', async () => {
    const base = await connectionFromKubeConfig(loadKubeConfig({ kind: 'yaml', yaml: kubeconfig('    token: admin-token') }));
    const agent = anonymousAgent(base);
    let evicted = 0;
    const conn = bearerConnection(base, agent, 'serviceaccount ns/sa', async () => ({ Authorization: 'Bearer sa-token' }), () => evicted++);
    expect(await conn.authHeaders()).toEqual({ Authorization: 'Bearer sa-token' });
    expect((agent as https.Agent).options.cert).toBeUndefined();
    expect((agent as https.Agent).options.ca).toEqual(base.serverTls.ca);
    conn.invalidateAuth?.();
    expect(evicted).toBe(1);
    agent.destroy();
    base.close();
  });
});
