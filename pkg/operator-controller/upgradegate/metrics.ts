/** The gate's metrics (prom-client, on the injected registry). */
import type { Registry } from 'prom-client';
import type { GateVerdict } from '../gating/index.ts';
import { gaugeOn } from '../../shared/kube/index.ts';

/** Sets the gauges from a verdict; `undefined` (no cluster version known) resets them. */
export type GateMetrics = (verdict: GateVerdict | undefined) => void;

/**
 * `olmv1_cluster_upgradeable` (1 allowed, 0 blocked or undecidable), `olmv1_cluster_upgrade_blockers`
 * (extensions whose declared maximum blocks the next minor) and
 * `olmv1_cluster_upgrade_metadata_errors` (extensions whose metadata could not be judged), each
 * labelled with the `next` version the verdict is about.
 */
export function gateMetrics(registry: Registry): GateMetrics {
  const upgradeable = gaugeOn(
    registry,
    'olmv1_cluster_upgradeable',
    'Whether installed extensions allow the next cluster minor upgrade (1) or not (0).',
    ['next'],
  );
  const blockers = gaugeOn(
    registry,
    'olmv1_cluster_upgrade_blockers',
    'Installed extensions whose olm.maxOpenShiftVersion blocks the next cluster minor upgrade.',
    ['next'],
  );
  const errors = gaugeOn(
    registry,
    'olmv1_cluster_upgrade_metadata_errors',
    'Installed extensions whose olm.maxOpenShiftVersion could not be evaluated.',
    ['next'],
  );
  return (verdict) => {
    upgradeable.reset();
    blockers.reset();
    errors.reset();
    if (verdict === undefined) return;
    const labels = { next: verdict.next };
    upgradeable.set(labels, verdict.upgradeable ? 1 : 0);
    blockers.set(labels, verdict.blockers.length);
    errors.set(labels, verdict.errors.length);
  };
}
