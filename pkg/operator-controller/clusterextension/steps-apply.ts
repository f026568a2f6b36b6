/**
 * The writing steps of a ClusterExtension reconcile: pre-authorization of the extension's
 * ServiceAccount, then the apply as a Helm-like release, and the success status.
 */
import {
  OwnershipConflictError,
  applyRelease,
  describeObject,
  formatMissingPermissions,
  missingPermissionsAdvice,
  objectsToDelete,
  preAuthorize,
} from '../applier/index.ts';
import { POLL, type Step, type StepOutcome } from '../../shared/controller/index.ts';
import type { EventRecorder, KubeObject, ScopedClientFactory } from '../../shared/kube/index.ts';
import { identityOf, type Release, type ReleaseStore } from '../release/index.ts';
import { staticKindScopes } from '../render/index.ts';
import { deprecationConditions, resolve } from '../resolve/index.ts';
import type { DriftTracker } from '../drift/index.ts';
import type { ExtensionState, Plan } from './pipeline-state.ts';
import { preAuthorizationNote, recordApplyFailed, recordDeployed, recordDriftRepaired, recordPreAuthorizationFailed } from './recorded-events.ts';
import { setDeprecation, setInstalledFrom, setProgressingRetrying, setProgressingSucceeded } from './status.ts';
import { fail, forBundle, listedDriftDeps, required, trackDrift } from './step-support.ts';

/** What the preauthorize step uses: clients acting as the installer, and the Events recorder. */
export interface PreauthorizePorts {
  scoped: Pick<ScopedClientFactory, 'forServiceAccount'>;
  events: EventRecorder;
}

/** What the apply step uses. */
export interface ApplyPorts {
  /** Clients acting as the installer: every object is written with its identity. */
  scoped: Pick<ScopedClientFactory, 'forServiceAccount'>;
  /** The release records (written with operator-controller's own identity). */
  releases: ReleaseStore;
  /** The drift watches: what they know is ours, what drifted, and the objects of a new release. */
  drift: Pick<DriftTracker, 'expectDeletes' | 'ownedUid' | 'inSync' | 'noteApplied' | 'takeDrifted' | 'track' | 'listed'>;
  events: EventRecorder;
}

