/**
 * A real node for a local control plane (decision 0101): the machine's containerd and runc, a
 * bridge CNI network of its own, kubelet, kube-scheduler, kube-proxy and CoreDNS from pinned Go
 * modules, and a pause image built here. startControlPlane starts it in two steps: the network
 * before the API server (which listens on the bridge's host address, where Pods reach it), the
 * rest after it. One cleanup script (node-cleanup.ts) undoes it all, on stop() or from the reaper.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CertificateAuthority } from './certs.ts';
import { renderCleanupScript, type CleanupPlan } from './node-cleanup.ts';
import { startClusterDns } from './cluster-dns.ts';
import { containerdLayout, ctr, setRegistryHosts, startContainerd, type ContainerdLayout } from './containerd.ts';
import { runCommand } from './exec.ts';
import { isNodeReady, startKubelet } from './kubelet.ts';
import { startKubeProxy } from './kube-proxy.ts';
import { withLock } from './lock.ts';
import type { KubeAuth, KubeEndpoint } from './kube-http.ts';
import { planNetwork, readAddressesAndRoutes, renderCniConflist, setUpNetwork, snapshotChains, type NodeNetwork } from './node-network.ts';
import { assertNodePrerequisites, SYSTEM_PATH } from './node-prereqs.ts';
import { ociArchiveOfBinary } from './pause-image.ts';
import { freePorts } from './ports.ts';
import type { ManagedProcess } from './process.ts';
import type { Reaper } from './reaper.ts';
import { startScheduler } from './scheduler.ts';
import { waitUntil } from './wait.ts';

/** Binaries a node runs (resolveNodeBinaries builds them). */
export interface NodeBinaries {
  kubelet: string;
  kubeScheduler: string;
  kubeProxy: string;
  coredns: string;
  /** The static sleeper packed as the sandbox image (pause-image.ts). */
  pause: string;
}

/** Options of a node (`startControlPlane({ node: {...} })`). */
export interface NodeOptions {
  /** Registries (`host:port`) the node pulls from over plain HTTP, e.g. the tests' registry. */
  plainHttpRegistries?: readonly string[];
  /** How long the Node may take to become Ready after the kubelet starts (default 120 s). */
  readyTimeoutMs?: number;
  /** Progress lines (stderr in the entry points): says so when it waits for another node. */
  log?: (line: string) => void;
  /** The machine-wide lock that keeps one node per machine (default `/run/olmv1-local-node.lock`). */
  machineLockPath?: string;
  /** Called once that lock is held, before the node exists (tests snapshot the machine then). */
  onLocked?: () => Promise<void>;
  /**
   * Ends the wait for another node's lock (`olmv1 up` aborts it on SIGINT and SIGTERM): the
   * start then fails with the signal's reason, having started and taken nothing. It does not
   * stop a node that holds the lock; the control plane's stop() does.
   */
  signal?: AbortSignal;
}

/** Facts about a running node; plain data. */
export interface NodeInfo {
  name: string;
  /** The bridge's host address: the Node's InternalIP, where the API server and DNS listen. */
  hostIp: string;
  podCidr: string;
  bridge: string;
  serviceCidr: string;
  clusterDnsIp: string;
  /** containerd's socket (for `ctr --address`). */
  containerdSocket: string;
  /** The node's directory (containerd, kubelet, CNI); mounts below it are removed on stop. */
  dir: string;
  /** The cleanup script stop() runs (and the reaper, if our process dies). */
  cleanupScript: string;
  /** iptables chain names of ours (filter table). */
  chains: string[];
  /** From the kubelet's start to the Node being Ready. */
  readyAfterMs: number;
  logs: { containerd: string; kubelet: string; kubeProxy: string; scheduler: string; coredns: string };
}

/** The node's network, created before the API server starts. */
export interface PreparedNode {
  network: NodeNetwork;
  dir: string;
  cleanupScript: string;
  layout: ContainerdLayout;
}

const NODE_NAME = 'olmv1-node';

/** See NodeOptions.machineLockPath. */
const MACHINE_LOCK = '/run/olmv1-local-node.lock';

/**
 * Takes the machine-wide node lock and returns its release. One node per machine: kube-proxy's
 * and the kubelet's iptables chains have fixed names, so a cleanup could not tell whose they
 * are. A second node waits, saying for whom, until `signal` aborts; a dead holder's lock is
 * taken over (lock.ts).
 *
 * @throws `signal`'s reason when it aborts before the lock is held.
 */
