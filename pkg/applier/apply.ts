/**
 * Server-side apply of a release's objects (decision 0003): one PATCH
 * `application/apply-patch+yaml` per object with operator-controller's field manager and
 * `force=true`, in the order of apply-order.ts, waiting for CRDs to be Established before
 * anything else is applied. Deletion of objects a release no longer contains is here too.
 */
import { FIELD_MANAGER } from '../api/index.ts';
import { errorMessage } from '../errors/index.ts';
import { isNotFound, sleepUnlessAborted, type KubeClient, type KubeObject } from '../kube/index.ts';
import { applyPhases } from './apply-order.ts';
import { describeObject, isCrd, refOf } from './objects.ts';

/** Options of `applyObjects`. */
export interface ApplyObjectsOptions {
  /** How long a CRD may take to become Established (default 60 s). */
  crdEstablishTimeoutMs?: number;
  /** Poll period while waiting for CRDs (default 50 ms). */
  pollMs?: number;
  /** Called after each object is applied (progress, tests). */
  onApplied?: (obj: KubeObject) => void;
  /** Awaited before each object is written (the crash tests' pause hook; none in production). */
  beforeWrite?: (obj: KubeObject) => Promise<void>;
  signal?: AbortSignal;
}

/** An object the API server refused, or a CRD that did not become Established. */
export class ApplyError extends Error {
  /** `Kind namespace/name` of the object. */
  readonly object: string;

  constructor(object: string, message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'ApplyError';
    this.object = object;
  }
}

interface CrdStatus {
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

/**
 * Applies `objects` one at a time in apply order; stops at the first refusal and throws
 * ApplyError `error applying <Kind ns/name>: <API server message>` (objects applied before it
 * stay, as upstream leaves a failed release's objects). Aborting `signal` stops between objects.
 */
export async function applyObjects(client: KubeClient, objects: readonly KubeObject[], options: ApplyObjectsOptions = {}): Promise<void> {
  const signal = options.signal;
  for (const [index, phase] of applyPhases(objects).entries()) {
    const answers: Array<KubeObject & CrdStatus> = [];
    for (const obj of phase) {
      signal?.throwIfAborted();
      await options.beforeWrite?.(obj);
      try {
        answers.push(
          await client.apply<KubeObject & CrdStatus>(obj, { fieldManager: FIELD_MANAGER, force: true, ...(signal === undefined ? {} : { signal }) }),
        );
      } catch (err) {
        throw new ApplyError(describeObject(obj), `error applying ${describeObject(obj)}: ${errorMessage(err)}`, err);
      }
      options.onApplied?.(obj);
    }
    if (index === 0) for (const [i, crd] of phase.entries()) await waitEstablished(client, crd, answers[i], options);
  }
}

/**
 * Polls the CRD until its Established condition is True; fails early when its names are refused.
 * `applied` (the apply's answer) is the first reading: a CRD that was established before,
 * the common case on every reconcile after the first, needs no further request.
 */
async function waitEstablished(
  client: KubeClient,
  crd: KubeObject,
  applied: (KubeObject & CrdStatus) | undefined,
  options: ApplyObjectsOptions,
): Promise<void> {
  const timeoutMs = options.crdEstablishTimeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  const what = describeObject(crd);
  let last = '';
  for (let reading = applied; ; reading = undefined) {
    const live = reading ?? (await client.get<KubeObject & CrdStatus>(refOf(crd), options.signal === undefined ? {} : { signal: options.signal }));
    const conditions = live.status?.conditions ?? [];
    if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) return;
    const names = conditions.find((c) => c.type === 'NamesAccepted' && c.status === 'False');
    if (names !== undefined) throw new ApplyError(what, `error applying ${what}: names not accepted: ${names.message ?? names.reason ?? ''}`);
    last = conditions.find((c) => c.type === 'Established')?.message ?? last;
    if (Date.now() > deadline) {
      throw new ApplyError(what, `error applying ${what}: not Established after ${Math.round(timeoutMs / 1000)} s${last === '' ? '' : `: ${last}`}`);
    }
    // Not established in the apply's answer: read the live object at once, then poll.
    if (reading !== undefined) continue;
    await sleepUnlessAborted(options.pollMs ?? 50, options.signal ?? new AbortController().signal);
    options.signal?.throwIfAborted();
  }
}

/** Outcome of `deleteObjects`. */
export interface DeleteOutcome {
  /** `Kind ns/name` of the objects deleted (or already gone). */
  deleted: string[];
  /** `Kind name` of the CustomResourceDefinitions left in place on purpose. */
  kept: string[];
}

/**
 * Deletes `objects` in reverse order, except CustomResourceDefinitions, which are kept with
 * their custom resources (README difference 3). An object already gone counts as deleted.
 * Throws `error deleting <Kind ns/name>: <message>` at the first refusal.
 */
export async function deleteObjects(
  client: KubeClient,
  objects: readonly KubeObject[],
  options: Pick<ApplyObjectsOptions, 'beforeWrite' | 'signal'> = {},
): Promise<DeleteOutcome> {
  const { signal } = options;
  const outcome: DeleteOutcome = { deleted: [], kept: [] };
  for (const obj of [...objects].reverse()) {
    if (isCrd(obj)) {
      outcome.kept.push(describeObject(obj));
      continue;
    }
    signal?.throwIfAborted();
    await options.beforeWrite?.(obj);
    try {
      await client.delete(refOf(obj), { propagationPolicy: 'Background', ...(signal === undefined ? {} : { signal }) });
    } catch (err) {
      if (!isNotFound(err)) throw new ApplyError(describeObject(obj), `error deleting ${describeObject(obj)}: ${errorMessage(err)}`, err);
    }
    outcome.deleted.push(describeObject(obj));
  }
  outcome.kept.reverse();
  return outcome;
}
