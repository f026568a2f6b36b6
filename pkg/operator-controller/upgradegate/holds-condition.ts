/**
 * The condition operators' `Upgradeable=False` holds put on the OLM `cluster` object (decision
 * 0118), beside upstream's `InstalledOLMOperatorsUpgradeable`; step "holds" (holds.ts) gathers
 * them and the conditions step (steps.ts) writes it.
 */
import { formatUpgradeHold, type GateCondition, type UpgradeHold } from '../gating/index.ts';

/** The condition type on the OLM `cluster` object (ours, not upstream's). */
export const HOLDS_CONDITION_TYPE = 'ClusterExtensionsUpgradeable';

/** The OLM object's condition for `holds`: False with one line per extension, or True. */
export function holdsCondition(holds: readonly UpgradeHold[]): GateCondition {
  if (holds.length === 0) return { type: HOLDS_CONDITION_TYPE, status: 'True', reason: '', message: '' };
  return {
    type: HOLDS_CONDITION_TYPE,
    status: 'False',
    reason: 'UpgradeableFalse',
    message: holds.map((h) => `ClusterExtension ${JSON.stringify(h.extension)}: ${formatUpgradeHold(h)}`).join('\n'),
  };
}
