/**
 * kube-scheduler for the local node as `system:kube-scheduler` (bound by the RBAC bootstrap), no
 * leader election, its secure port on loopback; ready when `/healthz` answers ok.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { issueCertificate, type CertificateAuthority } from './certs.ts';
import { waitForHealthz } from './kube-http.ts';
import { writeClientKubeconfig } from './kubeconfig.ts';
import { freePorts } from './ports.ts';
import { startServer, type ManagedProcess } from './process.ts';
import type { Reaper } from './reaper.ts';

/** What startScheduler needs. */
interface StartSchedulerOptions {
  binary: string;
  dir: string;
  apiServer: string;
  ca: CertificateAuthority;
  logPath: string;
  reaper: Reaper;
  timeoutMs: number;
}

/** Starts kube-scheduler and resolves once its `/healthz` is ok (throws with its log tail). */
export async function startScheduler(o: StartSchedulerOptions): Promise<ManagedProcess> {
  const kubeconfig = await writeClientKubeconfig({
    ca: o.ca,
    dir: o.dir,
    name: 'kube-scheduler',
    user: 'system:kube-scheduler',
    apiServer: o.apiServer,
  });
  const serving = await issueCertificate(o.ca, join(o.dir, 'pki'), {
    name: 'kube-scheduler-serving',
    commonName: 'kube-scheduler',
    ipAddresses: ['127.0.0.1'],
    usage: 'server',
  });
  const configPath = join(o.dir, 'kube-scheduler.yaml');
  await writeFile(
    configPath,
    dump({
      apiVersion: 'kubescheduler.config.k8s.io/v1',
      kind: 'KubeSchedulerConfiguration',
      clientConnection: { kubeconfig },
      leaderElection: { leaderElect: false },
    }),
  );
  const [port = 0] = await freePorts(1);
  const args = [
    `--config=${configPath}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    // As for kube-controller-manager: our API server publishes no request-header CA.
    '--authentication-skip-lookup=true',
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    `--tls-cert-file=${serving.certPath}`,
    `--tls-private-key-file=${serving.keyPath}`,
    '--profiling=false',
  ];
  return startServer({ name: 'kube-scheduler', command: o.binary, args, logPath: o.logPath, reaper: o.reaper, env: {} }, (proc) =>
    waitForHealthz('kube-scheduler', port, o.ca.certPem, proc, o.timeoutMs),
  );
}
