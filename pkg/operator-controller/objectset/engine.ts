/**
 * The revision engine (boxcutter's RevisionEngine over its PhaseEngine and ObjectEngine,
 * v0.14.0, as upstream's revision_engine_factory assembles it): rolls a revision's phases out in
 * order, each only after every object of the previous one passed its probes, and tears an
 * archived revision down in reverse. It writes through the KubeClient it is given (the
 * revision's installer identity) and decides with ownership.ts and probes.ts.
 *
 * Rollout of a phase: each object is read and judged, then what is to be written is dry-run
 * (decision 0160), then written in order; a phase with one object to write writes it without a
 * dry run, and dry-runs it only when the write fails, to report a refusal as the preflight would
 * (decision 0161). Absent, an object is created by a server-side apply (decision 0125), read
 * again just before when dry runs came between, so that one that appeared meanwhile is not
 * taken over; present, decideObject says whether it is applied (server-side, forced, with the
 * live resourceVersion as precondition), adopted, refused (collision) or left to a newer
 * revision (progressed). Errors of a phase's objects are collected and thrown together after
 * the phase.
 */
import { CollisionProtection, type ClusterObjectSet, type ProgressionProbe } from '../../shared/api/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import { ApiError, isNoKindMatch, isNotFound, type KubeClient, type KubeObject, type OwnerReference } from '../../shared/kube/index.ts';
import {
  OBJECT_SET_FIELD_MANAGER,
  controlSituation,
  controllerReference,
  decideObject,
  decideTeardown,
  desiredManifest,
  desiredObject,
  keptForPackageOf,
  objectRevision,
  REVISION_ANNOTATION,
  type ObjectAction,
} from './ownership.ts';
import { upgradeManagedFieldsPatch } from './managed-fields.ts';
import type { AppliedObjects } from './applied.ts';
import { progressProbe, type ProbeResult } from './probes.ts';
import { systemObjectReason, systemObjectRefusal } from './preflight.ts';
import type { LoadedPhase } from './sources.ts';
import {
  compactViolations,
  metadataMessages,
  objectRef,
  phaseNameMessage,
  phaseViolationText,
  revisionViolationText,
  revisionViolations,
  type ObjectViolation,
} from './validation.ts';

/** What the engine did with one object, and its probe result on the object as last seen. */
interface ObjectOutcome {
  object: KubeObject;
  action: ObjectAction | 'created';
  probe: ProbeResult;
  /** The controller a collision is with (none: an object without controller). */
  conflictingOwner?: OwnerReference;
  /** A collision because the live object belongs to the system (preflight.ts): why. */
  refusal?: string;
}

/** One phase that was acted on. */
interface PhaseOutcome {
  name: string;
  objects: ObjectOutcome[];
  /** Its preflight failed (PhaseValidationError text): nothing of it was written. */
  validation?: string;
}

/** A phase is complete when no object collided and every one passed its probe. */
export function phaseComplete(p: PhaseOutcome): boolean {
  return p.validation === undefined && p.objects.every((o) => o.action !== 'collision' && o.probe.status === 'True');
}

/** The outcome of a rollout: the phases acted on, in order, up to the first incomplete one. */
interface RolloutOutcome {
  /** The revision's static preflight failed (RevisionValidationError text): nothing was written. */
  validation?: string;
  phases: PhaseOutcome[];
  /** Every phase was acted on and is complete. */
  complete: boolean;
  /**
   * Still moving between revisions (boxcutter's InTransition): a phase not acted on yet, or one
   * with a collision or an object a newer revision holds (unless all of its objects are).
   */
  inTransition: boolean;
}

/** What a rollout works on. */
interface RolloutInput {
  cos: ClusterObjectSet;
  phases: readonly LoadedPhase[];
  probes: readonly ProgressionProbe[];
  /** Uids of the other active revisions of the same extension. */
  siblings: ReadonlySet<string>;
  signal?: AbortSignal;
  /** What earlier reconciles applied (applied.ts): an apply that could change nothing is not sent. None: every apply is sent. */
  applied?: AppliedObjects;
}

function refOf(obj: KubeObject): { apiVersion: string; kind: string; name: string; namespace?: string } {
  const ns = obj.metadata.namespace;
  return { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name ?? '', ...(ns === undefined || ns === '' ? {} : { namespace: ns }) };
}

function withSignal(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal === undefined ? {} : { signal };
}

async function getOrUndefined(client: KubeClient, obj: KubeObject, signal?: AbortSignal): Promise<KubeObject | undefined> {
  try {
    return await client.get(refOf(obj), withSignal(signal));
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw new Error(`getting object: ${errorMessage(err)}`, { cause: err });
  }
}

/**
 * Moves what our create wrote to our apply entry (managed-fields.ts); resolves with the object's
 * resourceVersion afterwards.
 */
