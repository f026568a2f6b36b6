/**
 * Cluster DNS for the local node: CoreDNS as a host process on the bridge address serving
 * `cluster.local` from the API server, behind the selector-less Service `kube-system/kube-dns`
 * whose EndpointSlice of ours points at it. Names outside the cluster are refused.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CertificateAuthority } from './certs.ts';
import { kubeRequest, type KubeAuth, type KubeEndpoint } from './kube-http.ts';
import { writeClientKubeconfig } from './kubeconfig.ts';
import { withFreePorts } from './ports.ts';
import { startServer, type ManagedProcess } from './process.ts';
import type { Reaper } from './reaper.ts';
import { waitUntil } from './wait.ts';

/** The user CoreDNS authenticates as (bound to CLUSTER_DNS_ROLE below). */
const COREDNS_USER = 'system:coredns';

/** The Corefile (pure): `cluster.local` and reverse zones from the API server, on `address`. */
export function renderCorefile(o: { address: string; kubeconfig: string; readyPort: number }): string {
  return [
    'cluster.local in-addr.arpa ip6.arpa {',
    `  bind ${o.address}`,
    '  errors',
    `  ready 127.0.0.1:${o.readyPort}`,
    '  kubernetes cluster.local in-addr.arpa ip6.arpa {',
    `    kubeconfig ${o.kubeconfig}`,
    '    pods insecure',
    '    fallthrough in-addr.arpa ip6.arpa',
    '  }',
    '  cache 30',
    '  loadbalance',
    '}',
    '',
  ].join('\n');
}

/** Objects written through the API (ClusterRole/Binding for CoreDNS, Service, EndpointSlice). */
export function clusterDnsObjects(o: { clusterIp: string; hostIp: string; port: number }): Array<{ path: string; body: object }> {
  const rbac = '/apis/rbac.authorization.k8s.io/v1';
  const ports = [
    { name: 'dns', protocol: 'UDP' },
    { name: 'dns-tcp', protocol: 'TCP' },
  ];
  return [
    {
      path: `${rbac}/clusterroles`,
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: COREDNS_USER },
        rules: [
          { apiGroups: [''], resources: ['endpoints', 'services', 'pods', 'namespaces'], verbs: ['list', 'watch'] },
          { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
        ],
      },
    },
    {
      path: `${rbac}/clusterrolebindings`,
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: COREDNS_USER },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: COREDNS_USER },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: COREDNS_USER }],
      },
    },
    {
      path: '/api/v1/namespaces/kube-system/services',
      body: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'kube-dns', namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } },
        spec: { clusterIP: o.clusterIp, ports: ports.map((p) => ({ ...p, port: 53, targetPort: o.port })) },
      },
    },
    {
      path: '/apis/discovery.k8s.io/v1/namespaces/kube-system/endpointslices',
      body: {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: 'kube-dns-host',
          namespace: 'kube-system',
          labels: { 'kubernetes.io/service-name': 'kube-dns', 'endpointslice.kubernetes.io/managed-by': 'olmv1-localstack' },
        },
        addressType: 'IPv4',
        endpoints: [{ addresses: [o.hostIp], conditions: { ready: true } }],
        ports: ports.map((p) => ({ ...p, port: o.port })),
      },
    },
  ];
}

/** What startClusterDns needs. */
interface StartClusterDnsOptions {
  binary: string;
  dir: string;
  endpoint: KubeEndpoint;
  admin: KubeAuth;
  ca: CertificateAuthority;
  hostIp: string;
  clusterIp: string;
  logPath: string;
  reaper: Reaper;
  timeoutMs: number;
}

/**
 * Writes CoreDNS's RBAC, starts it on a free port of the host address (new ports when another
 * socket took one before CoreDNS bound it: withFreePorts), writes its Service and EndpointSlice
 * for that port and resolves once it is ready. Throws when it is not (with its log tail) or an
 * object is refused.
 */
export async function startClusterDns(o: StartClusterDnsOptions): Promise<ManagedProcess> {
  const objects = (port: number): Array<{ path: string; body: object }> => clusterDnsObjects({ clusterIp: o.clusterIp, hostIp: o.hostIp, port });
  const isRbac = (obj: { body: object }): boolean => ((obj.body as { kind?: string }).kind ?? '').startsWith('ClusterRole');
  const post = async (list: Array<{ path: string; body: object }>): Promise<void> => {
    for (const { path, body } of list) {
      const res = await kubeRequest(o.endpoint, { method: 'POST', path, auth: o.admin, body, timeoutMs: 10_000 });
      if (res.status !== 201 && res.status !== 409) throw new Error(`POST ${path}: ${res.status} ${res.body.slice(0, 300)}`);
    }
  };
  // Its RBAC first: CoreDNS is ready once its kubernetes plugin has listed.
  await post(objects(0).filter(isRbac));
  const kubeconfig = await writeClientKubeconfig({ ca: o.ca, dir: o.dir, name: 'coredns', user: COREDNS_USER, apiServer: o.endpoint.server });
  const corefile = join(o.dir, 'Corefile');
  const { proc, port } = await withFreePorts(2, async ([port = 0, readyPort = 0]) => {
    await writeFile(corefile, renderCorefile({ address: o.hostIp, kubeconfig, readyPort }));
    const args = ['-conf', corefile, '-dns.port', String(port)];
    const started = await startServer({ name: 'coredns', command: o.binary, args, logPath: o.logPath, reaper: o.reaper, env: {}, cwd: o.dir }, (p) =>
      waitUntil(
        'CoreDNS ready',
        async () => (await fetch(`http://127.0.0.1:${readyPort}/ready`, { signal: AbortSignal.timeout(2000) })).status === 200,
        { timeoutMs: o.timeoutMs, process: p, intervalMs: 200 },
      ),
    );
    return { proc: started, port };
  });
  try {
    await post(objects(port).filter((obj) => !isRbac(obj)));
  } catch (err) {
    await proc.stop();
    throw err;
  }
  return proc;
}
