import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FIELD_MANAGER } from '../../shared/api/index.ts';
import { ApiError, type KubeObject } from '../../shared/kube/index.ts';
import { ApplyError } from './apply-error.ts';
import { ESTABLISH_NUDGE_ANNOTATION, waitEstablished, type CrdStatus, type EstablishClient } from './crd-establish.ts';

const CRD: KubeObject = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' } };
type Conditions = NonNullable<NonNullable<CrdStatus['status']>['conditions']>;
const ACCEPTED: Conditions = [
  { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts' },
  { type: 'Established', status: 'False', reason: 'InstallPending', message: 'the initial names have been accepted' },
];
const PENDING: Conditions = [{ type: 'NamesAccepted', status: 'Unknown' }];
const ESTABLISHED: Conditions = [
  { type: 'NamesAccepted', status: 'True' },
  { type: 'Established', status: 'True' },
];

/**
 * A CRD as kube-apiserver shows it: `conditions` until an update event reaches its CRD handler
 * (`establishOnUpdate`), then Established. Records reads and patches.
 */
function apiServer(conditions: Conditions, o: { establishOnUpdate?: boolean; refusePatch?: boolean } = {}) {
  const calls: string[] = [];
  const patches: { body: unknown; type: string; options: unknown }[] = [];
  let current = conditions;
  const client: EstablishClient = {
    get: <T extends KubeObject>() => {
      calls.push('get');
      const live: KubeObject = { ...CRD, status: { conditions: current } };
      return Promise.resolve(live as T);
    },
    patch: <T extends KubeObject>(_ref: unknown, body: unknown, type: string, options: unknown) => {
      calls.push('patch');
      if (o.refusePatch === true) return Promise.reject(new ApiError(403, 'Forbidden', 'patch is forbidden'));
      patches.push({ body, type, options });
      if (o.establishOnUpdate === true) current = ESTABLISHED;
      return Promise.resolve(CRD as T);
    },
  };
  return { client, calls, patches };
}

/** Waits (fake time) with a 100 ms nudge delay and a 1 s timeout; resolves with what it threw. */
async function timedOut(client: EstablishClient): Promise<unknown> {
  const failed = waitEstablished(client, CRD, undefined, { pollMs: 20, crdEstablishNudgeAfterMs: 100, crdEstablishTimeoutMs: 1_000 }).catch(
    (err: unknown) => err,
  );
  await vi.advanceTimersByTimeAsync(1_100);
  return failed;
}

describe('waitEstablished', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] }));
  afterEach(() => vi.useRealTimers());

  it('returns at once when the apply answer shows the CRD Established', async () => {
    const { client, calls } = apiServer(ACCEPTED);
    await waitEstablished(client, CRD, { status: { conditions: ESTABLISHED } }, {});
    expect(calls).toEqual([]);
  });

  it('writes a CRD whose names were accepted but that was not Established after the nudge delay, once, leaving no annotation', async () => {
    const { client, calls, patches } = apiServer(ACCEPTED, { establishOnUpdate: true });
    const done = waitEstablished(client, CRD, undefined, { pollMs: 20, crdEstablishNudgeAfterMs: 1_000, crdEstablishTimeoutMs: 60_000 });
    await vi.advanceTimersByTimeAsync(980);
    expect(calls).not.toContain('patch');
    await vi.advanceTimersByTimeAsync(100);
    await done;
    expect(patches).toEqual([
      {
        body: { metadata: { annotations: { [ESTABLISH_NUDGE_ANNOTATION]: expect.any(String) } } },
        type: 'merge',
        options: { fieldManager: FIELD_MANAGER },
      },
      { body: { metadata: { annotations: { [ESTABLISH_NUDGE_ANNOTATION]: null } } }, type: 'merge', options: { fieldManager: FIELD_MANAGER } },
    ]);
    expect(calls.filter((c) => c === 'patch')).toHaveLength(2);
  });

  it('nudges once only, then waits out the timeout with the last Established message', async () => {
    const { client, calls } = apiServer(ACCEPTED);
    const err = await timedOut(client);
    expect(err).toBeInstanceOf(ApplyError);
    expect((err as ApplyError).message).toBe(
      'error applying CustomResourceDefinition widgets.example.com: not Established after 1 s: the initial names have been accepted',
    );
    expect(calls.filter((c) => c === 'patch')).toHaveLength(2);
  });

  it('does not write a CRD whose names are not accepted yet', async () => {
    const { client, calls } = apiServer(PENDING);
    expect(await timedOut(client)).toBeInstanceOf(ApplyError);
    expect(calls).not.toContain('patch');
  });

  it('keeps waiting when the nudge is refused, failing as without it', async () => {
    const { client, calls } = apiServer(ACCEPTED, { refusePatch: true });
    const err = await timedOut(client);
    expect((err as ApplyError).message).toMatch(/not Established after 1 s/);
    expect(calls.filter((c) => c === 'patch')).toHaveLength(1);
    expect(calls.filter((c) => c === 'get').length).toBeGreaterThan(10);
  });

  it('fails at once when the names are refused', async () => {
    const { client } = apiServer([
      { type: 'NamesAccepted', status: 'False', reason: 'MultipleNameConflict', message: '"widgets" is already in use' },
    ]);
    await expect(waitEstablished(client, CRD, undefined, { pollMs: 20 })).rejects.toThrow(
      'error applying CustomResourceDefinition widgets.example.com: names not accepted: "widgets" is already in use',
    );
  });
});
