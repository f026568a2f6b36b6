/**
 * The node's kubelet as `system:node:<name>`, with a serving certificate the API server verifies
 * (`kubectl logs`/`exec`), webhook authentication and authorization, and the configuration that
 * works on these machines (decision 0101: cgroupfs, no QoS cgroups, no eviction).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { issueCertificate, type CertificateAuthority } from './certs.ts';
import { kubeRequest, type KubeAuth, type KubeEndpoint } from './kube-http.ts';
import { writeClientKubeconfig } from './kubeconfig.ts';
import { SYSTEM_PATH } from './node-prereqs.ts';
import { startProcess, type ManagedProcess } from './process.ts';
import type { Reaper } from './reaper.ts';

/** Inputs of renderKubeletConfig. */
interface KubeletConfigOptions {
  address: string;
  port: number;
  clientCaPath: string;
  tlsCertPath: string;
  tlsKeyPath: string;
  containerdSocket: string;
  clusterDns: string;
  clusterDomain: string;
  podCidr: string;
}

/** The KubeletConfiguration (YAML) of a local node (pure). */
export function renderKubeletConfig(o: KubeletConfigOptions): string {
  return dump({
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    address: o.address,
    port: o.port,
    readOnlyPort: 0,
    healthzPort: 0,
    authentication: { anonymous: { enabled: false }, webhook: { enabled: true }, x509: { clientCAFile: o.clientCaPath } },
    authorization: { mode: 'Webhook' },
    tlsCertFile: o.tlsCertPath,
    tlsPrivateKeyFile: o.tlsKeyPath,
    containerRuntimeEndpoint: `unix://${o.containerdSocket}`,
    // cgroups v1 (hybrid) here, no systemd: cgroupfs, and the simplest cgroup layout.
    failCgroupV1: false,
    cgroupDriver: 'cgroupfs',
    cgroupsPerQOS: false,
    enforceNodeAllocatable: [],
    failSwapOn: false,
    localStorageCapacityIsolation: false,
    evictionHard: {},
    clusterDNS: [o.clusterDns],
    clusterDomain: o.clusterDomain,
    // Pods get no resolver of the host: names outside the cluster fail inside the machine.
    resolvConf: '',
    podCIDR: o.podCidr,
    registerNode: true,
    serializeImagePulls: false,
    rotateCertificates: false,
    serverTLSBootstrap: false,
    staticPodPath: '',
    shutdownGracePeriod: '0s',
    nodeStatusUpdateFrequency: '2s',
    nodeStatusReportFrequency: '10s',
  });
}

/** What startKubelet needs. */
interface StartKubeletOptions {
  binary: string;
  /** Holds the kubelet's files; its root directory is `<dir>/root`. */
  dir: string;
  nodeName: string;
  nodeIp: string;
  port: number;
  apiServer: string;
  ca: CertificateAuthority;
  containerdSocket: string;
  clusterDns: string;
  podCidr: string;
  logPath: string;
  reaper: Reaper;
}

/** Issues the kubelet's certificates, writes its files and starts it (it registers the Node). */
export async function startKubelet(o: StartKubeletOptions): Promise<ManagedProcess> {
  const pki = join(o.dir, 'pki');
  await mkdir(pki, { recursive: true, mode: 0o700 });
  const user = `system:node:${o.nodeName}`;
  const [kubeconfigPath, serving] = await Promise.all([
    writeClientKubeconfig({ ca: o.ca, dir: o.dir, name: 'kubelet', user, groups: ['system:nodes'], apiServer: o.apiServer }),
    issueCertificate(o.ca, pki, {
      name: 'kubelet-serving',
      commonName: o.nodeName,
      dnsNames: [o.nodeName],
      ipAddresses: [o.nodeIp],
      usage: 'server',
    }),
  ]);
  const configPath = join(o.dir, 'kubelet-config.yaml');
  await writeFile(
    configPath,
    renderKubeletConfig({
      address: o.nodeIp,
      port: o.port,
      clientCaPath: o.ca.certPath,
      tlsCertPath: serving.certPath,
      tlsKeyPath: serving.keyPath,
      containerdSocket: o.containerdSocket,
      clusterDns: o.clusterDns,
      clusterDomain: 'cluster.local',
      podCidr: o.podCidr,
    }),
  );
  const root = join(o.dir, 'root');
  await mkdir(root, { recursive: true });
  return startProcess({
    name: 'kubelet',
    command: o.binary,
    args: [
      `--config=${configPath}`,
      `--kubeconfig=${kubeconfigPath}`,
      `--root-dir=${root}`,
      `--cert-dir=${pki}`,
      `--hostname-override=${o.nodeName}`,
      `--node-ip=${o.nodeIp}`,
      '--v=1',
    ],
    logPath: o.logPath,
    reaper: o.reaper,
    env: { PATH: SYSTEM_PATH },
  });
}

/** True when Node `name` exists and its Ready condition is True. */
export async function isNodeReady(endpoint: KubeEndpoint, auth: KubeAuth, name: string): Promise<boolean> {
  const res = await kubeRequest(endpoint, { path: `/api/v1/nodes/${name}`, auth, timeoutMs: 5000 });
  if (res.status !== 200) return false;
  const node = JSON.parse(res.body) as { status?: { conditions?: Array<{ type: string; status: string }> } };
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}
