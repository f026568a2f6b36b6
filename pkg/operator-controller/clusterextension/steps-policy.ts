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
import { APPROVED_BUNDLE_ANNOTATION, CrdUpgradeSafetyEnforcement, UpgradeConditionType, UpgradeReason } from '../../shared/api/index.ts';
import type { StoredVerdictCache } from '../crdupgrade/index.ts';
import { removeCondition, type Step, type StepOutcome } from '../../shared/controller/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import type { EventRecorder, ScopedClientFactory } from '../../shared/kube/index.ts';
import type { ReleaseBundle } from '../release/index.ts';
import { formatPermissionDelta, objectDiff, permissionDelta } from '../upgradeplan/index.ts';
import { decideUpgrade, policySetting, type PolicySetting } from '../upgradepolicy/index.ts';
import type { ExtensionState, PlannedState } from './pipeline-state.ts';
import { plannedStep } from './phases.ts';
import { readCrds, storedCheck, unsafeCrds } from './crd-safety.ts';
import { recordEvent } from './recorded-events.ts';
import { setCondition } from './status.ts';
import { makePlan, recordedContent } from './plan.ts';
import type { UpgradeNotices } from './upgrade-notices.ts';

/** What the policy step uses: the held-upgrade notices (metric) and the Events recorder. */
interface PolicyPorts {
  upgrades: UpgradeNotices;
  events: EventRecorder;
  /** Clients acting as the installer: a held upgrade's CRDs are checked against the installed ones. */
  scoped: Pick<ScopedClientFactory, 'forServiceAccount'>;
  /** Stored-object verdicts kept while nothing changes (decision 0129); none: each check scans. */
  storedVerdicts?: StoredVerdictCache;
}

/** Holds or lets through the move to the resolved bundle; see the module comment. */
export function policyStep(ports: PolicyPorts): Step<ExtensionState> {
  return plannedStep('policy', (state) => applyPolicy(ports, state));
}

async function applyPolicy(ports: PolicyPorts, state: PlannedState): Promise<StepOutcome> {
  const name = state.ce.metadata.name;
  const setting = policySetting(state.ce.metadata.annotations);
  const installed = state.installed;
  if (!setting.reported) {
    ports.upgrades.set(name, undefined);
    const conditions = state.ce.status?.conditions;
    if (conditions !== undefined) removeCondition(conditions, UpgradeConditionType.UpgradeAvailable);
    return undefined;
  }
  const plan = state.plan;
  const target = plan.desired.bundle;
  // A first install is the administrator's own decision: not held.
  if (installed === undefined || target.name === installed.bundle.name) {
    ports.upgrades.set(name, undefined);
    setCondition(state.ce, UpgradeConditionType.UpgradeAvailable, 'False', UpgradeReason.UpToDate, upToDate(setting));
    return undefined;
  }
  // Opt-in (the annotation), and only for a move to another bundle: both releases' objects whole.
  const [from, to] = [installed.manifest.objects(), plan.desired.manifest.objects()];
  const delta = permissionDelta(from, to);
  const decision = decideUpgrade(setting, {
    from: installed.bundle,
    to: target,
    gainedPermissions: formatPermissionDelta({ gained: delta.gained, lost: [] }),
  });
  if (decision.proceed) {
    ports.upgrades.set(name, undefined);
    const why = decision.approved ? 'approved' : `allowed by the update policy ${setting.policy}`;
    setCondition(state.ce, UpgradeConditionType.UpgradeAvailable, 'False', UpgradeReason.UpToDate, `upgrading to ${bundleText(target)} (${why})`);
    return undefined;
  }
  const diff = objectDiff(from, to);
  const crds = await crdVerdict(ports, state, plan);
  const message = heldMessage(name, installed.bundle, target, decision.reasons, diff, crds);
  setCondition(state.ce, UpgradeConditionType.UpgradeAvailable, 'True', UpgradeReason.ApprovalRequired, message);
  if (ports.upgrades.set(name, { from: installed.bundle.version, to: target.version })) recordEvent(ports.events, state, 'UpgradeAvailable', message);
  state.log.info({ from: installed.bundle.name, to: target.name, policy: setting.policy }, 'upgrade held for approval');
  // The installed release stays the target: the rest of the reconcile re-applies its record.
  state.plan = makePlan(state, { ...plan.target, bundle: installed.bundle }, recordedContent(installed));
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
function heldMessage(
  name: string,
  from: ReleaseBundle,
  to: ReleaseBundle,
  reasons: readonly string[],
  diff: ReturnType<typeof objectDiff>,
  crds: string,
): string {
  const objects = `objects: ${diff.added.length} added, ${diff.removed.length} removed, ${diff.changed.length} changed`;
  return (
    `${bundleText(to)} is available (installed: ${bundleText(from)}) and waits for approval: ${reasons.join('; ')}; ${objects}; ${crds}. ` +
    `See it with "olmv1 upgrade plan ${name}"; approve it with "olmv1 upgrade approve ${name} ${to.version}" ` +
    `(the annotation ${APPROVED_BUNDLE_ANNOTATION}=${to.name})`
  );
}

/**
 * What the CRD upgrade-safety preflight would say of the held bundle's CRDs, in a few words
 * (the plan and, once approved, the Progressing condition give the details).
 */
async function crdVerdict(ports: PolicyPorts, state: PlannedState, plan: PlannedState['plan']): Promise<string> {
  const objects = plan.desired.manifest.objects();
  if (!objects.some((o) => o.kind === 'CustomResourceDefinition')) return 'CRD upgrade safety: no CRDs';
  if (state.ce.spec.install?.preflight?.crdUpgradeSafety.enforcement === CrdUpgradeSafetyEnforcement.None) return 'CRD upgrade safety: not enforced';
  const sa = state.installer;
  try {
    const client = ports.scoped.forServiceAccount(sa.namespace, sa.name);
    const unsafe = unsafeCrds(objects, await readCrds(client, objects, state.signal, storedCheck(state, ports.storedVerdicts)));
    if (unsafe.length === 0) return 'CRD upgrade safety: safe';
    return `CRD upgrade safety: unsafe changes to ${unsafe.map((u) => u.name).join(', ')}, the upgrade would be refused`;
  } catch (err) {
    return `CRD upgrade safety: not checked (${errorMessage(err)})`;
  }
}
