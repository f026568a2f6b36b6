/**
 * The reconcile of one ClusterObjectSet as steps over typed state (upstream's
 * ClusterObjectSetReconciler.reconcile, split where it decides): `deletion` lets a deleted
 * revision go (its objects go with it: they name it as owner), `writer` decides who writes it
 * (authority.ts: its extension's installer, the identity for user-made revisions, or nobody),
 * `load` resolves the objects and holds the revision when its sources are mutable or changed,
 * `archive` tears an archived revision down, `rollout` checks what it names (preflight.ts), then
 * applies the phases and reports. Steps change only the working copy's
 * status and finalizers; the StepReconciler writes them once.
 */
import type { Logger } from 'pino';
import {
  ClusterExtensionReason,
  CLUSTER_OBJECT_SET,
  LifecycleState,
  ObjectSetReason,
  OWNER_NAME_LABEL,
  type ClusterObjectSet,
} from '../../shared/api/index.ts';
import {
  addFinalizers,
  isDeleting,
  LOW_PRIORITY,
  removeFinalizer,
  type ReconcileContext,
  type Step,
  type StepOutcome,
} from '../../shared/controller/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import { isNotFound, type KubeClient } from '../../shared/kube/index.ts';
import type { AppliedObjects } from './applied.ts';
import { MANAGED_BY_SELECTOR } from './ownership.ts';
import { firstMissingKind, systemObjectsMessage } from './preflight.ts';
import { Siblings } from './siblings.ts';
import type { RevisionWriter, WriterFor } from './writer.ts';
import { extensionSelector, type RevisionObjectWatches } from './watches.ts';
import {
  markArchived,
  markNotProgressing,
  markProgressing,
  markRetrying,
  markRollingOut,
  markSucceeded,
  rollingOutMessage,
  TEARDOWN_PENDING_MESSAGE,
} from './conditions.ts';
import { progressDeadline, type Deadline } from './deadline.ts';
import { phaseComplete, rollOut, tearDown } from './engine.ts';
import { collisionReport, collisionsMessage, probeFailureLine } from './report.ts';
import { changedPhasesMessage, loadPhases, mutableSecretsMessage, readingOnce, type LoadedPhase } from './sources.ts';
import type { ProbeWaits } from './probe-wait.ts';

/** Finalizer of an active revision (upstream's teardown finalizer): removed once it is archived or deleted. */
const TEARDOWN_FINALIZER = 'olm.operatorframework.io/teardown';

/** Annotation whose value names the revision in Progressing's messages. */
const BUNDLE_VERSION_ANNOTATION = 'olm.operatorframework.io/bundle-version';

/** Retry delay of a revision with collisions (upstream's flat 10 s). */
const COLLISION_RETRY_MS = 10_000;

/** Retry delay of a revision that failed its preflight checks (upstream's flat 10 s). */
const VALIDATION_RETRY_MS = 10_000;

/** Retry delay while an archived revision's deletions are pending (upstream's 5 s). */
const TEARDOWN_RETRY_MS = 5_000;

/** What the steps share. */
export interface ObjectSetState {
  /** The working copy: steps change its status and finalizers only. */
  cos: ClusterObjectSet;
  deadline: Deadline | undefined;
  log: Logger;
  signal: AbortSignal;
  /** Set by `writer`. */
  writer?: Extract<RevisionWriter, { client: KubeClient }>;
  /** Set by `load`. */
  loaded?: { phases: LoadedPhase[]; siblings: ClusterObjectSet[] };
}

/** The state factory of the StepReconciler; `clock` gives the deadline's now. */
export function objectSetState(clock: () => Date = () => new Date()): (cos: ClusterObjectSet, ctx: ReconcileContext) => ObjectSetState {
  return (cos, ctx) => ({ cos, deadline: progressDeadline(cos, clock()), log: ctx.log, signal: ctx.signal });
}

/** What reads ClusterObjectSets and Secrets and archives previous revisions: operator-controller's own identity. */
export type ObjectSetClient = Pick<KubeClient, 'get' | 'list' | 'listAll' | 'patch'>;

/** A deleted revision: nothing to tear down (garbage collection follows the owner references); the finalizer goes. */
export function deletionStep(): Step<ObjectSetState> {
  return {
    name: 'deletion',
    run: (s) => {
      if (!isDeleting(s.cos)) return undefined;
      removeFinalizer(s.cos, TEARDOWN_FINALIZER);
      return {};
    },
  };
}

/**
 * Who writes the revision (writer.ts): a user's revision no identity is configured for is Blocked
 * (a restart with the flag reconciles it again), one of an extension being deleted is left alone.
 */
