/**
 * Vitest global setup of the `integration` project: resolves (and on first use builds) what the
 * shared control plane needs, starts one control plane and two registries for the whole run,
 * hands their connection data to tests through `provide`, then builds the other test tools in the
 * background while the tests run (deferred-tools.ts: the node's binaries, helm, cert-manager, cosign,
 * hydra, then the oldest kube-apiserver for the `integration-oldest` run that follows); its
 * teardown stops the servers and waits for that chain. Its phases go to run-timings.ts's file
 * for the summary at the end of the run.
 *
 * In a test:
 *   const cp = inject('envtestControlPlane');      // server, kubeconfigPath, adminToken, ...
 *   const { anonymous, basicAuth } = inject('envtestRegistries');
 *   const bins = inject('envtestBinaries');         // startControlPlane({ binaries: bins })
 *   const helm = await envtestHelm();               // deferred-tools.ts, at the file's top level
 *
 * This is an entry point: it reads KUBEBUILDER_ASSETS, XDG_CACHE_HOME and HOME.
 */
import { writeFileSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import {
  defaultCacheRoot,
  describeVersions,
  isAlive,
  resolveBinaries,
  resolveOldestBinaries,
  type ControlPlaneInfo,
  type EnvtestBinaries,
  type RegistryInfo,
} from '../../pkg/olmv1/localstack/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { BACKGROUND_BUILD_ENV, envtestCertManager, envtestCosign, envtestHelm, envtestHydra, envtestNodeBinaries } from './deferred-tools.ts';
import { startEnvironment } from './environment.ts';
import { phaseRecorder, staleTimingsFiles, timingsFile } from './run-timings.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared control plane (admin kubeconfig, server URL, CA, admin token, kubectl). */
    envtestControlPlane: ControlPlaneInfo;
    /** The shared registries: `anonymous` and `basicAuth` (with username/password). */
    envtestRegistries: { anonymous: RegistryInfo; basicAuth: RegistryInfo };
    /** Binary paths and versions, for tests that start their own control plane/registry. */
    envtestBinaries: EnvtestBinaries;
  }
}

/** Starts the environment, then the background builds, and returns the teardown. */
export function setup(project: TestProject): Promise<() => Promise<void>> {
  return setupWith(project, 'current');
}

/**
 * Starts the environment with kube-apiserver and kubectl at KUBERNETES_VERSION (`current`) or
 * at OLDEST_KUBERNETES_VERSION (`oldest`, global-setup-oldest.ts), and returns its teardown.
 * Only `current` starts the background builds (the `oldest` run comes after, and finds them built);
 * with `background: 'node binaries'` (the `on-node` project's process, beside the `integration`
 * one) only the node's binaries, at normal priority: the files of that process wait for them first.
 */
export async function setupWith(
  project: TestProject,
  kubernetes: 'current' | 'oldest',
  options: { background?: 'all' | 'node binaries' } = {},
): Promise<() => Promise<void>> {
  const log = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };
  const file = timingsFile(tmpdir(), process.pid);
  for (const stale of staleTimingsFiles(await readdir(tmpdir()), isAlive)) await rm(join(tmpdir(), stale), { force: true });
  const phases = phaseRecorder((list) => writeFileSync(file, JSON.stringify(list)));
  const resolveOptions = { kubebuilderAssets: process.env['KUBEBUILDER_ASSETS'], cacheRoot: defaultCacheRoot(process.env), env: process.env, log };
  const binaries = await phases.time('control plane builds', false, () =>
    (kubernetes === 'current' ? resolveBinaries : resolveOldestBinaries)(resolveOptions),
  );
  log(describeVersions(binaries));
  const environment = await phases.time('environment start', false, () => startEnvironment(binaries));
  log(`envtest: control plane ${environment.info.controlPlane.server} and registries ready`);
  project.provide('envtestControlPlane', environment.info.controlPlane);
  project.provide('envtestRegistries', environment.info.registries);
  project.provide('envtestBinaries', binaries);
  const chain: ReadonlyArray<readonly [string, () => Promise<unknown>]> =
    kubernetes === 'oldest'
      ? []
      : options.background === 'node binaries'
        ? [['node binaries', () => envtestNodeBinaries(log)]]
        : [
            // Not lowered: the `on-node` process's files wait for them before anything else.
            ['node binaries', () => envtestNodeBinaries(log)],
            ['helm', () => envtestHelm(log, BACKGROUND_BUILD_ENV)],
            ['cert-manager', () => envtestCertManager(log, BACKGROUND_BUILD_ENV)],
            ['cosign', () => envtestCosign(log, BACKGROUND_BUILD_ENV)],
            // After the tools of the `on-node` files (cert-manager): one integration file needs it, and it is the longest build.
            ['hydra', () => envtestHydra(log, BACKGROUND_BUILD_ENV)],
            ['oldest kube-apiserver', () => resolveOldestBinaries({ ...resolveOptions, env: BACKGROUND_BUILD_ENV })],
          ];
  const background = buildInBackground(chain, phases, log);
  return async () => {
    await environment.stop();
    await background;
  };
}

/**
 * Runs the builds one after another (the Go build slot serializes them anyway) and resolves
 * when all have ended, never rejecting: a failure is logged, and a test that needs that tool
 * builds it again through its getter and fails with the build's error.
 */
async function buildInBackground(
  chain: ReadonlyArray<readonly [string, () => Promise<unknown>]>,
  phases: ReturnType<typeof phaseRecorder>,
  log: (line: string) => void,
): Promise<void> {
  for (const [name, build] of chain) {
    const started = Date.now();
    try {
      await phases.time(name, true, build);
      log(`envtest: ${name} ready (background, ${Math.round((Date.now() - started) / 1000)} s)`);
    } catch (err) {
      log(`envtest: ${name} failed (background, ${Math.round((Date.now() - started) / 1000)} s): ${errorMessage(err)}`);
    }
  }
}
