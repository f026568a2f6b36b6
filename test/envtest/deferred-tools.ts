/**
 * The test tools the shared control plane does not need: the local node's binaries, helm,
 * cert-manager and cosign. The global setup (global-setup.ts) builds them in the background,
 * one after another in the order below, while the tests that need none of them run; a test gets
 * one through its getter, which calls the same resolve function with the same cache root: it
 * returns at once when the tool is cached, waits for the build in progress (the Go build slot's
 * lock, pkg/olmv1/localstack/build.ts) or builds it itself, never twice.
 *
 * Await a getter where no timeout applies: at the top level of the test file or support
 * module (`const helm = await envtestHelm();`), which vitest runs while it collects the file,
 * with no time limit; a hook or a test would be cut by its timeout (600 s, 120 s) while the
 * background chain is still building (cosign alone is minutes). test/envtest/sequencer.ts finds
 * the files that call these getters by their names and runs them last, in this order.
 *
 * This module reads XDG_CACHE_HOME, HOME and the Go toolchain's environment, as the global setup does.
 */
import {
  defaultCacheRoot,
  findGoToolchain,
  resolveCertManagerBinaries,
  resolveHelm,
  resolveHydra,
  resolveNodeBinaries,
  type CertManagerBinaries,
  type NodeBinaries,
} from '../../pkg/olmv1/localstack/index.ts';
import { resolveCosign } from './cosign.ts';

/** Progress lines of a build (stderr unless the caller says otherwise). */
type Log = (line: string) => void;

const toStderr: Log = (line) => {
  process.stderr.write(`${line}\n`);
};

function options(log: Log, env: NodeJS.ProcessEnv): { cacheRoot: string; env: NodeJS.ProcessEnv; log: Log } {
  return { cacheRoot: defaultCacheRoot(process.env), env, log };
}

/**
 * The environment of the global setup's background builds: Go builds at niceness 10
 * (`OLMV1_GO_BUILD_NICENESS`, go-toolchain.ts), so the tests running meanwhile keep the cores
 * they need and the builds take what is left.
 */
export const BACKGROUND_BUILD_ENV: NodeJS.ProcessEnv = { ...process.env, OLMV1_GO_BUILD_NICENESS: '10' };

/** kubelet, kube-scheduler, kube-proxy, CoreDNS and the pause program, for a control plane with a real node (decision 0101). */
export function envtestNodeBinaries(log: Log = toStderr, env: NodeJS.ProcessEnv = process.env): Promise<NodeBinaries> {
  return resolveNodeBinaries(options(log, env));
}

/** Path of the `helm` CLI built from pinned Go modules (pkg/olmv1/localstack HELM_VERSION). */
export async function envtestHelm(log: Log = toStderr, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return (await resolveHelm(options(log, env))).helm;
}

/** cert-manager's binaries and CRDs, for the node tests (issue #46). */
export function envtestCertManager(log: Log = toStderr, env: NodeJS.ProcessEnv = process.env): Promise<CertManagerBinaries> {
  return resolveCertManagerBinaries(options(log, env));
}

/** Path of the `cosign` CLI (test/envtest/cosign.ts), for the sigstore signature-policy tests' key pairs. */
export function envtestCosign(log: Log = toStderr, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return resolveCosign(options(log, env));
}

/** Path of ORY Hydra's `hydra` (pkg/olmv1/localstack/hydra.ts), the OpenID Connect provider of the console's sign-in tests. */
export function envtestHydra(log: Log = toStderr, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return resolveHydra({ cacheRoot: defaultCacheRoot(process.env), go: () => findGoToolchain(env), log });
}
