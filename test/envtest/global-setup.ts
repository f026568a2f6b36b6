/**
 * Vitest global setup of the `integration` project: resolves (and on first use builds) the
 * binaries, starts one control plane and two registries for the whole run, hands their
 * connection data to tests through `provide`, and stops everything in teardown.
 *
 * In a test:
 *   const cp = inject('envtestControlPlane');      // server, kubeconfigPath, adminToken, ...
 *   const { anonymous, basicAuth } = inject('envtestRegistries');
 *   const bins = inject('envtestBinaries');         // startControlPlane({ binaries: bins })
 *   const helm = inject('envtestHelm');             // the helm CLI (reads release records)
 *
 * This is an entry point: it reads KUBEBUILDER_ASSETS, XDG_CACHE_HOME and HOME.
 */
import type { TestProject } from 'vitest/node';
import {
  defaultCacheRoot,
  describeVersions,
  resolveBinaries,
  resolveHelm,
  resolveCertManagerBinaries,
  resolveNodeBinaries,
  resolveOldestBinaries,
  type CertManagerBinaries,
  type ControlPlaneInfo,
  type EnvtestBinaries,
  type NodeBinaries,
  type RegistryInfo,
} from '../../pkg/olmv1/localstack/index.ts';
import { resolveCosign } from './cosign.ts';
import { startEnvironment } from './environment.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared control plane (admin kubeconfig, server URL, CA, admin token, kubectl). */
    envtestControlPlane: ControlPlaneInfo;
    /** The shared registries: `anonymous` and `basicAuth` (with username/password). */
    envtestRegistries: { anonymous: RegistryInfo; basicAuth: RegistryInfo };
    /** Binary paths and versions, for tests that start their own control plane/registry. */
    envtestBinaries: EnvtestBinaries;
    /** Path of the `helm` CLI built from pinned Go modules (pkg/olmv1/localstack HELM_VERSION). */
    envtestHelm: string;
    /**
     * kubelet, kube-scheduler, kube-proxy, CoreDNS and the pause program, for tests that start a
     * control plane with a real node (decision 0101). Built here, once per machine, so their
     * first build is bound by no hook timeout.
     */
    envtestNodeBinaries: NodeBinaries;
    /** cert-manager's binaries and CRDs for the node tests (issue #46). */
    envtestCertManager: CertManagerBinaries;
    /** The `cosign` CLI (test/envtest/cosign.ts), for the sigstore signature-policy tests' key pairs. */
    envtestCosign: string;
  }
}

/** Starts the environment and returns its teardown. */
export function setup(project: TestProject): Promise<() => Promise<void>> {
  return setupWith(project, 'current');
}

/**
 * Starts the environment with kube-apiserver and kubectl at KUBERNETES_VERSION (`current`) or
 * at OLDEST_KUBERNETES_VERSION (`oldest`, global-setup-oldest.ts), and returns its teardown.
 */
export async function setupWith(project: TestProject, kubernetes: 'current' | 'oldest'): Promise<() => Promise<void>> {
  const log = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };
  const binaries = await (kubernetes === 'current' ? resolveBinaries : resolveOldestBinaries)({
    kubebuilderAssets: process.env['KUBEBUILDER_ASSETS'],
    cacheRoot: defaultCacheRoot(process.env),
    env: process.env,
    log,
  });
  // After the control-plane binaries, one Go build at a time (the build slot serializes them anyway).
  const helm = await resolveHelm({ cacheRoot: defaultCacheRoot(process.env), env: process.env, log });
  const nodeBinaries = await resolveNodeBinaries({ cacheRoot: defaultCacheRoot(process.env), env: process.env, log });
  const certManager = await resolveCertManagerBinaries({ cacheRoot: defaultCacheRoot(process.env), env: process.env, log });
  const cosign = await resolveCosign({ cacheRoot: defaultCacheRoot(process.env), env: process.env, log });
  log(`${describeVersions(binaries)}, helm ${helm.version}`);
  const started = Date.now();
  const environment = await startEnvironment(binaries);
  log(`envtest: control plane ${environment.info.controlPlane.server} and registries ready in ${Date.now() - started} ms`);
  project.provide('envtestControlPlane', environment.info.controlPlane);
  project.provide('envtestRegistries', environment.info.registries);
  project.provide('envtestBinaries', binaries);
  project.provide('envtestHelm', helm.helm);
  project.provide('envtestNodeBinaries', nodeBinaries);
  project.provide('envtestCertManager', certManager);
  project.provide('envtestCosign', cosign);
  return async () => {
    await environment.stop();
  };
}
