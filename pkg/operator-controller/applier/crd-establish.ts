/**
 * Waiting for a CRD the apply wrote to become Established, before anything else of the release
 * is applied (its custom resources need the kind served).
 *
 * kube-apiserver establishes a CRD when its CRD handler sees an update event that leaves
 * NamesAccepted True and Established not True: only then is the CRD queued for the
 * establishing controller (apiextensions-apiserver, customresource_handler.go); an add event
 * is not. When the names were accepted while an API server was starting, its handler's
 * informer first lists the CRD already accepted (an add) and nothing queues it before the
 * informer's 5-minute resync: the CRD stays `Established=False` ("the initial names have been
 * accepted") that long, and so would every install waiting on it. So a CRD that has had its
 * names accepted for `nudgeAfterMs` (10 s; establishing takes 0 s on one API server and 5 s on
 * several) without being Established is written once more, with a change that leaves nothing
 * behind: an annotation set and then removed, two update events. The CRD is one this apply has
 * just written, so ours to write (decision 0049).
 */
import { FIELD_MANAGER } from '../../shared/api/index.ts';
import { sleepUnlessAborted, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import { ApplyError } from './apply-error.ts';
import { describeObject, refOf } from './objects.ts';

/** The annotation the nudge sets and removes at once; never left on a CRD. */
export const ESTABLISH_NUDGE_ANNOTATION = 'olm.operatorframework.io/establish-requested';

/** A CRD's status as the wait reads it. */
export interface CrdStatus {
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

/** Options of {@link waitEstablished}. */
export interface EstablishOptions {
  /** How long a CRD may take to become Established (default 60 s). */
  crdEstablishTimeoutMs?: number;
  /** How long a CRD with accepted names may wait before it is nudged (default 10 s). */
  crdEstablishNudgeAfterMs?: number;
  /** Poll period while waiting (default 50 ms). */
  pollMs?: number;
  signal?: AbortSignal;
}

/** What waiting for a CRD calls of a client: reading it and nudging it with annotation patches. */
export type EstablishClient = Pick<KubeClient, 'get' | 'patch'>;

/**
 * Polls the CRD until its Established condition is True; fails early when its names are refused.
 * `applied` (the apply's answer) is the first reading: a CRD that was established before,
 * the common case on every reconcile after the first, needs no further request.
 */
export async function waitEstablished(
  client: EstablishClient,
  crd: KubeObject,
  applied: CrdStatus | undefined,
  options: EstablishOptions,
): Promise<void> {
  const timeoutMs = options.crdEstablishTimeoutMs ?? 60_000;
  const nudgeAfterMs = options.crdEstablishNudgeAfterMs ?? 10_000;
  const started = Date.now();
  const what = describeObject(crd);
  let accepted: number | undefined; // when its names were first seen accepted
  let nudged = false;
  let last = '';
  for (let reading: CrdStatus | undefined = applied; ; reading = undefined) {
    const live = reading ?? (await client.get<KubeObject & CrdStatus>(refOf(crd), { signal: options.signal }));
    const conditions = live.status?.conditions ?? [];
    if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) return;
    const names = conditions.find((c) => c.type === 'NamesAccepted');
    if (names?.status === 'False') throw new ApplyError(what, `error applying ${what}: names not accepted: ${names.message ?? names.reason ?? ''}`);
    last = conditions.find((c) => c.type === 'Established')?.message ?? last;
    const now = Date.now();
    if (now - started > timeoutMs) {
      throw new ApplyError(what, `error applying ${what}: not Established after ${Math.round(timeoutMs / 1000)} s${last === '' ? '' : `: ${last}`}`);
    }
    if (names?.status === 'True') accepted ??= now;
    if (!nudged && accepted !== undefined && now - accepted >= nudgeAfterMs) {
      nudged = true;
      await nudge(client, crd, options.signal);
    }
    // Not established in the apply's answer: read the live object at once, then poll.
    if (reading !== undefined) continue;
    await sleepUnlessAborted(options.pollMs ?? 50, options.signal ?? new AbortController().signal);
    options.signal?.throwIfAborted();
  }
}

/**
 * Two updates of the CRD's metadata, each an update event for the API server's CRD handler.
 * Best effort: when a write fails the wait goes on to its timeout as before (the annotation, if
 * the second write failed, is removed by the next reconcile's nudge or stays harmless).
 */
async function nudge(client: EstablishClient, crd: KubeObject, signal: AbortSignal | undefined): Promise<void> {
  const ref = refOf(crd);
  const o = { fieldManager: FIELD_MANAGER, ...(signal === undefined ? {} : { signal }) };
  try {
    await client.patch(ref, { metadata: { annotations: { [ESTABLISH_NUDGE_ANNOTATION]: new Date().toISOString() } } }, 'merge', o);
    await client.patch(ref, { metadata: { annotations: { [ESTABLISH_NUDGE_ANNOTATION]: null } } }, 'merge', o);
  } catch {
    signal?.throwIfAborted();
  }
}
