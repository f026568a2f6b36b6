/**
 * The cluster-upgrade gate's composition (olm.maxOpenShiftVersion; metrics always, OpenShift
 * conditions where served): its step list, its reconciler and the controller that runs it
 * over the one key GATE_KEY (pkg/operator-controller/upgradegate).
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ClusterMinor } from '../../pkg/operator-controller/gating/index.ts';
import type { ReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import { Controller, stepDurationTimer } from '../../pkg/shared/controller/index.ts';
import { Informer, clientListWatch, type KubeClient, type KubeObject } from '../../pkg/shared/kube/index.ts';
import {
  CLUSTER_VERSION,
  GATE_KEY,
  GateReconciler,
  UPGRADE_GATE_NAME,
  clusterVersionStep,
  conditionsStep,
  deployedStep,
  gateKeys,
  gateMetrics,
  gateRateLimiter,
  verdictStep,
} from '../../pkg/operator-controller/upgradegate/index.ts';

/** What the gate is built from. */
interface UpgradeGateDeps {
  /** operator-controller's own identity: discovery, ClusterVersion, the OpenShift conditions. */
  client: KubeClient;
  releases: ReleaseStore;
  /** The ClusterExtension informer (shared with the extension controller; run by the caller). */
  extensions: Informer<KubeObject>;
  /** `--cluster-version`. */
  clusterVersion: ClusterMinor | undefined;
  log: Logger;
  registry: Registry;
}

/**
 * Runs the gate until `signal` aborts: a first evaluation once the ClusterExtension informer
 * synced, then on every change that may move the verdict and every resync. Never rejects.
 */
export function runUpgradeGate(d: UpgradeGateDeps, signal: AbortSignal): Promise<void> {
  const log = d.log.child({ controller: UPGRADE_GATE_NAME });
  const reconciler = new GateReconciler({
    steps: [
      clusterVersionStep({
        client: d.client,
        clusterVersion: d.clusterVersion,
        informers: {
          start: () => {
            const informer = new Informer({ name: 'clusterversions', source: clientListWatch(d.client, CLUSTER_VERSION), log, registry: d.registry });
            informer.addHandler(() => controller.enqueue(GATE_KEY));
            void informer.run(signal);
            return informer;
          },
        },
      }),
      deployedStep({ releases: d.releases, extensions: d.extensions }),
      verdictStep({ metrics: gateMetrics(d.registry) }),
      conditionsStep({ client: d.client }),
    ],
    stepTimer: stepDurationTimer(d.registry, UPGRADE_GATE_NAME),
  });
  const controller = new Controller({
    name: UPGRADE_GATE_NAME,
    reconciler,
    log: d.log,
    registry: d.registry,
    watches: [{ informer: d.extensions, keys: gateKeys }],
    rateLimiter: gateRateLimiter(),
  });
  // The first evaluation happens even when no extension exists (no event would queue it).
  controller.enqueue(GATE_KEY);
  return controller.run(signal);
}
