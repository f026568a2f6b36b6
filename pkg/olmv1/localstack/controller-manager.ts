/**
 * kube-controller-manager for a control plane of control-plane.ts, with the controllers that
 * need neither a kubelet nor a cloud, as the RBAC bootstrap's `system:kube-controller-manager`
 * user, each controller with its own ServiceAccount credentials, as kubeadm clusters do.
 */
import { join } from 'node:path';
import { issueCertificate, type CertificateAuthority } from './certs.ts';
import { waitForHealthz } from './kube-http.ts';
import { writeClientKubeconfig } from './kubeconfig.ts';
import { withFreePorts } from './ports.ts';
import { startServer, type ManagedProcess } from './process.ts';
import type { Reaper } from './reaper.ts';

/** The user the RBAC bootstrap binds to the `system:kube-controller-manager` ClusterRole. */
export const CONTROLLER_MANAGER_USER = 'system:kube-controller-manager';

/** `--controllers` (upstream's default `*` would start controllers that need kubelets or a cloud). */
export const CONTROLLER_MANAGER_CONTROLLERS: readonly string[] = [
  // Deleting a namespace deletes its content and then the namespace (else: Terminating forever).
  'namespace-controller',
  // Dependents whose owners are gone are deleted (ownerReferences; foreground/orphan deletion).
  'garbage-collector-controller',
  'deployment-controller',
  'replicaset-controller',
  // The `default` ServiceAccount of every namespace; token Secrets get their tokens.
  'serviceaccount-controller',
  'serviceaccount-token-controller',
  // The `kube-root-ca.crt` ConfigMap in every namespace, as in real clusters.
  'root-ca-certificate-publisher-controller',
  // ClusterRoles with an aggregationRule (admin, edit, view) get their rules.
  'clusterrole-aggregation-controller',
  // ValidatingAdmissionPolicy status.typeChecking.
  'validatingadmissionpolicy-status-controller',
  // The API server's StorageObjectInUseProtection admission puts finalizers on every PVC and
  // PV; these take them off once nothing uses the volume (else a deleted PVC stays Terminating).
  'persistentvolumeclaim-protection-controller',
  'persistentvolume-protection-controller',
];

/**
 * Added with a local node: Services' EndpointSlices (kube-proxy and cluster DNS read them),
 * node lifecycle (it removes the Node's `not-ready` taint once Ready, else nothing is scheduled)
 * and disruption budgets (evictions of the node's Pods honour them, as on a real cluster).
 */
export const NODE_CONTROLLERS: readonly string[] = [
  'endpoints-controller',
  'endpointslice-controller',
  'endpointslice-mirroring-controller',
  'node-lifecycle-controller',
  // PodDisruptionBudgets' status (disruptionsAllowed), which the Eviction API checks (issue 65).
  'disruption-controller',
  // Binds PersistentVolumeClaims to matching PersistentVolumes (statically provisioned: no
  // StorageClass provisioner runs here), as upstream's PVC probe scenarios need (issue 64).
  'persistentvolume-binder-controller',
];

/** Inputs of controllerManagerArgs (paths inside the control plane's directory). */
interface ControllerManagerArgsOptions {
  kubeconfigPath: string;
  securePort: number;
  tlsCertPath: string;
  tlsKeyPath: string;
  /** The control plane CA: published as `kube-root-ca.crt`, put into token Secrets. */
  rootCaPath: string;
  /** The key kube-apiserver signs ServiceAccount tokens with (`--service-account-signing-key-file`). */
  serviceAccountPrivateKeyPath: string;
  /** Controllers on top of CONTROLLER_MANAGER_CONTROLLERS (NODE_CONTROLLERS with a node). */
  extraControllers?: readonly string[];
}

/**
 * kube-controller-manager flags (pure): loopback only, no leader election (one instance),
 * per-controller ServiceAccount credentials, delegated authentication and authorization of its
 * own endpoints through the API server (`/healthz` stays open to anyone, upstream's default).
 */
export function controllerManagerArgs(options: ControllerManagerArgsOptions): string[] {
  return [
    `--kubeconfig=${options.kubeconfigPath}`,
    `--authentication-kubeconfig=${options.kubeconfigPath}`,
    `--authorization-kubeconfig=${options.kubeconfigPath}`,
    // Tokens are still checked by TokenReview; the lookup would read a request-header CA our API
    // server does not publish, logging an error forever.
    '--authentication-skip-lookup=true',
    `--controllers=${[...CONTROLLER_MANAGER_CONTROLLERS, ...(options.extraControllers ?? [])].join(',')}`,
    '--use-service-account-credentials=true',
    `--root-ca-file=${options.rootCaPath}`,
    `--service-account-private-key-file=${options.serviceAccountPrivateKeyPath}`,
    '--leader-elect=false',
    '--bind-address=127.0.0.1',
    `--secure-port=${options.securePort}`,
    `--tls-cert-file=${options.tlsCertPath}`,
    `--tls-private-key-file=${options.tlsKeyPath}`,
    '--profiling=false',
  ];
}

/** What startControllerManager needs of the control plane. */
interface StartControllerManagerOptions {
  binary: string;
  /** The control plane's directory; credentials go to `<dir>/pki`, the kubeconfig to `<dir>`. */
  dir: string;
  apiServer: string;
  ca: CertificateAuthority;
  serviceAccountPrivateKeyPath: string;
  extraControllers?: readonly string[];
  logPath: string;
  reaper: Reaper;
  timeoutMs: number;
}

/**
 * Issues its certificates, writes its kubeconfig, starts it on a free loopback port and resolves
 * once `/healthz` is ok. Throws (with the log tail, the process stopped) when it exits or does
 * not become healthy in `timeoutMs`.
 */
export async function startControllerManager(options: StartControllerManagerOptions): Promise<ManagedProcess> {
  const [kubeconfigPath, serving] = await Promise.all([
    writeClientKubeconfig({
      ca: options.ca,
      dir: options.dir,
      name: 'kube-controller-manager',
      user: CONTROLLER_MANAGER_USER,
      apiServer: options.apiServer,
    }),
    issueCertificate(options.ca, join(options.dir, 'pki'), {
      name: 'kube-controller-manager-serving',
      commonName: 'kube-controller-manager',
      dnsNames: ['localhost'],
      ipAddresses: ['127.0.0.1'],
      usage: 'server',
    }),
  ]);
  return withFreePorts(1, async ([port = 0]) => {
    const args = controllerManagerArgs({
      kubeconfigPath,
      securePort: port,
      tlsCertPath: serving.certPath,
      tlsKeyPath: serving.keyPath,
      rootCaPath: options.ca.certPath,
      serviceAccountPrivateKeyPath: options.serviceAccountPrivateKeyPath,
      ...(options.extraControllers !== undefined ? { extraControllers: options.extraControllers } : {}),
    });
    // An empty environment, like the other servers: nothing it needs comes from there.
    const server = { name: 'kube-controller-manager', command: options.binary, args, logPath: options.logPath, reaper: options.reaper, env: {} };
    return startServer(server, (proc) => waitForHealthz('kube-controller-manager', port, options.ca.certPem, proc, options.timeoutMs));
  });
}