async function holdMachineLock(path: string, log: (line: string) => void, signal: AbortSignal | undefined): Promise<() => Promise<void>> {
  let release = (): void => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  let acquired = (): void => undefined;
  const taken = new Promise<void>((resolve) => (acquired = resolve));
  let waitedFor: string | undefined;
  const held = withLock(
    path,
    async () => {
      acquired();
      await released;
    },
    {
      onWait: (holder) => {
        waitedFor = holder;
        log(`waiting for the local node of ${holder} to stop (one node per machine: their iptables chains share names)`);
      },
      ...(signal === undefined ? {} : { signal }),
    },
  );
  try {
    await Promise.race([taken, held]);
  } catch (err) {
    if (signal?.aborted === true && waitedFor !== undefined) log(`stopped waiting for the local node of ${waitedFor}; no node was started`);
    throw err;
  }
  return async () => {
    release();
    await held;
  };
}

/**
 * Checks the prerequisites (throws listing all that is missing), then creates the node's
 * bridge, firewall chains and sysctls under `<dir>/node`, its cleanup script handed to the
 * reaper and to `addCleanup` first, so the control plane's stop() undoes any later failure.
 */
export async function prepareNode(options: {
  dir: string;
  reaper: Reaper;
  addCleanup: (step: () => Promise<void>) => void;
  node: NodeOptions;
}): Promise<PreparedNode> {
  assertNodePrerequisites();
  // Added first, so it runs last: after the cleanup script, the next node may start.
  const lockPath = options.node.machineLockPath ?? MACHINE_LOCK;
  const release = await holdMachineLock(lockPath, options.node.log ?? (() => undefined), options.node.signal);
  // If we die, the reaper removes the lock after running the cleanup script.
  options.reaper.track('dir', lockPath);
  options.addCleanup(async () => {
    await release();
    options.reaper.untrack('dir', lockPath);
  });
  await options.node.onLocked?.();
  const dir = join(options.dir, 'node');
  await mkdir(dir, { recursive: true, mode: 0o711 });
  const network = planNetwork(await readAddressesAndRoutes());
  const layout = containerdLayout(join(dir, 'containerd'));
  const plan: CleanupPlan = {
    nodeDir: dir,
    runcRoot: layout.runcRoot,
    containerdRoot: layout.root,
    containerdState: layout.state,
    containerdSocket: layout.socket,
    network,
    chainsBefore: await snapshotChains(),
    sysctls: [],
  };
  const cleanupScript = join(dir, 'cleanup.sh');
  await writeFile(cleanupScript, renderCleanupScript(plan), { mode: 0o700 });
  options.reaper.track('script', cleanupScript);
  options.addCleanup(async () => {
    await runCommand('/bin/sh', [cleanupScript], { env: { PATH: SYSTEM_PATH } });
    options.reaper.untrack('script', cleanupScript);
  });
  const sysctls = await setUpNetwork(network);
  plan.sysctls = sysctls;
  await writeFile(cleanupScript, renderCleanupScript(plan), { mode: 0o700 });
  return { network, dir, cleanupScript, layout };
}

/** What startNode needs of the control plane. */
interface StartNodeOptions {
  prepared: PreparedNode;
  binaries: NodeBinaries;
  options: NodeOptions;
  endpoint: KubeEndpoint;
  admin: KubeAuth;
  ca: CertificateAuthority;
  serviceCidr: string;
  clusterDnsIp: string;
  reaper: Reaper;
  /** Tracks a started process (the control plane's stop stops it). */
  track: (proc: ManagedProcess) => void;
  timeoutMs: number;
}

/**
 * Starts containerd (importing the pause image), kube-scheduler, CoreDNS, the kubelet and
 * kube-proxy, and resolves once the Node is Ready; throws with the failing component's log tail.
 */
