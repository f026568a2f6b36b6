/**
 * A real Kubernetes control plane for tests: etcd + kube-apiserver on loopback with RBAC,
 * TokenRequest and an admin identity; on request kube-controller-manager (control-plane-args.ts
 * says what is absent without it) and a real node that runs Pods (node.ts, decision 0101).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiServerArgs, etcdArgs } from './control-plane-args.ts';
import { CONTROL_PLANE_DEFAULTS } from './control-plane-args.ts';
import { createControlPlanePki, type ControlPlanePki } from './control-plane-pki.ts';
import { issueCertificate } from './certs.ts';
import { NODE_CONTROLLERS, startControllerManager } from './controller-manager.ts';
import { prepareNode, startNode, type NodeBinaries, type NodeInfo, type NodeOptions, type PreparedNode } from './node.ts';
import { kubeRequest, type KubeAuth, type KubeEndpoint } from './kube-http.ts';
import { renderKubeconfig } from './kubeconfig.ts';
import { isPortTaken, withFreePorts } from './ports.ts';
import { startServer, type ManagedProcess } from './process.ts';
import type { Reaper } from './reaper.ts';
import { waitUntil } from './wait.ts';
import { createWorkspace } from './workspace.ts';
import { errorMessage } from '../../shared/errors/index.ts';

/** Connection data of a running control plane; plain data, safe to hand to test workers. */
export interface ControlPlaneInfo extends KubeEndpoint {
  /** Admin kubeconfig (client certificate of group system:masters). */
  kubeconfigPath: string;
  caCertPath: string;
  /** Bearer token of the same admin identity (static token file). */
  adminToken: string;
  adminCertPem: string;
  adminKeyPem: string;
  adminCertPath: string;
  adminKeyPath: string;
  /** kubectl matching the API server. */
  kubectl: string;
  etcdUrl: string;
  /** The control plane's temp directory (deleted by stop()). */
  dir: string;
}

/** A running control plane. */
export interface ControlPlane {
  readonly info: ControlPlaneInfo;
  /** Log files of etcd, kube-apiserver and kube-controller-manager (inside `info.dir`). */
  readonly logs: { etcd: string; apiServer: string; controllerManager: string };
  /** The node, when started with `node` (its logs are in `node.logs`). */
  readonly node?: NodeInfo;
  /**
   * Stops kube-apiserver, waits `downtimeMs` (default 0), runs `whileDown` (tests write to etcd
   * there, unwatched) and starts it again on the same port, etcd and credentials, then waits
   * until it is ready. Throws (with the log tail) if it does not come back.
   */
  restartApiServer(options?: { downtimeMs?: number; whileDown?: () => Promise<void> }): Promise<void>;
  /** Stops both servers and deletes the temp directory. Idempotent. */
  stop(): Promise<void>;
}

/** Binaries the control plane runs. */
export interface ControlPlaneBinaries {
  kubeApiserver: string;
  etcd: string;
  kubectl: string;
  /** Required when `controllerManager` or `node` is requested. */
  kubeControllerManager?: string;
  /** Required when `node` is requested (resolveNodeBinaries). */
  node?: NodeBinaries;
}

/** Options of startControlPlane. */
export interface StartControlPlaneOptions {
  binaries: ControlPlaneBinaries;
  /** Parent of the temp directory (default: the OS temp dir). */
  tmpRoot?: string;
  /** Extra kube-apiserver flags (`--feature-gates=...`), appended last. */
  apiServerExtraArgs?: readonly string[];
  /**
   * A structured AuthenticationConfiguration (apiserver.config.k8s.io; e.g. a JWT authenticator
   * for an OpenID Connect issuer), written to the control plane's directory and passed as
   * `--authentication-config`; the static tokens, client certificates and ServiceAccount tokens
   * still authenticate.
   */
  authenticationConfig?: object;
  /**
   * Also run kube-controller-manager (CONTROLLER_MANAGER_CONTROLLERS), across restartApiServer
   * too (default false: tests against the bare API server assume no garbage collection).
   */
  controllerManager?: boolean;
  /** Per-server readiness timeout (default 90 s; kube-apiserver takes ~5-15 s on 2 cores). */
  startTimeoutMs?: number;
  /**
   * Also run a real node (node.ts; implies `controllerManager`; needs root and the packages
   * node-prereqs.ts checks). The API server then listens on the node bridge's host address.
   */
  node?: boolean | NodeOptions;
}

/** Servers get an empty environment: etcd's ETCD_* variables would fight our flags. */
const SERVER_ENV: NodeJS.ProcessEnv = {};