async function migrateToApply(client: KubeClient, obj: KubeObject, signal?: AbortSignal): Promise<string | undefined> {
  const patch = upgradeManagedFieldsPatch(obj.metadata.managedFields, OBJECT_SET_FIELD_MANAGER, obj.metadata.resourceVersion ?? '');
  if (patch === undefined) return obj.metadata.resourceVersion;
  try {
    const patched = await client.patch(refOf(obj), patch, 'json', withSignal(signal));
    return patched.metadata.resourceVersion;
  } catch (err) {
    throw new Error(`update field managers: ${errorMessage(err)}`, { cause: err });
  }
}

/**
 * One object judged on its live copy: `done` when nothing is to be written (a collision, an
 * object a newer revision holds, or ours as our last apply of this very object left it), else
 * the write to send once the phase's preflight passed.
 */
type JudgedObject = { done: ObjectOutcome } | { write: (o: { readAgain: boolean }) => Promise<ObjectOutcome> };

async function judgeObject(client: KubeClient, input: RolloutInput, manifest: KubeObject, protection: CollisionProtection): Promise<JudgedObject> {
  const { cos, probes, signal } = input;
  // What was applied is remembered per revision: one without a uid (never stored) remembers nothing.
  const memory = cos.metadata.uid === undefined ? undefined : input.applied;
  const owner = controllerReference(cos);
  const revision = cos.spec.revision;
  const actual = await getOrUndefined(client, manifest, signal);
  if (actual === undefined) {
    // Created by a server-side apply, not a POST (decision 0125): a least-privilege installer may
    // create exactly the names its bundle has (RBAC resourceNames), which the API server checks
    // for an apply that creates and never for a POST. The apply's manager then owns every field.
    const desired = desiredObject(cos, manifest);
    return {
      write: async ({ readAgain }) => {
        // Read again just before when the phase's dry runs came between: a forced apply would take
        // over an object that appeared since the read, past collision protection. One that
        // appeared is judged at the next reconcile.
        if (readAgain && (await getOrUndefined(client, manifest, signal)) !== undefined) {
          throw new Error('creating resource: it was created by someone else since it was read; judged again at the next reconcile');
        }
        let created: KubeObject;
        try {
          created = await client.apply(desired, { fieldManager: OBJECT_SET_FIELD_MANAGER, force: true, ...withSignal(signal) });
        } catch (err) {
          throw new Error(`creating resource: ${errorMessage(err)}`, { cause: err });
        }
        memory?.record(cos.metadata.uid ?? '', desired, created);
        return { object: created, action: 'created', probe: progressProbe(probes, created) };
      },
    };
  }
  const { situation, controller } = controlSituation(actual, owner, input.siblings);
  // The manifests were checked before (preflight.ts); the live object may carry what marks it the system's.
  const system = situation === 'IsController' ? undefined : systemObjectReason(actual);
  if (system !== undefined)
    return { done: { object: actual, action: 'collision', probe: progressProbe(probes, actual), refusal: systemObjectRefusal(actual, system) } };
  // A CRD kept for this revision's package was released on purpose, not just orphaned (ownership.ts keptForPackageOf).
  const wroteBefore = actual.metadata.annotations?.[REVISION_ANNOTATION] !== undefined && !keptForPackageOf(actual, cos);
  const action = decideObject(situation, protection, objectRevision(actual), revision, wroteBefore);
  if (action === 'collision') {
    return {
      done: { object: actual, action, probe: progressProbe(probes, actual), ...(controller === undefined ? {} : { conflictingOwner: controller }) },
    };
  }
  if (action === 'progressed') return { done: { object: actual, action, probe: progressProbe(probes, actual) } };
  const desired = desiredObject(cos, manifest, action === 'adopt' ? actual : undefined);
  // Ours and untouched since our apply of this very object: applying it again would change nothing.
  if (action === 'apply' && memory?.unchanged(cos.metadata.uid ?? '', desired, actual) === true) {
    return { done: { object: actual, action, probe: progressProbe(probes, actual) } };
  }
  return {
    write: async () => {
      // The live resourceVersion makes the apply conditional: nothing changed since it was judged.
      const resourceVersion = await migrateToApply(client, actual, signal);
      if (resourceVersion !== undefined) desired.metadata.resourceVersion = resourceVersion;
      let applied: KubeObject;
      try {
        applied = await client.apply(desired, { fieldManager: OBJECT_SET_FIELD_MANAGER, force: true, ...withSignal(signal) });
      } catch (err) {
        throw new Error(`${action === 'adopt' ? 'patching (owner change)' : 'patching'}: ${errorMessage(err)}`, { cause: err });
      }
      memory?.record(cos.metadata.uid ?? '', desired, applied);
      return { object: applied, action, probe: progressProbe(probes, applied) };
    },
  };
}