export async function startNode(o: StartNodeOptions): Promise<NodeInfo> {
  const { prepared, binaries } = o;
  const { network, layout, dir } = prepared;
  const logsDir = join(dir, 'logs');
  await mkdir(logsDir, { recursive: true });
  const logs = {
    containerd: join(logsDir, 'containerd.log'),
    kubelet: join(logsDir, 'kubelet.log'),
    kubeProxy: join(logsDir, 'kube-proxy.log'),
    scheduler: join(logsDir, 'kube-scheduler.log'),
    coredns: join(logsDir, 'coredns.log'),
  };
  const pauseBinary = await readFile(binaries.pause);
  const sandboxImage = `olmv1.local/pause:${createHash('sha256').update(pauseBinary).digest('hex').slice(0, 12)}`;
  const { archive } = ociArchiveOfBinary({ name: sandboxImage, file: 'pause', binary: pauseBinary });
  await mkdir(layout.cniConfDir, { recursive: true });
  await writeFile(join(layout.cniConfDir, '10-olmv1.conflist'), renderCniConflist(network, o.serviceCidr, join(dir, 'cni-ipam')));
  for (const host of o.options.plainHttpRegistries ?? []) await setRegistryHosts(layout, host, `http://${host}`, host);

  const containerd = await startContainerd({ layout, sandboxImage, logPath: logs.containerd, reaper: o.reaper, timeoutMs: o.timeoutMs });
  o.track(containerd);
  await ctr(layout, ['images', 'import'], archive);

  const common = { ca: o.ca, reaper: o.reaper, timeoutMs: o.timeoutMs, apiServer: o.endpoint.server };
  o.track(await startScheduler({ ...common, binary: binaries.kubeScheduler, dir: join(dir, 'kube-scheduler'), logPath: logs.scheduler }));
  o.track(
    await startClusterDns({
      ...common,
      binary: binaries.coredns,
      dir: join(dir, 'coredns'),
      endpoint: o.endpoint,
      admin: o.admin,
      hostIp: network.hostIp,
      clusterIp: o.clusterDnsIp,
      logPath: logs.coredns,
    }),
  );
  const [kubeletPort] = await freePorts(1);
  const kubeletStarted = Date.now();
  const kubelet = await startKubelet({
    binary: binaries.kubelet,
    dir: join(dir, 'kubelet'),
    nodeName: NODE_NAME,
    nodeIp: network.hostIp,
    port: kubeletPort ?? 0,
    apiServer: o.endpoint.server,
    ca: o.ca,
    containerdSocket: layout.socket,
    clusterDns: o.clusterDnsIp,
    podCidr: network.podCidr,
    logPath: logs.kubelet,
    reaper: o.reaper,
  });
  o.track(kubelet);
  // After the kubelet: kube-proxy waits for its Node object to exist (up to 30 s) before it
  // serves, so started first it would wait for the kubelet's registration anyway.
  o.track(
    await startKubeProxy({
      ...common,
      binary: binaries.kubeProxy,
      dir: join(dir, 'kube-proxy'),
      nodeName: NODE_NAME,
      nodeIp: network.hostIp,
      podCidr: network.podCidr,
      logPath: logs.kubeProxy,
    }),
  );
  await waitUntil(`Node ${NODE_NAME} to become Ready`, () => isNodeReady(o.endpoint, o.admin, NODE_NAME), {
    timeoutMs: o.options.readyTimeoutMs ?? 120_000,
    process: kubelet,
    intervalMs: 250,
  });
  return {
    name: NODE_NAME,
    hostIp: network.hostIp,
    podCidr: network.podCidr,
    bridge: network.bridge,
    serviceCidr: o.serviceCidr,
    clusterDnsIp: o.clusterDnsIp,
    containerdSocket: layout.socket,
    dir,
    cleanupScript: prepared.cleanupScript,
    chains: [network.inputChain, network.forwardChain],
    readyAfterMs: Date.now() - kubeletStarted,
    logs,
  };
}

/**
 * Lets a running node pull from `host` (host:port) over plain HTTP, e.g. a registry started
 * after the node on its bridge address (containerd reads its hosts directory at every pull).
 */
export async function allowPlainHttpRegistry(node: NodeInfo, host: string): Promise<void> {
  await setRegistryHosts(containerdLayout(join(node.dir, 'containerd')), host, `http://${host}`, host);
}

/**
 * Makes a running node pull images named under `upstream` (e.g. `quay.io`) from the registry at
 * `mirror` (host:port, plain HTTP): images a bundle names at a registry this machine cannot
 * reach, pushed to a local one under the same repository and tag.
 */
export async function mirrorRegistry(node: NodeInfo, upstream: string, mirror: string): Promise<void> {
  await setRegistryHosts(containerdLayout(join(node.dir, 'containerd')), upstream, `https://${upstream}`, mirror);
}
