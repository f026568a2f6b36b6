/**
 * The policy step (decision 0096), between render and preauthorize: whether a move from the
 * installed bundle to the one the resolution picked happens in this reconcile, by the
 * extension's update-policy annotation (pkg/operator-controller/upgradepolicy).
 *
 * A held move keeps the installed release as the target, so the reconcile goes on exactly as
 * it does when nothing new is offered (the record re-applied, drift repaired, no new revision),
 * and the UpgradeAvailable condition, one Event per held bundle and the
 * `olmv1_extension_upgrade_available` metric say what waits, why, what it changes and how to
 * approve it. Without the annotation (or with `Automatic`) the step returns at once: no
 * permission comparison, no condition, no metric series.
 */
import { APPROVED_BUNDLE_ANNOTATION, UpgradeConditionType, UpgradeReason, type ClusterExtension } from '../../shared/api/index.ts';
import { removeCondition, type Step, type StepOutcome } from '../../shared/controller/index.ts';
import type { EventRecorder } from '../../shared/kube/index.ts';
import type { ReleaseBundle } from '../release/index.ts';
import { formatPermissionDelta, objectDiff, permissionDelta } from '../upgradeplan/index.ts';
import { decideUpgrade, policySetting, type PolicySetting } from '../upgradepolicy/index.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { recordUpgradeHeld } from './recorded-events.ts';
import { setCondition } from './status.ts';
import type { UpgradeNotices } from './upgrade-notices.ts';

/** What the policy step uses: the held-upgrade notices (metric) and the Events recorder. */
interface PolicyPorts {
  upgrades: UpgradeNotices;
  events: EventRecorder;
}

/** Holds or lets through the move to the resolved bundle; see the module comment. */
export function policyStep(ports: PolicyPorts): Step<ExtensionState> {
  return { name: 'policy', run: (state) => applyPolicy(ports, state) };
}

function applyPolicy(ports: PolicyPorts, state: ExtensionState): StepOutcome {
  const setting = policySetting(state.ce.metadata.annotations);
  const installed = state.installed;
  const target = state.target?.bundle;
  if (!setting.reported) {
    ports.upgrades.set(state.name, undefined);
    removeUpgradeCondition(state.ce);
    return undefined;
  }
  if (target === undefined || state.objects === undefined) return undefined;
  // A first install is the administrator's own decision: not held.
  if (installed === undefined || target.name === installed.bundle.name) {
    ports.upgrades.set(state.name, undefined);
    setCondition(state.ce, UpgradeConditionType.UpgradeAvailable, 'False', UpgradeReason.UpToDate, upToDate(setting));
    return undefined;
  }
  const delta = permissionDelta(installed.manifest, state.objects);
  const decision = decideUpgrade(setting, {
    from: installed.bundle,
    to: target,
    gainedPermissions: formatPermissionDelta({ gained: delta.gained, lost: [] }),
  });
  if (decision.proceed) {
    ports.upgrades.set(state.name, undefined);
    const why = decision.approved ? 'approved' : `allowed by the update policy ${setting.policy}`;
    setCondition(state.ce, UpgradeConditionType.UpgradeAvailable, 'False', UpgradeReason.UpToDate, `upgrading to ${bundleText(target)} (${why})`);
    return undefined;
  }
  const diff = objectDiff(installed.manifest, state.objects);
  const message = heldMessage(state.name, installed.bundle, target, decision.reasons, diff);
  setCondition(state.ce, UpgradeConditionType.UpgradeAvailable, 'True', UpgradeReason.ApprovalRequired, message);
  if (ports.upgrades.set(state.name, { from: installed.bundle.version, to: target.version })) recordUpgradeHeld(ports.events, state, message);
  state.log.info({ from: installed.bundle.name, to: target.name, policy: setting.policy }, 'upgrade held for approval');
  // The installed release stays the target: the rest of the reconcile re-applies its record.
  state.target = { bundle: installed.bundle, fromCatalog: state.target?.fromCatalog ?? false };
  delete state.bundle;
  delete state.droppedFields;
  state.objects = installed.manifest;
  return undefined;
}

function bundleText(b: Pick<ReleaseBundle, 'name' | 'version'>): string {
  return `bundle ${JSON.stringify(b.name)} version ${JSON.stringify(b.version)}`;
}

function upToDate(s: PolicySetting): string {
  const invalid = s.invalid === undefined ? '' : ` (the update policy ${JSON.stringify(s.invalid)} is not one of Automatic, Manual, AutomaticPatch)`;
  return `no upgrade is waiting for approval${invalid}`;
}

/**
 * UpgradeAvailable's message for a held upgrade: what is offered, why it waits, what it
 * changes (objects, permissions), and how to approve it.
 */
function heldMessage(name: string, from: ReleaseBundle, to: ReleaseBundle, reasons: readonly string[], diff: ReturnType<typeof objectDiff>): string {
  const objects = `objects: ${diff.added.length} added, ${diff.removed.length} removed, ${diff.changed.length} changed`;
  return (
    `${bundleText(to)} is available (installed: ${bundleText(from)}) and waits for approval: ${reasons.join('; ')}; ${objects}. ` +
    `See it with "olmv1 upgrade plan ${name}"; approve it with "olmv1 upgrade approve ${name} ${to.version}" ` +
    `(the annotation ${APPROVED_BUNDLE_ANNOTATION}=${to.name})`
  );
}

function removeUpgradeCondition(ce: ClusterExtension): void {
  const conditions = ce.status?.conditions;
  if (conditions !== undefined) removeCondition(conditions, UpgradeConditionType.UpgradeAvailable);
}