/** API error reasons a dry run reports as a violation of the object (others are failures to retry). */
const DRY_RUN_REFUSALS = new Set([
  'Unauthorized',
  'Forbidden',
  'AlreadyExists',
  'Conflict',
  'Invalid',
  'BadRequest',
  'MethodNotAllowed',
  'RequestEntityTooLarge',
  'UnsupportedMediaType',
  'NotAcceptable',
  'NotFound',
]);

/** What the API server says of `obj` on a dry run (an apply, or a create where the apply finds nothing to patch); undefined when it accepts it. */
async function dryRunRefusal(client: KubeClient, obj: KubeObject, signal?: AbortSignal): Promise<string | undefined> {
  try {
    try {
      await client.apply(obj, { fieldManager: 'dummy', force: true, dryRun: true, ...withSignal(signal) });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await client.create(obj, { dryRun: true, ...withSignal(signal) });
    }
    return undefined;
  } catch (err) {
    if (err instanceof ApiError && DRY_RUN_REFUSALS.has(err.reason)) return err.message;
    // An apply the server cannot even type (a field of the wrong type) comes without a reason.
    if (err instanceof ApiError && err.reason === '' && err.message.includes('failed to create typed patch object')) return err.message;
    throw err;
  }
}

/**
 * The preflight of one phase (boxcutter's PhaseValidator): its name, its objects' metadata and a
 * dry run of each object `toDryRun` holds; the violation text or undefined. An object this
 * reconcile writes nothing to is not dry-run: nothing of it is sent (issue 74: every object of
 * every reconciled phase was dry-run at every reconcile, one PATCH each, whether or not anything
 * was to be written).
 */
async function phaseViolation(
  client: KubeClient,
  input: RolloutInput,
  phase: LoadedPhase,
  toDryRun: ReadonlySet<KubeObject>,
): Promise<string | undefined> {
  const objects: ObjectViolation[] = [];
  const errors: string[] = [];
  for (const { manifest } of phase.objects) {
    const candidate = desiredManifest(input.cos, manifest);
    const messages = metadataMessages(candidate);
    try {
      const refusal = toDryRun.has(manifest) ? await dryRunRefusal(client, candidate, input.signal) : undefined;
      if (refusal !== undefined) messages.push(refusal);
    } catch (err) {
      if (input.signal?.aborted === true) throw err;
      errors.push(errorMessage(err));
    }
    if (messages.length > 0) objects.push({ ref: objectRef(manifest), messages });
  }
  if (errors.length > 0) throw new Error(`validating: ${errors.join('\n')}`);
  const nameMessage = phaseNameMessage(phase.name);
  if (nameMessage === undefined && objects.length === 0) return undefined;
  return phaseViolationText({ phase: phase.name, ...(nameMessage === undefined ? {} : { nameMessage }), objects: compactViolations(objects) });
}

/**
 * One phase: each object read and judged, then the preflight of what is to be written, then the
 * writes in the phase's order; errors of its objects are thrown together after the phase. With
 * one object to write (and every read answered), the preflight checks what it checks without a
 * request (names, metadata) and the object is written at once: its write alone decides, as a
 * dry run of it would, whether anything of the phase is written. Only when that write fails is
 * the object dry-run, so that a refusal reads as the preflight's (a phase validation, nothing
 * written) and any other failure as the write's, as when the dry run came first (decision 0161).
 */
async function reconcilePhase(client: KubeClient, input: RolloutInput, phase: LoadedPhase): Promise<PhaseOutcome> {
  const outcome: PhaseOutcome = { name: phase.name, objects: [] };
  const errors: string[] = [];
  const judged: { manifest: KubeObject; judged: JudgedObject }[] = [];
  // Dry-run: what is to be written, and what could not be judged (its read failed: the dry run
  // says first what is wrong with it, as it did when every object was dry-run before any read).
  const toDryRun = new Set<KubeObject>();
  for (const { manifest, protection } of phase.objects) {
    input.signal?.throwIfAborted();
    try {
      const j = await judgeObject(client, input, manifest, protection);
      judged.push({ manifest, judged: j });
      if ('write' in j) toDryRun.add(manifest);
    } catch (err) {
      if (input.signal?.aborted === true) throw err;
      errors.push(`reconciling ${objectRef(manifest)}: ${errorMessage(err)}`);
      toDryRun.add(manifest);
    }
  }
  const single = errors.length === 0 && toDryRun.size === 1;
  const validation = await phaseViolation(client, input, phase, single ? new Set() : toDryRun);
  if (validation !== undefined) return { ...outcome, validation };
  for (const { manifest, judged: j } of judged) {
    if ('done' in j) {
      outcome.objects.push(j.done);
      continue;
    }
    input.signal?.throwIfAborted();
    try {
      outcome.objects.push(await j.write({ readAgain: !single }));
    } catch (err) {
      if (input.signal?.aborted === true) throw err;
      const refused = single ? await refusalAfter(client, input, phase, toDryRun) : undefined;
      if (refused !== undefined) return { name: phase.name, objects: [], validation: refused };
      errors.push(`reconciling ${objectRef(manifest)}: ${errorMessage(err)}`);
    }
  }
  if (errors.length > 0) throw new Error(errors.join('\n'));
  return outcome;
}