/** Kinds whose objects pre-authorization reads whole: kinds' scopes, rules, bindings' roles (by kind alone, as it does). */
const READ_WHOLE = new Set(['CustomResourceDefinition', 'Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);

/** What pre-authorization reads of an object: CRDs and RBAC objects whole, any other its identity alone. */
function forAuthorization(obj: KubeObject): KubeObject {
  return READ_WHOLE.has(obj.kind) ? obj : identityOf(obj);
}

/**
 * Before anything new is written, checks as the ServiceAccount every permission the release
 * needs; all missing ones are reported at once and the step waits (polling) until they are
 * granted. Skipped when the release is unchanged (nothing new to authorize).
 */
export function preauthorizeStep(ports: PreauthorizePorts): Step<ExtensionState> {
  return { name: 'preauthorize', run: (state) => preauthorize(ports, state) };
}

async function preauthorize(ports: PreauthorizePorts, state: ExtensionState): Promise<StepOutcome> {
  const { desired, unchanged, installer: sa } = required(state, 'plan');
  if (unchanged) return undefined;
  const namespace = state.ce.spec.namespace;
  const installer = ports.scoped.forServiceAccount(sa.namespace, sa.name);
  // The old revision's CRDs only, its other objects never parsed (decision 0098).
  const oldCrds = state.installed === undefined ? [] : state.installed.manifest.where((o) => o.kind === 'CustomResourceDefinition');
  // Of the new objects, what the rules are made of: each object's identity, the RBAC objects and
  // CRDs whole (their rules, bindings' roles, kinds' scopes); one parsed at a time (decision 0098).
  const objects = desired.manifest.map(forAuthorization);
  const mapper = staticKindScopes([...oldCrds, ...objects.filter((o) => o.kind === 'CustomResourceDefinition')]);
  let missing;
  try {
    missing = await preAuthorize(
      installer,
      {
        objects,
        dropped: objectsToDelete(state.history, desired),
        installNamespace: namespace,
        serviceAccountName: sa.name,
        bundleName: desired.bundle.name,
        mapper,
      },
      state.signal,
    );
  } catch (err) {
    setInstalledFrom(state.ce, state.installed);
    fail(state, forBundle(desired.bundle, err));
  }
  if (missing.length === 0) return undefined;
  // The condition: upstream's text exactly; the command that prints the fix and the escalation
  // warning go to the PreAuthorizationFailed Event, recorded at each check as before (the
  // recorder counts the repeats in one series).
  setInstalledFrom(state.ce, state.installed);
  const message = forBundle(desired.bundle, new Error(formatMissingPermissions(missing))).message;
  setProgressingRetrying(state.ce, message);
  const watchNamespace = state.ce.spec.config?.inline['watchNamespace'];
  const advice = missingPermissionsAdvice(missing, {
    bundleImage: desired.bundle.image,
    objects,
    installNamespace: namespace,
    serviceAccountName: sa.name,
    ...(typeof watchNamespace === 'string' ? { watchNamespace } : {}),
  });
  const note = preAuthorizationNote(message, desired.bundle, missing.length, `${sa.namespace}/${sa.name}`, advice);
  recordPreAuthorizationFailed(ports.events, state, note);
  return POLL;
}

/**
 * True when the catalogs offer another bundle from the one just deployed (the same question
 * the resolution answered, asked again for the new installed bundle, in memory): the next hop
 * of a version range. Asked only after a move to another bundle from the catalogs.
 */
function furtherHop(state: ExtensionState, plan: Plan, deployed: Release): boolean {
  const moved = state.installed === undefined || state.installed.bundle.name !== deployed.bundle.name;
  const request = plan.target.resolution?.request;
  if (!moved || request === undefined) return false;
  const b = deployed.bundle;
  const next = resolve({ ...request, installed: { name: b.name, version: b.version, release: b.release ?? null } });
  return next.ok && next.value.bundle.name !== b.name;
}

/**
 * Applies the release as the ServiceAccount and reports the outcome. Objects that are not the
 * extension's refuse the release with nothing written (single ownership, decision 0049). A
 * reconcile that moved the extension to another bundle is followed by another one at once, so
 * a version range is walked hop by hop to its top without outside help (status-only updates do
 * not start a reconcile, extension-events.ts).
 */
export function applyStep(ports: ApplyPorts): Step<ExtensionState> {
  return { name: 'apply', run: (state) => applyBundle(ports, state) };
}

async function applyBundle(ports: ApplyPorts, state: ExtensionState): Promise<StepOutcome> {
  state.applied = true;
  const plan = required(state, 'plan');
  const { desired, installer: sa } = plan;
  const name = state.ce.metadata.name;
  const client = ports.scoped.forServiceAccount(sa.namespace, sa.name);
  // The objects the new release drops are deleted by the apply: no drift to repair.
  ports.drift.expectDeletes(name, objectsToDelete(state.history, desired));
  let applied;
  try {
    const drift = await listedDriftDeps(ports.drift, name, state.signal);
    applied = await applyRelease({ client, store: ports.releases, signal: state.signal, ...drift }, state.history, desired);
  } catch (err) {
    if (err instanceof OwnershipConflictError) {
      const conflicts = err.conflicts.map((c) => ({
        object: describeObject(c.object),
        owner: c.ownership.kind === 'other-extension' ? c.ownership.extension : undefined,
      }));
      state.log.warn({ conflicts }, 'release refused: objects not owned by this extension');
    }
    recordApplyFailed(ports.events, state, desired.bundle, err);
    // What is deployed now (the failed apply may have recorded a failed revision), without its objects.
    const deployed = await ports.releases.deployed(name, state.signal).catch(() => state.history.find((r) => r.status === 'deployed'));
    setInstalledFrom(state.ce, deployed);
    fail(state, forBundle(desired.bundle, err));
  }
  setInstalledFrom(state.ce, applied.release);
  // Drift noticed before this apply is repaired by it (or superseded by a new revision).
  const drifted = ports.drift.takeDrifted(name);
  if (applied.changed) recordDeployed(ports.events, state, applied.release);
  else recordDriftRepaired(ports.events, state, drifted);
  if (applied.changed) await trackDrift(ports.drift, state, sa, applied.release.manifest.identities());
  const resolution = plan.target.resolution;
  if (resolution !== undefined) {
    setDeprecation(
      state.ce,
      deprecationConditions(applied.release.bundle.name, resolution.deprecation, true, state.ce.spec.source.catalog.channels ?? []),
    );
  }
  // The installed bundle is kept applied while its catalogs cannot offer it: say why, and retry.
  if (state.resolutionError !== undefined) fail(state, state.resolutionError);
  setProgressingSucceeded(state.ce);
  if (!applied.changed) return undefined;
  state.log.info(
    { bundle: applied.release.bundle.name, version: applied.release.bundle.version, revision: applied.release.revision },
    'release deployed',
  );
  return furtherHop(state, plan, applied.release) ? { requeue: true } : undefined;
}
