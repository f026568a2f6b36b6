/**
 * A test file's own control plane: with kube-controller-manager (garbage collector, namespace
 * deletion, ...) for suites that must hold with the controllers a real cluster runs (issue #42:
 * each safety break is proven with them running; the shared control plane runs none on purpose,
 * test/envtest/README.md), or without, for suites whose assertions count what operator-controller
 * does cluster-wide, which the extensions other files leave on the shared control plane would add
 * to. Started before the file's tests, stopped after every other `afterAll` of the file (hooks run
 * in reverse order of registration: call this first).
 */
import { afterAll, beforeAll, inject } from 'vitest';
import { startControlPlane, type ControlPlane, type ControlPlaneInfo } from '../../pkg/olmv1/localstack/index.ts';

/** The started control plane's connection details, filled in before the file's first test. */
export interface OwnControlPlane {
  info: ControlPlaneInfo;
}

/** See the module comment. */
export function useOwnControlPlane(options: { controllerManager?: boolean } = {}): OwnControlPlane {
  const own = {} as OwnControlPlane;
  let cp: ControlPlane | undefined;
  beforeAll(async () => {
    cp = await startControlPlane({ binaries: inject('envtestBinaries'), controllerManager: options.controllerManager === true });
    own.info = cp.info;
  }, 120_000);
  afterAll(async () => {
    await cp?.stop();
  });
  return own;
}
