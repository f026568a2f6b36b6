/**
 * Resolves the binaries the test environment runs: kube-apiserver, etcd, kubectl and (when
 * there) kube-controller-manager from KUBEBUILDER_ASSETS when the caller passes that directory,
 * the rest built once from pinned Go modules into the cache.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ensureTool, type Log } from './build.ts';
import { CERT_MANAGER_RECIPE } from './cert-manager-recipe.ts';
import { isExecutable, runCommand } from './exec.ts';
import { findGoToolchain, type GoToolchain } from './go-toolchain.ts';
import { buildGoProgram } from './go-program.ts';
import type { NodeBinaries } from './node.ts';
import { PAUSE_PROGRAM } from './pause-image.ts';
import {
  COREDNS_RECIPE,
  ETCD_RECIPE,
  HELM_RECIPE,
  KUBE_CONTROLLER_MANAGER_RECIPE,
  KUBE_NODE_RECIPE,
  KUBERNETES_RECIPE,
  OLDEST_KUBERNETES_RECIPE,
  REGISTRY_RECIPE,
  coldBuildEstimate,
  type ToolRecipe,
} from './tool-recipes.ts';

/** Absolute paths (and versions) of every binary; plain data, safe to pass to test workers. */
export interface EnvtestBinaries {
  kubeApiserver: string;
  etcd: string;
  kubectl: string;
  /** Run only when a control plane asks for it (startControlPlane's `controllerManager`). */
  kubeControllerManager: string;
  registry: string;
  /** Our helper that prints a bcrypt htpasswd line (see tool-recipes.ts). */
  htpasswd: string;
  /** Directory holding kube-apiserver and kubectl (KUBEBUILDER_ASSETS or the cache entry). */
  binDir: string;
  /** Versions as the binaries report them, e.g. `v1.36.3`. */
  versions: { kubeApiserver: string; etcd: string; kubectl: string; kubeControllerManager: string; registry: string };
}

/** Options of resolveBinaries. */
export interface ResolveBinariesOptions {
  /** Value of KUBEBUILDER_ASSETS, read by the entry point; undefined or '' to build. */
  kubebuilderAssets?: string | undefined;
  /** Cache root, e.g. defaultCacheRoot(process.env). */
  cacheRoot: string;
  /** Environment for the Go toolchain (PATH, GOPATH, GOPROXY, ...). */
  env: NodeJS.ProcessEnv;
  /** Progress lines (stderr). */
  log: Log;
}

/** `${XDG_CACHE_HOME:-$HOME/.cache}/olmv1/envtest` computed from the given environment. */
export function defaultCacheRoot(env: NodeJS.ProcessEnv): string {
  const xdg = env['XDG_CACHE_HOME'];
  const base = xdg !== undefined && xdg !== '' ? xdg : join(env['HOME'] || homedir(), '.cache');
  return join(base, 'olmv1', 'envtest');
}

/** ensureTool for each recipe, looking for the Go toolchain (once) only when a build is needed. */
function toolBuilder(options: Omit<ResolveBinariesOptions, 'kubebuilderAssets'>): {
  ensure: (recipe: ToolRecipe) => Promise<string>;
  go: () => Promise<GoToolchain>;
} {
  let toolchain: Promise<GoToolchain> | undefined;
  const go = (): Promise<GoToolchain> => (toolchain ??= findGoToolchain(options.env));
  return { ensure: (recipe) => ensureTool(recipe, options.cacheRoot, go, options.log), go };
}

/**
 * Returns every binary, building what is missing one build at a time (cold: firstBuildEstimate).
 * Throws when KUBEBUILDER_ASSETS lacks a binary (naming the missing ones), when no suitable Go
 * toolchain exists, or when a build fails.
 */
export async function resolveBinaries(options: ResolveBinariesOptions): Promise<EnvtestBinaries> {
  const { ensure } = toolBuilder(options);
  const assets = options.kubebuilderAssets;
  const fromAssets = assets !== undefined && assets !== '';
  if (fromAssets) {
    const missing = ['kube-apiserver', 'etcd', 'kubectl'].filter((b) => !isExecutable(join(assets, b)));
    if (missing.length > 0) {
      throw new Error(
        `KUBEBUILDER_ASSETS=${assets} lacks ${missing.join(', ')}: it must be a directory with executable kube-apiserver, etcd and kubectl (unset it to build pinned versions from Go modules)`,
      );
    }
  }
  const kcmFromAssets = fromAssets && isExecutable(join(assets, 'kube-controller-manager'));
  // One after another (see build.ts): the small builds first, so an interruption during the
  // long Kubernetes build leaves them done; kube-controller-manager after kube-apiserver, as it
  // then compiles little more than the controllers (see its recipe).
  const registry = await ensure(REGISTRY_RECIPE);
  const etcdDir = fromAssets ? assets : await ensure(ETCD_RECIPE);
  const kubeDir = fromAssets ? assets : await ensure(KUBERNETES_RECIPE);
  const kcmDir = kcmFromAssets ? assets : await ensure(KUBE_CONTROLLER_MANAGER_RECIPE);
  const versions = fromAssets
    ? await probeAssetVersions(assets)
    : { kubeApiserver: KUBERNETES_RECIPE.version, etcd: ETCD_RECIPE.version, kubectl: KUBERNETES_RECIPE.version };
  return {
    kubeApiserver: join(kubeDir, 'kube-apiserver'),
    etcd: join(etcdDir, 'etcd'),
    kubectl: join(kubeDir, 'kubectl'),
    kubeControllerManager: join(kcmDir, 'kube-controller-manager'),
    registry: join(registry, 'registry'),
    htpasswd: join(registry, 'htpasswd'),
    binDir: kubeDir,
    versions: {
      ...versions,
      kubeControllerManager: kcmFromAssets ? await probeKubeVersion(join(kcmDir, 'kube-controller-manager')) : KUBE_CONTROLLER_MANAGER_RECIPE.version,
      registry: REGISTRY_RECIPE.version,
    },
  };
}

