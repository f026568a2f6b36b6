import { describe, expect, it } from 'vitest';
import { ApiError, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import { OLM_OPERATOR, setCondition } from './openshift.ts';

const CONDITION = { type: 'InstalledOLMOperatorsUpgradeable', status: 'False', reason: 'IncompatibleOperatorsInstalled', message: 'held' } as const;

/** An OLM object whose status writes are refused with `refusals` in turn, then stored. */
function olm(refusals: Error[]): { client: Pick<KubeClient, 'get' | 'updateStatus'>; gets: () => number; stored: () => KubeObject | undefined } {
  let gets = 0;
  let stored: KubeObject | undefined;
  const object: KubeObject = { ...OLM_OPERATOR, metadata: { name: OLM_OPERATOR.name, resourceVersion: '1' }, status: {} };
  return {
    client: {
      get: async <T extends KubeObject>() => {
        gets++;
        return structuredClone(object) as T;
      },
      updateStatus: async <T extends KubeObject>(obj: KubeObject) => {
        const refusal = refusals.shift();
        if (refusal !== undefined) throw refusal;
        stored = obj;
        return obj as T;
      },
    },
    gets: () => gets,
    stored: () => stored,
  };
}

const conflict = (): ApiError => new ApiError(409, 'Conflict', 'the object has been modified');

describe('setCondition', () => {
  it('reads and writes again when the status write meets a conflict', async () => {
    const cluster = olm([conflict(), conflict()]);
    const set = await setCondition(cluster.client, OLM_OPERATOR, CONDITION, { fieldManager: 'test', now: () => new Date(0) });
    expect(set.outcome).toBe('updated');
    expect(cluster.gets()).toBe(3);
    expect((cluster.stored()?.status as { conditions: unknown[] }).conditions).toEqual([expect.objectContaining(CONDITION)]);
  });

  it('gives up after five conflicts, and at once on another error', async () => {
    const stuck = olm([conflict(), conflict(), conflict(), conflict(), conflict()]);
    await expect(setCondition(stuck.client, OLM_OPERATOR, CONDITION, { fieldManager: 'test' })).rejects.toThrow('the object has been modified');
    expect(stuck.gets()).toBe(5);
    const refused = olm([new ApiError(403, 'Forbidden', 'no')]);
    await expect(setCondition(refused.client, OLM_OPERATOR, CONDITION, { fieldManager: 'test' })).rejects.toThrow('no');
    expect(refused.gets()).toBe(1);
  });
});
