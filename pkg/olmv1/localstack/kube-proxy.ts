/**
 * kube-proxy for the local node in iptables mode, routing Service IPs; no conntrack sysctls,
 * NodePorts only on the bridge address; node-cleanup.ts removes its `KUBE-*` chains.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import type { CertificateAuthority } from './certs.ts';
import { writeClientKubeconfig } from './kubeconfig.ts';
import { SYSTEM_PATH } from './node-prereqs.ts';
import { freePorts } from './ports.ts';
import { startServer, type ManagedProcess } from './process.ts';
import type { Reaper } from './reaper.ts';
import { waitUntil } from './wait.ts';

/** Inputs of renderKubeProxyConfig. */
interface KubeProxyConfigOptions {
  kubeconfig: string;
  nodeName: string;
  nodeIp: string;
  podCidr: string;
  healthzPort: number;
  metricsPort: number;
}

/** The KubeProxyConfiguration (YAML) of a local node (pure). */
export function renderKubeProxyConfig(o: KubeProxyConfigOptions): string {
  return dump({
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
    kind: 'KubeProxyConfiguration',
    mode: 'iptables',
    clientConnection: { kubeconfig: o.kubeconfig },
    hostnameOverride: o.nodeName,
    bindAddress: o.nodeIp,
    clusterCIDR: o.podCidr,
    healthzBindAddress: `127.0.0.1:${o.healthzPort}`,
    metricsBindAddress: `127.0.0.1:${o.metricsPort}`,
    nodePortAddresses: [`${o.nodeIp}/32`],
    iptables: { masqueradeAll: false, localhostNodePorts: false, syncPeriod: '30s', minSyncPeriod: '0s' },
    // Zero: leave the machine's conntrack limits and timeouts as they are.
    conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: '0s', tcpCloseWaitTimeout: '0s' },
  });
}

/** What startKubeProxy needs. */
interface StartKubeProxyOptions {
  binary: string;
  dir: string;
  apiServer: string;
  ca: CertificateAuthority;
  nodeName: string;
  nodeIp: string;
  podCidr: string;
  logPath: string;
  reaper: Reaper;
  timeoutMs: number;
}

/** Starts kube-proxy (user `system:kube-proxy`) and resolves once its `/healthz` answers. */
export async function startKubeProxy(o: StartKubeProxyOptions): Promise<ManagedProcess> {
  const kubeconfig = await writeClientKubeconfig({ ca: o.ca, dir: o.dir, name: 'kube-proxy', user: 'system:kube-proxy', apiServer: o.apiServer });
  const [healthzPort = 0, metricsPort = 0] = await freePorts(2);
  const configPath = join(o.dir, 'kube-proxy.yaml');
  await writeFile(
    configPath,
    renderKubeProxyConfig({
      kubeconfig,
      nodeName: o.nodeName,
      nodeIp: o.nodeIp,
      podCidr: o.podCidr,
      healthzPort,
      metricsPort,
    }),
  );
  const server = { name: 'kube-proxy', command: o.binary, args: [`--config=${configPath}`, '--v=1'], logPath: o.logPath, reaper: o.reaper };
  // 200 once it synced its rules, 503 before (and while the Node is not yet registered).
  return startServer({ ...server, env: { PATH: SYSTEM_PATH } }, (proc) =>
    waitUntil(
      'kube-proxy /healthz',
      async () => {
        const res = await fetch(`http://127.0.0.1:${healthzPort}/healthz`, { signal: AbortSignal.timeout(2000) });
        return res.status === 200 || res.status === 503;
      },
      { timeoutMs: o.timeoutMs, process: proc, intervalMs: 200 },
    ),
  );
}
