/**
 * The CRD upgrade-safety preflight (upstream's crdupgradesafety preflight): before a release
 * that installs or upgrades is applied, each CustomResourceDefinition it brings is compared
 * with the one in the cluster, and an unsafe change stops the reconcile with upstream's error.
 * Nothing is applied then: the deployed revision keeps running, and the controller retries
 * with backoff, so the block clears by itself once the catalog offers a safe bundle or
 * `spec.install.preflight.crdUpgradeSafety.enforcement` is set to `None`.
 */
import { CrdUpgradeSafetyEnforcement } from '../../shared/api/index.ts';
import type { StoredVerdictCache } from '../crdupgrade/index.ts';
import type { Step, StepOutcome } from '../../shared/controller/index.ts';
import type { EventRecorder, ScopedClientFactory } from '../../shared/kube/index.ts';
import { isCrd, untouched } from '../applier/index.ts';
import type { DriftTracker } from '../drift/index.ts';
import type { ExtensionState, PlannedState } from './pipeline-state.ts';
import { plannedStep } from './phases.ts';
import { recordPreflightFailed } from './recorded-events.ts';
import { setInstalledFrom } from './status.ts';
import { readCrds, storedCheck, unsafeCrds, type UnsafeCrd } from './crd-safety.ts';
import { fail, forBundle } from './failures.ts';

/** What the preflight step uses: clients acting as the installer (to read the installed CRDs), and the Events recorder. */
export interface PreflightPorts {
  scoped: Pick<ScopedClientFactory, 'forServiceAccount'>;
  events: EventRecorder;
  /** The drift watches: a CRD the upgrade leaves as the deployed revision applied it, and in sync, is not read. */
  drift?: Pick<DriftTracker, 'inSync'>;
  /** Stored-object verdicts kept while nothing changes (decision 0129); none: each retry scans. */
  storedVerdicts?: StoredVerdictCache;
}

/**
 * Runs the check unless enforcement is `None`, the release is unchanged, or it is the revision
 * rolling out (`written`: checked before it was written). The installed CRD is
 * read as the extension's ServiceAccount (the reference README's deliberate difference 1, decision
 * 0003), which pre-authorization has just shown may `get` it; a CRD not in the cluster has nothing
 * to break. A CRD the new bundle no longer has is not checked: it is kept, not replaced; nor one
 * the upgrade leaves as it is (`untouched`: the live CRD is what the deployed revision applied,
 * the same as the new one), which the apply does not send either.
 */
export function preflightStep(ports: PreflightPorts): Step<ExtensionState> {
  return plannedStep('preflight', (state) => preflight(ports, state));
}

async function preflight(ports: PreflightPorts, state: PlannedState): Promise<StepOutcome> {
  if (state.ce.spec.install?.preflight?.crdUpgradeSafety.enforcement === CrdUpgradeSafetyEnforcement.None) return undefined;
  const { desired, unchanged, written } = state.plan;
  const sa = state.installer;
  if (unchanged || written) return undefined;
  const client = ports.scoped.forServiceAccount(sa.namespace, sa.name);
  let unsafe: UnsafeCrd[];
  try {
    const drift = ports.drift;
    const same = drift === undefined ? () => false : untouched(state.history, (obj) => drift.inSync(state.ce.metadata.name, obj));
    const crds = desired.manifest.where((o) => isCrd(o) && !same(o));
    unsafe = unsafeCrds(crds, await readCrds(client, crds, state.signal, storedCheck(state, ports.storedVerdicts)));
  } catch (err) {
    setInstalledFrom(state.ce, state.installed);
    fail(state, forBundle(desired.bundle, err));
  }
  if (unsafe.length === 0) return undefined;
  state.log.info({ crds: unsafe.length }, 'upgrade blocked by CRD upgrade safety');
  setInstalledFrom(state.ce, state.installed);
  const names = unsafe.map((u) => u.name);
  const stored = unsafe.flatMap((u) => u.stored ?? []);
  recordPreflightFailed(ports.events, state, desired.bundle, names, stored);
  fail(state, forBundle(desired.bundle, new Error(unsafe.map((u) => u.error).join('\n'))));
}
