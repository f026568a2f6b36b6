/**
 * The cluster-upgrade gate's composition (olm.maxOpenShiftVersion and operators' Upgradeable=False; metrics always, OpenShift
 * conditions where served): its step list, its reconciler and the controller that runs it
 * over the one key GATE_KEY (pkg/operator-controller/upgradegate).
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ClusterMinor } from '../../pkg/operator-controller/gating/index.ts';
import type { RevisionReader } from '../../pkg/operator-controller/revisions/index.ts';
import { Controller, stepDurationTimer } from '../../pkg/shared/controller/index.ts';
import { Informer, clientListWatch, settlesWithin, type KubeClient, type KubeObject } from '../../pkg/shared/kube/index.ts';
import {
  CLUSTER_VERSION,
  GATE_KEY,
  GateReconciler,
  CRD_TYPE,
  GATE_PACE_MS,
  OPENSHIFT_CRDS,
  UPGRADE_GATE_NAME,
  clusterVersionStep,
  crdApiWatch,
  crdEventMatters,
  conditionsStep,
  deployedStep,
  gateKeys,
  gateMetrics,
  gateRateLimiter,
  holdsStep,
  summarizeCrd,
  verdictStep,
} from '../../pkg/operator-controller/upgradegate/index.ts';

/** How long the first evaluation waits for the CRD informers to list. */
const CRD_LIST_WAIT_MS = 10_000;

/** What the gate is built from. */
interface UpgradeGateDeps {
  /** operator-controller's own identity: discovery, ClusterVersion, the OpenShift conditions. */
  client: KubeClient;
  /** What each extension has installed, whichever runtime installed it. */
  releases: Pick<RevisionReader, 'installed'>;
  /** The ClusterExtension informer (shared with the extension controller; run by the caller). */
  extensions: Informer<KubeObject>;
  /** `--cluster-version`. */
  clusterVersion: ClusterMinor | undefined;
  log: Logger;
  registry: Registry;
}

/**
 * Runs the gate until `signal` aborts: a first evaluation at once, then on every change that
 * may move the verdict (extensions, ClusterVersion, the OpenShift CRDs) and every resync a step
 * asked for. Never rejects.
 */
export function runUpgradeGate(d: UpgradeGateDeps, signal: AbortSignal): Promise<void> {
  const log = d.log.child({ controller: UPGRADE_GATE_NAME });
  // The OpenShift CRDs, each watched by name: their events say when the APIs come and go.
  const crds = new Map<string, Informer<KubeObject>>();
  for (const { crd } of OPENSHIFT_CRDS) {
    const informer = new Informer({
      name: crd,
      source: clientListWatch(d.client, CRD_TYPE, { fieldSelector: `metadata.name=${crd}` }),
      log,
      registry: d.registry,
      transform: summarizeCrd,
    });
    informer.addHandler((_type, obj, old) => {
      if (crdEventMatters(obj, old)) controller.enqueue(GATE_KEY);
    });
    crds.set(crd, informer);
  }
  const apis = crdApiWatch(crds);
  const reconciler = new GateReconciler({
    steps: [
      clusterVersionStep({
        client: d.client,
        clusterVersion: d.clusterVersion,
        apis,
        informers: {
          start: (stop) => {
            const informer = new Informer({ name: 'clusterversions', source: clientListWatch(d.client, CLUSTER_VERSION), log, registry: d.registry });
            informer.addHandler(() => controller.enqueue(GATE_KEY));
            void informer.run(AbortSignal.any([signal, stop]));
            return informer;
          },
        },
      }),
      deployedStep({ releases: d.releases, extensions: d.extensions }),
      holdsStep({ extensions: d.extensions, registry: d.registry }),
      verdictStep({ metrics: gateMetrics(d.registry) }),
      conditionsStep({ client: d.client, apis }),
    ],
    stepTimer: stepDurationTimer(d.registry, UPGRADE_GATE_NAME),
  });
  const controller = new Controller({
    name: UPGRADE_GATE_NAME,
    reconciler,
    log: d.log,
    registry: d.registry,
    watches: [{ informer: d.extensions, keys: gateKeys, paceMs: GATE_PACE_MS }],
    rateLimiter: gateRateLimiter(),
  });
  // Once a CRD informer listed, its presence is known: evaluate (an absent CRD has no event).
  for (const informer of crds.values()) {
    void informer.run(signal);
    informer.waitForSync(signal).then(
      () => controller.enqueue(GATE_KEY),
      () => undefined,
    );
  }
  // The first evaluation waits for the CRDs to list (the extensions' replayed events would
  // otherwise queue one that can only ask discovery), at most CRD_LIST_WAIT_MS, and runs even
  // when no extension exists.
  const listed = Promise.all([...crds.values()].map((i) => i.waitForSync(signal)));
  return settlesWithin(listed, CRD_LIST_WAIT_MS).then(() => {
    controller.enqueue(GATE_KEY);
    return controller.run(signal);
  });
}