export function writerStep(d: { writerFor: WriterFor }): Step<ObjectSetState> {
  return {
    name: 'writer',
    run: async (s): Promise<StepOutcome> => {
      let writer: RevisionWriter;
      try {
        writer = await d.writerFor(s.cos);
      } catch (err) {
        markRetrying(s.cos, errorMessage(err), s.deadline);
        throw err;
      }
      if ('held' in writer) return held(s);
      if ('refused' in writer) {
        s.log.error({ reason: writer.refused }, 'revision refused, blocking reconciliation');
        markNotProgressing(s.cos, ObjectSetReason.Blocked, writer.refused);
        return {};
      }
      s.writer = writer;
      return undefined;
    },
  };
}

/** A reconcile of a revision whose extension is being deleted: ends without a write or a report. */
function held(s: ObjectSetState): StepOutcome {
  s.log.info({}, 'extension is being deleted, revision left alone');
  return {};
}

function writerOf(s: ObjectSetState): NonNullable<ObjectSetState['writer']> {
  if (s.writer === undefined) throw new Error('ClusterObjectSet steps out of order: no writer was decided');
  return s.writer;
}

/**
 * Resolves the revision: referenced Secrets must be immutable and resolve to what the first
 * reconcile recorded (`status.observedPhases`), else the revision is Blocked (no retry: a
 * person must act, and the change of the Secret or an edit of the object wakes it). A Secret
 * that cannot be read yet is retried.
 */
/**
 * Reads a Secret in `systemNamespace` with `client`, any other as the revision's writer; all with
 * `client` without a system namespace. A user's revision (no proven extension) reads every
 * Secret as the identity it is written with: operator-controller's own Secrets (release records,
 * pull secrets) are no source for a revision it did not make.
 */
function secretReader(
  d: { client: ObjectSetClient; systemNamespace?: string },
  writer: NonNullable<ObjectSetState['writer']>,
): Pick<KubeClient, 'get'> {
  const { systemNamespace } = d;
  if (writer.extension === undefined) return writer.client;
  if (systemNamespace === undefined) return d.client;
  return {
    get: ((ref: Parameters<KubeClient['get']>[0], options?: Parameters<KubeClient['get']>[1]) =>
      ref.namespace === systemNamespace ? d.client.get(ref, options) : writer.client.get(ref, options)) as KubeClient['get'],
  };
}

export function loadStep(d: { client: ObjectSetClient; systemNamespace?: string; siblings?: Siblings }): Step<ObjectSetState> {
  const siblings = d.siblings ?? new Siblings(d.client);
  return {
    name: 'load',
    run: async (s): Promise<StepOutcome> => {
      const { cos, signal } = s;
      // Referenced Secrets: operator-controller's own in its namespace (the applier's), any other read
      // as the revision's installer, who may read only what it was granted (decision 0125); a
      // user's revision reads them all as its identity (decision 0126).
      const writer = writerOf(s);
      // Each Secret read once in this reconcile, by the immutability check and every ref to it alike.
      const secrets = readingOnce(secretReader(d, writer), signal);
      let blocked: string | undefined;
      try {
        blocked = await mutableSecretsMessage(secrets, cos, signal, d.systemNamespace);
      } catch (err) {
        blocked = errorMessage(err);
      }
      if (blocked !== undefined) {
        s.log.error({ reason: blocked }, 'referenced Secret verification failed, blocking reconciliation');
        markNotProgressing(cos, ObjectSetReason.Blocked, blocked);
        return {};
      }
      let loaded;
      try {
        const others = await siblings.of(writer.extension, cos, signal).catch((err: unknown) => {
          throw new Error(`listing sibling revisions: listing revisions: ${errorMessage(err)}`, { cause: err });
        });
        loaded = { ...(await loadPhases(secrets, cos, signal, d.systemNamespace)), siblings: others };
      } catch (err) {
        markRetrying(cos, errorMessage(err), s.deadline);
        throw new Error(`converting to boxcutter revision: ${errorMessage(err)}`, { cause: err });
      }
      cos.status ??= {};
      const stored = cos.status.observedPhases ?? [];
      if (stored.length === 0) cos.status.observedPhases = loaded.observed;
      else {
        const changed = changedPhasesMessage(stored, loaded.observed);
        if (changed !== undefined) {
          s.log.error({ reason: changed }, 'resolved phases content changed, blocking reconciliation');
          markNotProgressing(cos, ObjectSetReason.Blocked, changed);
          return {};
        }
      }
      s.loaded = { phases: loaded.phases, siblings: loaded.siblings };
      return undefined;
    },
  };
}

