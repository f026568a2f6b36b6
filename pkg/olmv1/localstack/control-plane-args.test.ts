import { describe, expect, it } from 'vitest';
import { load } from 'js-yaml';
import { CONTROL_PLANE_DEFAULTS, apiServerArgs, etcdArgs, renderTokenAuthFile } from './control-plane-args.ts';
import { renderKubeconfig } from './kubeconfig.ts';
import { buildRegistryConfig } from './registry-config.ts';

const API_OPTIONS = {
  etcdUrl: 'http://127.0.0.1:2379',
  securePort: 6443,
  tlsCertPath: '/p/apiserver.crt',
  tlsKeyPath: '/p/apiserver.key',
  clientCaPath: '/p/ca.crt',
  tokenAuthPath: '/p/tokens.csv',
  serviceAccountPublicKeyPath: '/p/sa.pub',
  serviceAccountPrivateKeyPath: '/p/sa.key',
};

function flags(args: readonly string[]): Map<string, string> {
  return new Map(
    args.map((a) => {
      const eq = a.indexOf('=');
      return [a.slice(0, eq), a.slice(eq + 1)] as const;
    }),
  );
}

describe('etcdArgs', () => {
  it('listens on loopback only, with the given ports and data dir', () => {
    const f = flags(etcdArgs({ dataDir: '/d', clientPort: 1111, peerPort: 2222 }));
    expect(f.get('--data-dir')).toBe('/d');
    expect(f.get('--listen-client-urls')).toBe('http://127.0.0.1:1111');
    expect(f.get('--advertise-client-urls')).toBe('http://127.0.0.1:1111');
    expect(f.get('--listen-peer-urls')).toBe('http://127.0.0.1:2222');
    expect(f.get('--initial-cluster')).toBe('envtest=http://127.0.0.1:2222');
  });
});

describe('apiServerArgs', () => {
  it('enables RBAC, client-cert and token authn, and TokenRequest signing', () => {
    const f = flags(apiServerArgs(API_OPTIONS));
    expect(f.get('--authorization-mode')).toBe('RBAC');
    expect(f.get('--bind-address')).toBe('127.0.0.1');
    expect(f.get('--secure-port')).toBe('6443');
    expect(f.get('--client-ca-file')).toBe('/p/ca.crt');
    expect(f.get('--token-auth-file')).toBe('/p/tokens.csv');
    expect(f.get('--service-account-issuer')).toBe(CONTROL_PLANE_DEFAULTS.serviceAccountIssuer);
    expect(f.get('--service-account-key-file')).toBe('/p/sa.pub');
    expect(f.get('--service-account-signing-key-file')).toBe('/p/sa.key');
    expect(f.get('--service-cluster-ip-range')).toBe('10.0.0.0/24');
    expect(f.get('--disable-admission-plugins')).toBe('ServiceAccount');
    expect(f.get('--etcd-servers')).toBe('http://127.0.0.1:2379');
  });

  it('appends extra arguments last so they override defaults', () => {
    const args = apiServerArgs({ ...API_OPTIONS, extraArgs: ['--feature-gates=Foo=true', '--v=4'] });
    expect(args.slice(-2)).toEqual(['--feature-gates=Foo=true', '--v=4']);
  });
});

describe('renderTokenAuthFile', () => {
  it('writes token,user,uid,"groups" lines', () => {
    const csv = renderTokenAuthFile([{ token: 't0k', user: 'admin', uid: 'u1', groups: ['system:masters', 'extra'] }]);
    expect(csv).toBe('t0k,admin,u1,"system:masters,extra"\n');
  });

  it('refuses values the CSV cannot carry', () => {
    expect(() => renderTokenAuthFile([{ token: 'a,b', user: 'u', uid: 'u', groups: [] }])).toThrow('must not contain commas');
    expect(() => renderTokenAuthFile([{ token: 't', user: 'u', uid: 'u', groups: ['a"b'] }])).toThrow('static token group');
  });
});

describe('renderKubeconfig', () => {
  const base = { server: 'https://127.0.0.1:6443', caPem: 'CA-PEM\n' };

  it('inlines CA and client certificate, with one current context', () => {
    const text = renderKubeconfig({ ...base, userName: 'admin', credentials: { kind: 'clientCertificate', certPem: 'CERT', keyPem: 'KEY' } });
    const cfg = load(text) as {
      clusters: Array<{ name: string; cluster: Record<string, string> }>;
      users: Array<{ name: string; user: Record<string, string> }>;
      contexts: Array<{ name: string; context: Record<string, string> }>;
      'current-context': string;
    };
    expect(cfg.clusters[0]?.cluster['server']).toBe('https://127.0.0.1:6443');
    expect(Buffer.from(cfg.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString()).toBe('CA-PEM\n');
    expect(Buffer.from(cfg.users[0]?.user['client-certificate-data'] ?? '', 'base64').toString()).toBe('CERT');
    expect(Buffer.from(cfg.users[0]?.user['client-key-data'] ?? '', 'base64').toString()).toBe('KEY');
    expect(cfg.contexts[0]?.context).toEqual({ cluster: 'envtest', user: 'admin' });
    expect(cfg['current-context']).toBe('envtest');
  });

  it('carries a bearer token and default namespace', () => {
    const cfg = load(renderKubeconfig({ ...base, namespace: 'ns1', credentials: { kind: 'token', token: 'abc' } })) as {
      users: Array<{ user: Record<string, string> }>;
      contexts: Array<{ context: Record<string, string> }>;
    };
    expect(cfg.users[0]?.user).toEqual({ token: 'abc' });
    expect(cfg.contexts[0]?.context['namespace']).toBe('ns1');
  });

  it('rejects a non-https server', () => {
    expect(() => renderKubeconfig({ ...base, server: 'http://x', credentials: { kind: 'token', token: 't' } })).toThrow('must be an https URL');
  });
});

describe('buildRegistryConfig', () => {
  const base = { port: 5000, storageDir: '/s', httpSecret: 'sec' };

  it('serves plain HTTP on loopback with deletable filesystem storage and no auth', () => {
    const cfg = buildRegistryConfig(base);
    expect(cfg['http']).toEqual({ addr: '127.0.0.1:5000', secret: 'sec' });
    expect(cfg['storage']).toMatchObject({ filesystem: { rootdirectory: '/s' }, delete: { enabled: true } });
    expect(cfg['auth']).toBeUndefined();
  });

  it('adds TLS, htpasswd auth, or a raw auth section', () => {
    const tls = buildRegistryConfig({ ...base, tls: { certPath: '/c', keyPath: '/k' }, htpasswdPath: '/h' });
    expect(tls['http']).toMatchObject({ tls: { certificate: '/c', key: '/k' } });
    expect(tls['auth']).toEqual({ htpasswd: { realm: 'envtest-registry', path: '/h' } });
    const token = { token: { realm: 'https://127.0.0.1:1/token', service: 'reg', issuer: 'iss', rootcertbundle: '/b' } };
    expect(buildRegistryConfig({ ...base, auth: token })['auth']).toEqual(token);
  });

  it('refuses htpasswd together with a raw auth section', () => {
    expect(() => buildRegistryConfig({ ...base, htpasswdPath: '/h', auth: { silly: {} } })).toThrow(
      'either htpasswd credentials or a raw auth section',
    );
  });
});