/**
 * The binaries of resolveBinaries with kube-apiserver and kubectl at OLDEST_KUBERNETES_VERSION
 * (decision 0103; its tests start no controller manager). Throws as resolveBinaries does.
 */
export async function resolveOldestBinaries(options: ResolveBinariesOptions): Promise<EnvtestBinaries> {
  const current = await resolveBinaries(options);
  const dir = await toolBuilder(options).ensure(OLDEST_KUBERNETES_RECIPE);
  const version = OLDEST_KUBERNETES_RECIPE.version;
  return {
    ...current,
    kubeApiserver: join(dir, 'kube-apiserver'),
    kubectl: join(dir, 'kubectl'),
    binDir: dir,
    versions: { ...current.versions, kubeApiserver: version, kubectl: version },
  };
}

/** The tests' `helm` CLI at HELM_VERSION. Throws as resolveBinaries does. */
export async function resolveHelm(options: Omit<ResolveBinariesOptions, 'kubebuilderAssets'>): Promise<{ helm: string; version: string }> {
  return { helm: join(await toolBuilder(options).ensure(HELM_RECIPE), 'helm'), version: HELM_RECIPE.version };
}

/**
 * The binaries of a local node (startControlPlane's `node`), never from KUBEBUILDER_ASSETS
 * (cold: firstNodeBuildEstimate). Throws as resolveBinaries does.
 */
export async function resolveNodeBinaries(options: Omit<ResolveBinariesOptions, 'kubebuilderAssets'>): Promise<NodeBinaries> {
  const { ensure, go } = toolBuilder(options);
  const kubeDir = await ensure(KUBE_NODE_RECIPE);
  const corednsDir = await ensure(COREDNS_RECIPE);
  const pause = await buildGoProgram(PAUSE_PROGRAM, options.cacheRoot, await go(), options.log);
  return {
    kubelet: join(kubeDir, 'kubelet'),
    kubeScheduler: join(kubeDir, 'kube-scheduler'),
    kubeProxy: join(kubeDir, 'kube-proxy'),
    coredns: join(corednsDir, 'coredns'),
    pause,
  };
}

/** cert-manager's binaries and CRDs, as built by {@link resolveCertManagerBinaries}. */
export interface CertManagerBinaries {
  controller: string;
  webhook: string;
  cainjector: string;
  /** cert-manager's CRD manifests (its module's `deploy/crds`, one CRD per `.yaml` file). */
  crdsDir: string;
  version: string;
}

/** cert-manager's binaries and CRDs at CERT_MANAGER_VERSION. Throws as resolveBinaries does. */
export async function resolveCertManagerBinaries(options: Omit<ResolveBinariesOptions, 'kubebuilderAssets'>): Promise<CertManagerBinaries> {
  const dir = await toolBuilder(options).ensure(CERT_MANAGER_RECIPE);
  return {
    controller: join(dir, 'cert-manager-controller'),
    webhook: join(dir, 'cert-manager-webhook'),
    cainjector: join(dir, 'cert-manager-cainjector'),
    crdsDir: join(dir, 'deploy', 'crds'),
    version: CERT_MANAGER_RECIPE.version,
  };
}

/** How long building every binary takes the first time on `cores` idle cores (coldBuildEstimate). */
export function firstBuildEstimate(cores: number): string {
  return coldBuildEstimate([REGISTRY_RECIPE, ETCD_RECIPE, KUBERNETES_RECIPE, KUBE_CONTROLLER_MANAGER_RECIPE], cores);
}

/** How long building a node's binaries takes the first time, after firstBuildEstimate's. */
export function firstNodeBuildEstimate(cores: number): string {
  return coldBuildEstimate([KUBE_NODE_RECIPE, COREDNS_RECIPE], cores);
}

/** One line naming every version, for the start of a test run. */
export function describeVersions(binaries: EnvtestBinaries): string {
  const v = binaries.versions;
  return `envtest: kube-apiserver ${v.kubeApiserver}, etcd ${v.etcd}, kubectl ${v.kubectl}, kube-controller-manager ${v.kubeControllerManager}, registry ${v.registry}`;
}

/** `Kubernetes v1.36.3` from `BINARY --version` -> `v1.36.3` (`unknown` when absent). */
async function probeKubeVersion(binary: string): Promise<string> {
  return /Kubernetes (\S+)/.exec((await runCommand(binary, ['--version'])).stdout)?.[1] ?? 'unknown';
}

async function probeAssetVersions(dir: string): Promise<{ kubeApiserver: string; etcd: string; kubectl: string }> {
  const [kubeApiserver, etcd, kubectl] = await Promise.all([
    probeKubeVersion(join(dir, 'kube-apiserver')),
    runCommand(join(dir, 'etcd'), ['--version']),
    runCommand(join(dir, 'kubectl'), ['version', '--client', '-o', 'json']),
  ]);
  return {
    kubeApiserver,
    etcd: `v${/etcd Version: (\S+)/.exec(etcd.stdout)?.[1] ?? 'unknown'}`,
    kubectl: (JSON.parse(kubectl.stdout) as { clientVersion?: { gitVersion?: string } }).clientVersion?.gitVersion ?? 'unknown',
  };
}