/** The watches of the revisions' objects (watches.ts), as the steps use them. */
type ObjectWatches = Pick<RevisionObjectWatches, 'track' | 'forget'>;

/** A revision being deleted, archived or left alone has its objects' watches stopped (before the other steps). */
export function unwatchStep(d: { watches: ObjectWatches }): Step<ObjectSetState> {
  return {
    name: 'unwatch',
    run: (s) => {
      if (isDeleting(s.cos) || s.cos.spec.lifecycleState === LifecycleState.Archived) d.watches.forget(s.cos.metadata.name);
      return undefined;
    },
  };
}

/**
 * An active revision's objects are watched before they are applied (as upstream establishes its
 * watches first), as the identity that writes them, selected by the labels the rollout writes;
 * again once it completed (`rewatch`), for the kinds a CRD of an earlier phase defined meanwhile.
 */
export function watchStep(d: { watches: ObjectWatches }, name = 'watch'): Step<ObjectSetState> {
  // After `archive`: an archived revision never gets here.
  return {
    name,
    run: async (s): Promise<StepOutcome> => {
      const { phases } = loadedOf(s);
      const writer = writerOf(s);
      const name = s.cos.metadata.name;
      const watcher =
        writer.extension === undefined
          ? { identity: 'user', client: writer.client, selector: MANAGED_BY_SELECTOR }
          : { identity: writer.identity ?? `extension/${writer.extension}`, client: writer.client, selector: extensionSelector(writer.extension) };
      const objects = phases.flatMap((p) => p.objects.map((o) => o.manifest));
      await d.watches.track(name, watcher, objects, s.signal);
      return undefined;
    },
  };
}

function loadedOf(s: ObjectSetState): NonNullable<ObjectSetState['loaded']> {
  if (s.loaded === undefined) throw new Error('ClusterObjectSet steps out of order: the revision was not loaded');
  return s.loaded;
}

/**
 * An archived revision: its objects are deleted, but those a later revision took over, which
 * only lose it as owner; then Archived is reported and the finalizer goes.
 */
export function archiveStep(): Step<ObjectSetState> {
  return {
    name: 'archive',
    run: async (s): Promise<StepOutcome> => {
      if (s.cos.spec.lifecycleState !== LifecycleState.Archived) return undefined;
      const { phases } = loadedOf(s);
      const writer = writerOf(s);
      let done: boolean;
      try {
        done = await tearDown(writer.client, s.cos, phases, s.signal);
      } catch (err) {
        if (!writer.mayWrite()) return held(s);
        const message = `error archiving revision: ${errorMessage(err)}`;
        markRetrying(s.cos, message, undefined);
        throw new Error(message, { cause: err });
      }
      if (!done) {
        markRetrying(s.cos, TEARDOWN_PENDING_MESSAGE, undefined);
        return { requeueAfterMs: TEARDOWN_RETRY_MS };
      }
      markArchived(s.cos);
      removeFinalizer(s.cos, TEARDOWN_FINALIZER);
      return {};
    },
  };
}

/** The revision as its objects are written: a user's revision (no proven extension) writes no owner-name label of one. */
function asWritten(cos: ClusterObjectSet, extension: string | undefined): ClusterObjectSet {
  if (extension !== undefined || cos.metadata.labels?.[OWNER_NAME_LABEL] === undefined) return cos;
  const labels = { ...cos.metadata.labels };
  delete labels[OWNER_NAME_LABEL];
  return { ...cos, metadata: { ...cos.metadata, labels } };
}

/** Options of the rollout step. */
interface RolloutDeps {
  client: ObjectSetClient;
  /** When a revision waiting on its probes is looked at again without an event (probe-wait.ts). */
  waits: Pick<ProbeWaits, 'next' | 'forget'>;
  /** What earlier reconciles applied (applied.ts); none: every apply is sent. */
  applied?: AppliedObjects;
  /** Told of each sibling archived (siblings.ts), as loadStep's. */
  siblings?: Pick<Siblings, 'archived'>;
}

/**
 * An active revision: phases applied in order, each after the previous passed its probes.
 * Complete: earlier active revisions are archived and Succeeded is reported. Collisions are
 * retried after COLLISION_RETRY_MS; failing probes are reported on Available, and the revision
 * waits for its objects' watches to queue it, polled besides at a low priority after a wait that
 * grows while no phase more passes (probe-wait.ts), no later than the deadline.
 */