/**
 * Starts etcd and kube-apiserver and resolves once `/readyz` is ok, the `default` namespace
 * exists and the admin identity is authorised. On a failure everything started is stopped and
 * the temp directory removed before the error (with the server's log tail) is thrown.
 */
export async function startControlPlane(options: StartControlPlaneOptions): Promise<ControlPlane> {
  const ws = await createWorkspace('olmv1-envtest-', options.tmpRoot);
  const { dir, reaper } = ws;
  const timeoutMs = options.startTimeoutMs ?? 90_000;
  let etcd: ManagedProcess | undefined;
  let apiServer: ManagedProcess | undefined;
  let controllerManager: ManagedProcess | undefined;
  ws.track(() => etcd);
  ws.track(() => apiServer);
  // Tracked last, so stopped first: it would log errors while the API server goes away.
  ws.track(() => controllerManager);
  const nodeProcesses: ManagedProcess[] = [];
  for (let i = 0; i < 8; i++) ws.track(() => nodeProcesses[i]);
  const stop = (): Promise<void> => ws.stop();
  const nodeOptions: NodeOptions | undefined = options.node === true ? {} : options.node === false ? undefined : options.node;

  try {
    const logsDir = join(dir, 'logs');
    await mkdir(logsDir);
    const logs = {
      etcd: join(logsDir, 'etcd.log'),
      apiServer: join(logsDir, 'kube-apiserver.log'),
      controllerManager: join(logsDir, 'kube-controller-manager.log'),
    };
    let prepared: PreparedNode | undefined;
    if (nodeOptions !== undefined) prepared = await prepareNode({ dir, reaper, addCleanup: (step) => ws.addCleanup(step), node: nodeOptions });
    const pki = await createControlPlanePki(dir, prepared === undefined ? [] : [prepared.network.hostIp]);
    const kubeletClient =
      prepared === undefined
        ? undefined
        : await issueCertificate(pki.ca, join(dir, 'pki'), {
            name: 'apiserver-kubelet-client',
            commonName: 'kube-apiserver-kubelet-client',
            organizations: ['system:masters'],
            usage: 'client',
          });
    const host = prepared?.network.hostIp ?? '127.0.0.1';
    const etcdStarted = await startEtcd(options.binaries.etcd, dir, logs.etcd, reaper, timeoutMs);
    etcd = etcdStarted.process;
    const endpoint: KubeEndpoint = { server: '', caPem: pki.ca.certPem };
    const admin: KubeAuth = { certPem: pki.admin.certPem, keyPem: pki.admin.keyPem };
    const extraArgs = [...(options.apiServerExtraArgs ?? [])];
    if (options.authenticationConfig !== undefined) {
      const path = join(dir, 'authentication-config.json');
      await writeFile(path, JSON.stringify(options.authenticationConfig, null, 2));
      extraArgs.unshift(`--authentication-config=${path}`);
    }
    let args: string[] = [];
    const launch = async (): Promise<void> => {
      apiServer = await startServer(
        { name: 'kube-apiserver', command: options.binaries.kubeApiserver, args, logPath: logs.apiServer, reaper, env: SERVER_ENV },
        (proc) => waitForApiServer(endpoint, admin, proc, timeoutMs),
      );
    };
    await withFreePorts(1, async ([port = 0]) => {
      endpoint.server = `https://${host}:${port}`;
      args = apiServerArgs({
        etcdUrl: etcdStarted.url,
        securePort: port,
        tlsCertPath: pki.serving.certPath,
        tlsKeyPath: pki.serving.keyPath,
        clientCaPath: pki.ca.certPath,
        tokenAuthPath: pki.tokenAuthPath,
        serviceAccountPublicKeyPath: pki.serviceAccountKeys.publicKeyPath,
        serviceAccountPrivateKeyPath: pki.serviceAccountKeys.privateKeyPath,
        extraArgs,
        ...(prepared !== undefined && kubeletClient !== undefined
          ? {
              node: {
                address: host,
                kubeletClientCertPath: kubeletClient.certPath,
                kubeletClientKeyPath: kubeletClient.keyPath,
                kubeletCaPath: pki.ca.certPath,
              },
            }
          : {}),
      });
      await launch();
    });
    if (options.controllerManager === true || prepared !== undefined) {
      const binary = options.binaries.kubeControllerManager;
      if (binary === undefined) throw new Error('controllerManager and node need binaries.kubeControllerManager');
      controllerManager = await startControllerManager({
        binary,
        dir,
        apiServer: endpoint.server,
        ca: pki.ca,
        serviceAccountPrivateKeyPath: pki.serviceAccountKeys.privateKeyPath,
        ...(prepared !== undefined ? { extraControllers: NODE_CONTROLLERS } : {}),
        logPath: logs.controllerManager,
        reaper,
        timeoutMs,
      });
    }
    let node: NodeInfo | undefined;
    if (prepared !== undefined && nodeOptions !== undefined) {
      const binaries = options.binaries.node;
      if (binaries === undefined) throw new Error('node needs binaries.node (resolveNodeBinaries)');
      node = await startNode({
        prepared,
        binaries,
        options: nodeOptions,
        endpoint,
        admin,
        ca: pki.ca,
        serviceCidr: CONTROL_PLANE_DEFAULTS.serviceClusterIpRange,
        clusterDnsIp: CONTROL_PLANE_DEFAULTS.clusterDnsIp,
        reaper,
        track: (proc) => nodeProcesses.push(proc),
        timeoutMs,
      });
    }
    const info = await writeInfo(dir, endpoint, pki, options.binaries.kubectl, etcdStarted.url);
    return {
      info,
      logs,
      ...(node !== undefined ? { node } : {}),
      stop,
      async restartApiServer(restart: { downtimeMs?: number; whileDown?: () => Promise<void> } = {}): Promise<void> {
        if (ws.stopped) throw new Error('restartApiServer: control plane was stopped');
        await apiServer?.stop();
        if (restart.downtimeMs !== undefined) await sleep(restart.downtimeMs);
        await restart.whileDown?.();
        // Clients keep their URL: if something took the port meanwhile, wait for it to go.
        for (let attempt = 1; ; attempt++) {
          try {
            await launch();
            return;
          } catch (err) {
            if (!(attempt < 5 && isPortTaken(err))) throw err;
            await sleep(1000);
          }
        }
      },
    };
  } catch (err) {
    await stop();
    throw new Error(`starting the envtest control plane failed: ${errorMessage(err)}`, { cause: err });
  }
}

