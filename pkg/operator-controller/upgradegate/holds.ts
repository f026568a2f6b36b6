/**
 * Operators' `Upgradeable=False` in the cluster-upgrade gate (decision 0118): step "holds" lists
 * the ClusterExtensions whose operator says it may not be upgraded now (the annotations of
 * pkg/operator-controller/gating/upgradeable.ts), sets `olmv1_cluster_upgrade_not_upgradeable`,
 * for the condition (holds-condition.ts) the conditions step writes on the OLM `cluster` object beside
 * upstream's `InstalledOLMOperatorsUpgradeable` (so that library-go's union carries it into the
 * `olm` ClusterOperator's `Upgradeable`). Runs with or without a cluster version.
 */
import type { Registry } from 'prom-client';
import { compareUtf8 } from '../../gocompat/gotext/index.ts';
import { upgradeHoldOf, type UpgradeHold } from '../gating/index.ts';
import type { Step } from '../../shared/controller/index.ts';
import { gaugeOn, type Informer, type KubeObject } from '../../shared/kube/index.ts';
import type { GateState } from './steps.ts';

/** Ports of holdsStep. */
interface HoldsStepPorts {
  /** The ClusterExtension informer's cache. */
  extensions: Pick<Informer<KubeObject>, 'list'>;
  registry: Registry;
}

/** Step "holds": see the module comment. */
export function holdsStep(ports: HoldsStepPorts): Step<GateState> {
  const gauge = gaugeOn(
    ports.registry,
    'olmv1_cluster_upgrade_not_upgradeable',
    'Installed extensions whose operator reports Upgradeable=False, which blocks the next cluster upgrade.',
    [],
  );
  return {
    name: 'holds',
    run(state) {
      const holds: UpgradeHold[] = [];
      for (const obj of ports.extensions.list()) {
        const hold = upgradeHoldOf(obj.metadata.name ?? '', obj.metadata.annotations);
        if (hold !== undefined) holds.push(hold);
      }
      holds.sort((a, b) => compareUtf8(a.extension, b.extension));
      state.holds = holds;
      gauge.set(holds.length);
      return undefined;
    },
  };
}
