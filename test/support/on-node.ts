// The product as it ships on a real node, for the e2e files that need it (test/e2e/on-node*.test.ts):
// the project's image built from HEAD, a control plane with a local node, config/ deployed through
// pkg/olmv1/in-cluster, and the small kubectl and HTTPS helpers those tests share. Each file
// deploys its own product: the node is machine-wide (one at a time, behind its lock), so files
// run one after another and never see each other's objects.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { buildProjectImage, defaultImageCacheDir } from '../../pkg/olmv1/images/index.ts';
import { deployInCluster, SYSTEM_NAMESPACE, type InCluster, type Kubectl } from '../../pkg/olmv1/in-cluster/index.ts';
import { startControlPlane, type CertManagerBinaries, type ControlPlane } from '../../pkg/olmv1/localstack/index.ts';
import { envtestNodeBinaries } from '../envtest/deferred-tools.ts';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
/** The tests' environment, with the sbin directories root's tools live in. */
export const nodeEnv: NodeJS.ProcessEnv = { ...process.env, PATH: `${process.env['PATH'] ?? ''}:/usr/sbin:/sbin` };

/** Why this machine cannot run the product on a node (not root, a missing tool), or undefined. */
export function nodeUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root';
  const tool = ['buildah', 'debootstrap', 'containerd', 'runc'].find((t) => {
    try {
      execFileSync('sh', ['-c', `command -v ${t}`], { env: nodeEnv, stdio: 'ignore' });
      return false;
    } catch {
      return true;
    }
  });
  return tool === undefined ? undefined : `no ${tool}`;
}

export interface OnNode {
  cp: ControlPlane;
  product: InCluster;
  kubectl: Kubectl;
  stop(): Promise<void>;
}

// Awaited while vitest imports the test file, where no timeout applies: the global setup may still
// be building them in the background (test/envtest/deferred-tools.ts).
const nodeBinaries = await envtestNodeBinaries();

/**
 * Builds (or finds) the project image, starts a control plane with a node and deploys config/;
 * with `certManager` (from the test file's own envtestCertManager call), cert-manager first and
 * config/ with its config/cert-manager component. The builds happen before the node starts:
 * the node holds the machine's lock while it runs.
 */
export async function deployOnNode(log: (line: string) => void, options: { certManager?: CertManagerBinaries } = {}): Promise<OnNode> {
  const image = await buildProjectImage({
    repoRoot: REPO,
    revision: execFileSync('git', ['-C', REPO, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim(),
    cacheDir: defaultImageCacheDir(nodeEnv),
    env: nodeEnv,
    log,
    extraCaFile: process.env['NODE_EXTRA_CA_CERTS'] || undefined,
  });
  log(`project image ${image.tag} ${image.cached ? 'found in the cache' : 'built'} in ${image.seconds} s`);
  const certManager = options.certManager;
  const started = Date.now();
  const cp = await startControlPlane({ binaries: { ...inject('envtestBinaries'), node: nodeBinaries }, node: { log } });
  const nodeMs = Date.now() - started;
  try {
    const product = await deployInCluster({
      controlPlane: cp,
      registryBinaries: inject('envtestBinaries'),
      repoRoot: REPO,
      image,
      env: nodeEnv,
      log,
      ...(certManager === undefined ? {} : { certManager }),
    });
    log(`control plane + node ${nodeMs} ms; deployed ${JSON.stringify(product.timings)} ms; total ${Date.now() - started} ms`);
    return {
      cp,
      product,
      kubectl: product.kubectl,
      stop: async () => {
        await product.stop();
        await cp.stop();
      },
    };
  } catch (err) {
    await cp.stop();
    throw err;
  }
}

export interface Obj {
  metadata: { name: string; namespace?: string; uid?: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/** kubectl as JSON: get one object, list, server-side apply, Ready Pods, a Service's address, an installer. */
export function kube(kubectl: Kubectl) {
  const get = async (args: string[]): Promise<Obj> => JSON.parse(await kubectl(['get', ...args, '-o', 'json'])) as Obj;
  const list = async (args: string[]): Promise<Obj[]> => (JSON.parse(await kubectl(['get', ...args, '-o', 'json'])) as { items: Obj[] }).items;
  const apply = (obj: object): Promise<string> => kubectl(['apply', '--server-side', '-f', '-'], JSON.stringify(obj));
  return {
    get,
    list,
    apply,
    /** Pods of `selector` in `ns` that are Ready and not being deleted, by name. */
    readyPods: async (ns: string, selector: string): Promise<string[]> =>
      (await list(['pods', '-n', ns, '-l', selector]))
        .filter((p) => p.metadata.deletionTimestamp === undefined && condition(p, 'Ready') === 'True')
        .map((p) => p.metadata.name),
    clusterIp: async (service: string, ns = SYSTEM_NAMESPACE): Promise<string> =>
      (await get(['service', '-n', ns, service])).spec?.['clusterIP'] as string,
    /**
     * The ServiceAccount `installer` in `ns`, bound to cluster-admin by `binding`: broad on
     * purpose, these tests install, upgrade and break bundles of any shape with it.
     */
    clusterAdminInstaller: async (ns: string, binding: string): Promise<void> => {
      await apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'installer', namespace: ns } });
      await apply({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: binding },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'ServiceAccount', name: 'installer', namespace: ns }],
      });
    },
  };
}

/** The status of condition `type` of `o`. */
export function condition(o: Obj, type: string): string | undefined {
  return (o.status?.['conditions'] as Array<{ type: string; status: string }> | undefined)?.find((c) => c.type === type)?.status;
}

/** GET over HTTPS trusting only `ca`, for `servername`; a new connection each time. */
export function httpsGet(
  url: string,
  options: { ca: string; servername: string; token?: string | undefined },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = options.token === undefined ? {} : { authorization: `Bearer ${options.token}` };
    const req = request(url, { ca: options.ca, servername: options.servername, agent: false, timeout: 5000, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/** The memory cgroup directory of a container (`containerd://<id>`) on the node (cgroups v1). */
export function containerCgroup(containerID: string): string {
  const id = containerID.replace(/^containerd:\/\//, '');
  const found = execFileSync('find', ['/sys/fs/cgroup/memory', '-maxdepth', '4', '-type', 'd', '-name', id], { encoding: 'utf8' });
  return found.trim().split('\n')[0] ?? '';
}

/** The container's first process. */
export function containerPid(containerID: string): number {
  return Number(readFileSync(join(containerCgroup(containerID), 'cgroup.procs'), 'utf8').split('\n')[0]);
}

/** Logs `name: <seconds> s` since `started`. */
export function timed(log: (line: string) => void, name: string, started: number): void {
  log(`${name}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