async function startEtcd(
  binary: string,
  dir: string,
  logPath: string,
  reaper: Reaper,
  timeoutMs: number,
): Promise<{ process: ManagedProcess; url: string }> {
  return withFreePorts(2, async ([clientPort = 0, peerPort = 0], attempt) => {
    const url = `http://127.0.0.1:${clientPort}`;
    const args = etcdArgs({ dataDir: join(dir, `etcd-data-${attempt}`), clientPort, peerPort });
    const proc = await startServer({ name: 'etcd', command: binary, args, logPath, reaper, env: SERVER_ENV }, (proc) =>
      waitUntil(
        'etcd /health',
        async () => {
          const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
          return res.ok && ((await res.json()) as { health?: string }).health === 'true';
        },
        { timeoutMs, process: proc },
      ),
    );
    return { process: proc, url };
  });
}

/** Ready means: /readyz ok, the `default` namespace exists, and the admin may list RBAC roles. */
async function waitForApiServer(endpoint: KubeEndpoint, admin: KubeAuth, proc: ManagedProcess, timeoutMs: number): Promise<void> {
  const ok = async (path: string): Promise<boolean> => {
    const res = await kubeRequest(endpoint, { path, auth: admin, timeoutMs: 5000 });
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.body.slice(0, 200)}`);
    return true;
  };
  const opts = { timeoutMs, process: proc, intervalMs: 200 };
  await waitUntil('kube-apiserver /readyz', () => ok('/readyz'), opts);
  await waitUntil('the default namespace', () => ok('/api/v1/namespaces/default'), opts);
  await waitUntil('admin access to RBAC', () => ok('/apis/rbac.authorization.k8s.io/v1/clusterroles/cluster-admin'), opts);
}

async function writeInfo(dir: string, endpoint: KubeEndpoint, pki: ControlPlanePki, kubectl: string, etcdUrl: string): Promise<ControlPlaneInfo> {
  const kubeconfigPath = join(dir, 'admin.kubeconfig');
  const kubeconfig = renderKubeconfig({
    server: endpoint.server,
    caPem: endpoint.caPem,
    userName: 'envtest-admin',
    credentials: { kind: 'clientCertificate', certPem: pki.admin.certPem, keyPem: pki.admin.keyPem },
  });
  await writeFile(kubeconfigPath, kubeconfig, { mode: 0o600 });
  return {
    server: endpoint.server,
    caPem: endpoint.caPem,
    kubeconfigPath,
    caCertPath: pki.ca.certPath,
    adminToken: pki.adminToken,
    adminCertPem: pki.admin.certPem,
    adminKeyPem: pki.admin.keyPem,
    adminCertPath: pki.admin.certPath,
    adminKeyPath: pki.admin.keyPath,
    kubectl,
    etcdUrl,
    dir,
  };
}
