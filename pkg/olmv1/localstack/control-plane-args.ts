/**
 * Command lines of etcd and kube-apiserver for a single-node test control plane (pure). Without
 * kube-controller-manager (startControlPlane's `controllerManager`; the tests' shared control
 * plane has none) deletes do not cascade, deleted namespaces stay Terminating, namespaces get no
 * `default` ServiceAccount (tokens come from TokenRequest only), and without a node workloads
 * never run.
 */

/** Fixed settings of the test control plane. */
export const CONTROL_PLANE_DEFAULTS = {
  /** ServiceAccount token issuer (also the default token audience). */
  serviceAccountIssuer: 'https://kubernetes.default.svc.cluster.local',
  serviceClusterIpRange: '10.0.0.0/24',
  /** The cluster DNS Service's IP in that range (kube-system/kube-dns; the kubelet's clusterDNS). */
  clusterDnsIp: '10.0.0.10',
  /** Disabled admission: ServiceAccount's rejects Pods until a controller made `default`. */
  disabledAdmissionPlugins: ['ServiceAccount'],
} as const;

/** Inputs of etcdArgs. */
interface EtcdArgsOptions {
  dataDir: string;
  clientPort: number;
  peerPort: number;
}

/** etcd flags: one member `envtest` on loopback, no fsync (it dominates latency on shared disks). */
export function etcdArgs(options: EtcdArgsOptions): string[] {
  const client = `http://127.0.0.1:${options.clientPort}`;
  const peer = `http://127.0.0.1:${options.peerPort}`;
  return [
    '--name=envtest',
    `--data-dir=${options.dataDir}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=envtest=${peer}`,
    '--initial-cluster-state=new',
    '--unsafe-no-fsync=true',
    '--log-level=warn',
  ];
}

/** Files and ports kube-apiserver needs. */
interface ApiServerArgsOptions {
  etcdUrl: string;
  securePort: number;
  /** Serving certificate and key (must cover 127.0.0.1). */
  tlsCertPath: string;
  tlsKeyPath: string;
  /** CA whose client certificates authenticate users (CN = user, O = groups). */
  clientCaPath: string;
  /** Static bearer tokens CSV (`token,user,uid,"group,..."`). */
  tokenAuthPath: string;
  serviceAccountPublicKeyPath: string;
  serviceAccountPrivateKeyPath: string;
  /** Extra `--flag=value` arguments appended last (they win over earlier ones). */
  extraArgs?: readonly string[];
  /** With a local node (node.ts): where Pods reach the API server, and how it reaches the kubelet. */
  node?: ApiServerNodeArgs;
}

/** The API server's settings for a control plane with a local node. */
interface ApiServerNodeArgs {
  /** The node bridge's host address: listened on and advertised (the `kubernetes` Service's endpoint). */
  address: string;
  /** Client certificate the API server presents to the kubelet (logs, exec). */
  kubeletClientCertPath: string;
  kubeletClientKeyPath: string;
  /** CA that signed the kubelet's serving certificate. */
  kubeletCaPath: string;
}

/**
 * kube-apiserver flags: secure port on 127.0.0.1 only, RBAC authorization, client-certificate
 * and static-token authentication, ServiceAccount tokens (TokenRequest API), admission plugins
 * that need absent controllers off. With a node: listen on the bridge's host address (the node's
 * firewall lets only Pods and this machine reach it) and publish it as the `kubernetes`
 * Service's endpoint, the Node authorizer and NodeRestriction, ServiceAccount admission kept.
 */
export function apiServerArgs(options: ApiServerArgsOptions): string[] {
  const node = options.node;
  return [
    `--etcd-servers=${options.etcdUrl}`,
    ...(node === undefined ? ['--bind-address=127.0.0.1', '--advertise-address=127.0.0.1'] : []),
    `--secure-port=${options.securePort}`,
    `--tls-cert-file=${options.tlsCertPath}`,
    `--tls-private-key-file=${options.tlsKeyPath}`,
    `--client-ca-file=${options.clientCaPath}`,
    `--token-auth-file=${options.tokenAuthPath}`,
    ...(node === undefined ? ['--authorization-mode=RBAC'] : []),
    `--service-account-issuer=${CONTROL_PLANE_DEFAULTS.serviceAccountIssuer}`,
    `--service-account-key-file=${options.serviceAccountPublicKeyPath}`,
    `--service-account-signing-key-file=${options.serviceAccountPrivateKeyPath}`,
    `--service-cluster-ip-range=${CONTROL_PLANE_DEFAULTS.serviceClusterIpRange}`,
    ...(node === undefined
      ? [
          `--disable-admission-plugins=${CONTROL_PLANE_DEFAULTS.disabledAdmissionPlugins.join(',')}`,
          // The apiserver would publish 127.0.0.1 as the `kubernetes` Service endpoint, which
          // validation rejects (loopback); nothing in-cluster needs that endpoint here.
          '--endpoint-reconciler-type=none',
        ]
      : [
          `--bind-address=${node.address}`,
          `--advertise-address=${node.address}`,
          '--endpoint-reconciler-type=lease',
          '--authorization-mode=Node,RBAC',
          '--enable-admission-plugins=NodeRestriction',
          `--kubelet-client-certificate=${node.kubeletClientCertPath}`,
          `--kubelet-client-key=${node.kubeletClientKeyPath}`,
          `--kubelet-certificate-authority=${node.kubeletCaPath}`,
          '--kubelet-preferred-address-types=InternalIP',
        ]),
    '--allow-privileged=true',
    '--profiling=false',
    ...(options.extraArgs ?? []),
  ];
}

/** One line of a kube-apiserver static token file. */
interface StaticToken {
  token: string;
  user: string;
  uid: string;
  groups: readonly string[];
}

/**
 * Renders a `--token-auth-file` CSV. Throws when a value contains a character the format
 * cannot carry (comma or quote in token/user/uid, quote in a group).
 */
export function renderTokenAuthFile(tokens: readonly StaticToken[]): string {
  return (
    tokens
      .map((t) => {
        for (const value of [t.token, t.user, t.uid]) {
          if (/[,"\n]/.test(value)) throw new Error(`static token field "${value}" must not contain commas, quotes or newlines`);
        }
        for (const group of t.groups) {
          if (/[,"\n]/.test(group)) throw new Error(`static token group "${group}" must not contain commas, quotes or newlines`);
        }
        return `${t.token},${t.user},${t.uid},"${t.groups.join(',')}"`;
      })
      .join('\n') + '\n'
  );
}