/**
 * The preflight's verdict on a lone write that failed: its refusal text, or undefined when the dry
 * run accepts it or cannot say (its own failure): the write's error is then the one reported.
 */
async function refusalAfter(
  client: KubeClient,
  input: RolloutInput,
  phase: LoadedPhase,
  toDryRun: ReadonlySet<KubeObject>,
): Promise<string | undefined> {
  try {
    return await phaseViolation(client, input, phase, toDryRun);
  } catch (err) {
    if (input.signal?.aborted === true) throw err;
    return undefined;
  }
}

function phaseInTransition(p: PhaseOutcome): boolean {
  if (p.validation !== undefined) return false;
  const progressed = p.objects.filter((o) => o.action === 'progressed').length;
  if (progressed === p.objects.length) return false;
  return p.objects.some((o) => o.action === 'collision' || o.action === 'progressed');
}

/** Rolls the revision out; throws (after acting on the objects it could) when writes failed. */
export async function rollOut(client: KubeClient, input: RolloutInput): Promise<RolloutOutcome> {
  const violations = revisionViolations(
    input.phases.map((p) => ({ name: p.name, objects: p.objects.map((o) => desiredManifest(input.cos, o.manifest)) })),
  );
  if (violations.length > 0) {
    const validation = revisionViolationText(input.cos.metadata.name, input.cos.spec.revision, violations);
    return { validation, phases: [], complete: false, inTransition: false };
  }
  const phases: PhaseOutcome[] = [];
  for (const phase of input.phases) {
    let outcome: PhaseOutcome;
    try {
      outcome = await reconcilePhase(client, input, phase);
    } catch (err) {
      if (input.signal?.aborted === true) throw err;
      throw new Error(`reconciling object: ${errorMessage(err)}`, { cause: err });
    }
    phases.push(outcome);
    if (!phaseComplete(outcome)) break;
  }
  const complete = phases.length === input.phases.length && phases.every(phaseComplete);
  const inTransition = phases.some(phaseInTransition) || phases.length < input.phases.length;
  return { phases, complete, inTransition };
}

/**
 * Tears an archived revision down, phases in reverse: each object still its own is deleted
 * (conditionally on its uid and resourceVersion), each a later revision took over loses this
 * revision from its owners, conditionally on its resourceVersion. Objects of the system
 * (preflight.ts) are neither deleted nor released. Resolves true once every object is gone or
 * released; false while deletions are pending (finalizers), stopping at the first phase that is
 * not done.
 */
export async function tearDown(client: KubeClient, cos: ClusterObjectSet, phases: readonly LoadedPhase[], signal?: AbortSignal): Promise<boolean> {
  const owner = controllerReference(cos);
  for (const phase of [...phases].reverse()) {
    let waiting = false;
    for (const { manifest } of phase.objects) {
      signal?.throwIfAborted();
      let actual: KubeObject;
      try {
        actual = await client.get(refOf(manifest), withSignal(signal));
      } catch (err) {
        // Gone, or its kind is no longer served (gone with it).
        if (isNotFound(err) || isNoKindMatch(err)) continue;
        throw new Error(`teardown phase: teardown ${objectRef(manifest)}: getting object before deletion: ${errorMessage(err)}`, { cause: err });
      }
      if (systemObjectReason(actual) !== undefined) continue;
      const action = decideTeardown(actual, owner, cos.spec.revision);
      if (action !== 'delete') {
        if (action.release !== undefined) {
          const metadata = { ownerReferences: action.release, resourceVersion: actual.metadata.resourceVersion ?? '' };
          await client.patch(refOf(actual), { metadata }, 'merge', withSignal(signal));
        }
        continue;
      }
      try {
        const preconditions = { uid: actual.metadata.uid ?? '', resourceVersion: actual.metadata.resourceVersion ?? '' };
        await client.delete(refOf(actual), { preconditions, ...withSignal(signal) });
      } catch (err) {
        if (isNotFound(err)) continue;
        throw new Error(`teardown phase: teardown ${objectRef(manifest)}: deleting object: ${errorMessage(err)}`, { cause: err });
      }
      // Gone only once a read says so (finalizers may hold it).
      waiting = true;
    }
    if (waiting) return false;
  }
  return true;
}