export function rolloutStep(d: RolloutDeps): Step<ObjectSetState> {
  return {
    name: 'rollout',
    run: async (s): Promise<StepOutcome> => {
      const { cos, deadline } = s;
      const { phases, siblings } = loadedOf(s);
      const writer = writerOf(s);
      addFinalizers(cos, [TEARDOWN_FINALIZER]);
      // Nothing is applied of a revision naming objects of the system (decision 0126): a person must change it.
      const system = systemObjectsMessage(phases);
      if (system !== undefined) {
        s.log.error({ reason: system }, 'revision names objects of the system, blocking reconciliation');
        markNotProgressing(cos, ObjectSetReason.Blocked, system);
        return {};
      }
      // Every kind is checked before anything is applied, as upstream's watch of them all is established first.
      let missing: string | undefined;
      try {
        missing = await firstMissingKind(writer.client, phases, s.signal);
      } catch (err) {
        markRetrying(cos, `establish watch: ${errorMessage(err)}`, deadline);
        throw new Error(`establish watch: ${errorMessage(err)}`, { cause: err });
      }
      if (missing !== undefined) {
        markRetrying(cos, `establish watch: ${missing}`, deadline);
        throw new Error(`establish watch: ${missing}`);
      }
      let outcome;
      try {
        outcome = await rollOut(writer.client, {
          cos: asWritten(cos, writer.extension),
          phases,
          probes: cos.spec.progressionProbes ?? [],
          siblings: new Set(siblings.map((r) => r.metadata.uid ?? '')),
          signal: s.signal,
          ...(d.applied === undefined ? {} : { applied: d.applied }),
        });
      } catch (err) {
        if (!writer.mayWrite()) return held(s);
        markRetrying(cos, errorMessage(err), deadline);
        throw new Error(`revision reconcile: ${errorMessage(err)}`, { cause: err });
      }
      if (outcome.validation !== undefined) {
        s.log.error({ reason: outcome.validation }, 'preflight validation failed, retrying after 10s');
        markRetrying(cos, `revision validation error: ${outcome.validation}`, deadline);
        return { requeueAfterMs: VALIDATION_RETRY_MS };
      }
      for (const [i, phase] of outcome.phases.entries()) {
        if (phase.validation !== undefined) {
          s.log.error({ phase: i, reason: phase.validation }, 'phase preflight validation failed, retrying after 10s');
          markRetrying(cos, `phase ${i} validation error: ${phase.validation}`, deadline);
          return { requeueAfterMs: VALIDATION_RETRY_MS };
        }
        const collisions = phase.objects
          .filter((o) => o.action === 'collision')
          .map((o) => o.refusal ?? collisionReport(o.object, o.probe, o.conflictingOwner));
        if (collisions.length === 0) continue;
        s.log.error({ phase: i, collisions: collisions.length }, 'object collision, retrying after 10s');
        markRetrying(cos, collisionsMessage(i, collisions), deadline);
        return { requeueAfterMs: COLLISION_RETRY_MS };
      }
      const version = cos.metadata.annotations?.[BUNDLE_VERSION_ANNOTATION] ?? '';
      if (outcome.inTransition) markProgressing(cos, ClusterExtensionReason.RollingOut, rollingOutMessage(version), deadline);
      if (outcome.complete) {
        for (const previous of siblings.filter((r) => r.spec.revision < cos.spec.revision)) {
          try {
            // On the resourceVersion read (the informer's copy, siblings.ts): a copy behind it conflicts, and the reconcile is retried.
            await d.client.patch(
              { apiVersion: CLUSTER_OBJECT_SET.apiVersion, kind: CLUSTER_OBJECT_SET.kind, name: previous.metadata.name },
              { metadata: { resourceVersion: previous.metadata.resourceVersion }, spec: { lifecycleState: LifecycleState.Archived } },
              'merge',
              { signal: s.signal },
            );
          } catch (err) {
            // Gone: nothing left to hand over.
            if (isNotFound(err)) continue;
            throw new Error(`archive previous Revision: ${errorMessage(err)}`, { cause: err });
          }
          if (writer.extension !== undefined) d.siblings?.archived(writer.extension, previous);
        }
        d.waits.forget(cos.metadata.name);
        markSucceeded(cos, version);
        return undefined;
      }
      const failures: string[] = [];
      for (const phase of outcome.phases) {
        if (phaseComplete(phase)) continue;
        const failing = phase.objects.find((o) => o.probe.status !== 'True');
        if (failing !== undefined) failures.push(probeFailureLine(failing.object, failing.probe));
      }
      markRollingOut(cos, version, failures, deadline);
      const passed = outcome.phases.filter(phaseComplete).length;
      return { requeueAfterMs: d.waits.next(cos.metadata.name, passed, deadline), priority: LOW_PRIORITY };
    },
  };
}
