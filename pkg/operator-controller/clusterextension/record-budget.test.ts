// The release records' memory budget through whole reconciles (decision 0098): the installed
// step's share is given back however the reconcile ends, and two reconciles, each taking the
// records' share and then the bundle's, cannot wait on each other across the two budgets.
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { fakeSecrets } from '../../../test/support/fake-secrets.ts';
import { recordingDrift } from '../../../test/support/extension-ports.ts';
import { extensionState } from '../../../test/support/extension-state.ts';
import { runSteps, type Step } from '../../shared/controller/index.ts';
import { TerminalError } from '../../shared/errors/index.ts';
import type { RegistryV1Bundle } from '../bundle/index.ts';
import { createReleaseStore, releaseJson, type Release, type ReleaseStore, Manifest } from '../release/index.ts';
import { BundleBudget, type BundleLease } from '../bundlepull/index.ts';
import { BundlePulls } from '../bundlepull/index.ts';
import type { FetchedBundle } from '../bundlepull/index.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { installedStep } from './steps.ts';

const deployed = (extension: string, revision = 1): Release => ({
  extension,
  extensionUID: 'u',
  revision,
  status: 'deployed',
  bundle: { package: 'p', name: 'p.v1.0.0', version: '1.0.0', image: 'registry.example/p-bundle:v1.0.0' },
  manifest: Manifest.ofObjects([
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p', namespace: 'ns' }, data: { blob: 'x'.repeat(50_000) } },
  ]),
  properties: [],
  description: 'Install complete',
});

/** A store over fake Secrets holding one deployed revision of each of `extensions`. */
async function storeWith(...extensions: string[]): Promise<ReleaseStore> {
  const store = createReleaseStore({ client: fakeSecrets(new Map()).client, namespace: 'olmv1-system' });
  for (const e of extensions) await store.create(deployed(e));
  return store;
}

const size = (e: string) => Buffer.byteLength(releaseJson(deployed(e)));

/** The steps of a reconcile, then, as the StepReconciler does when it ends, what it held given back. */
function run(steps: Step<ExtensionState>[], state: ExtensionState): Promise<unknown> {
  return runSteps(steps, state).finally(() => state.held.dispose());
}

/** A reconcile: installed, then `middle`. */
function reconcile(store: ReleaseStore, records: BundleBudget, middle: Step<ExtensionState>[], name = 'ext') {
  const state = extensionState({ name });
  return { state, done: run([installedStep({ releases: store, drift: recordingDrift([]), records: { budget: records } }), ...middle], state) };
}

const step = (name: string, run: Step<ExtensionState>['run']): Step<ExtensionState> => ({ name, run });

describe('the records budget over a reconcile', () => {
  it.each([
    ['ends with success', step('ok', () => undefined), 'ok'],
    ['ends with a result (requeue)', step('requeue', () => ({ requeue: true })), 'ok'],
    ['ends with an error', step('boom', () => Promise.reject(new Error('apply failed'))), 'apply failed'],
    ['ends with a terminal error', step('terminal', () => Promise.reject(new TerminalError('invalid bundle'))), 'invalid bundle'],
  ])('is held through the reconcile and given back when it %s', async (_how, middle, outcome) => {
    const store = await storeWith('ext');
    const records = new BundleBudget(10 * size('ext'));
    let heldDuring = 0;
    const watch = step('watch', () => {
      heldDuring = records.held;
      return undefined;
    });
    const { done } = reconcile(store, records, [watch, middle]);
    const ended = await done.then(
      () => 'ok',
      (e: unknown) => (e as Error).message,
    );
    expect(ended).toBe(outcome);
    expect(heldDuring).toBe(size('ext'));
    expect(records.held).toBe(0);
  });

  it('is given back when reading the records fails after the admission', async () => {
    const store = await storeWith('ext');
    const failing: ReleaseStore = {
      ...store,
      history: async (name, options) => {
        await store.history(name, options);
        throw new Error('record corrupt');
      },
    };
    const records = new BundleBudget(10 * size('ext'));
    const { state, done } = reconcile(failing, records, []);
    await expect(done).rejects.toThrow('record corrupt');
    expect(state.installed).toBeUndefined();
    expect(state.ce.status?.conditions?.find((c) => c.type === 'Installed')?.message).toContain('record corrupt');
    expect(records.held).toBe(0);
  });

  it('takes nothing from a reconcile whose wait is aborted, and lets the next one through', async () => {
    const store = await storeWith('a', 'b', 'c');
    const records = new BundleBudget(size('a'));
    let release: () => void = () => undefined;
    const holding = step('hold', () => new Promise<undefined>((resolve) => (release = () => resolve(undefined))));
    const first = reconcile(store, records, [holding], 'a');
    await vi.waitFor(() => expect(records.held).toBe(size('a')));
    const abort = new AbortController();
    const second = extensionState({ name: 'b', signal: abort.signal });
    const waiting = run([installedStep({ releases: store, drift: recordingDrift([]), records: { budget: records } })], second);
    const third = reconcile(store, records, [], 'c');
    await vi.waitFor(() => expect(records.waiting).toBe(2));
    abort.abort(new Error('reconcile cancelled'));
    await expect(waiting).rejects.toThrow('reconcile cancelled');
    expect(records.held).toBe(size('a'));
    expect(records.waiting).toBe(1);
    release();
    await first.done;
    await third.done;
    expect(third.state.installed?.extension).toBe('c');
    expect(records.held).toBe(0);
  });
});

describe('the records budget and the bundle budget', () => {
  it('let two reconciles that each need all of both finish, one after the other', async () => {
    const store = await storeWith('a', 'b');
    // Each budget fits one reconcile's share at a time.
    const records = new BundleBudget(size('a'));
    const bundles = new BundleBudget(1_000);
    const order: string[] = [];
    // As the pull step: the bundle's share, held to the end of the reconcile.
    const pull = (name: string) =>
      step('pull', async (state) => {
        order.push(`${name} records`);
        const lease: BundleLease = await bundles.acquire(1_000, state.signal);
        state.held.defer(() => lease.release());
        order.push(`${name} bundle`);
        return undefined;
      });
    const a = reconcile(store, records, [pull('a')], 'a');
    const b = reconcile(store, records, [pull('b')], 'b');
    const finished = Promise.all([a.done, b.done]).then(() => 'finished');
    const stuck = new Promise((resolve) => setTimeout(() => resolve('stuck'), 2_000));
    expect(await Promise.race([finished, stuck])).toBe('finished');
    // The records' share is taken first, so whoever holds a bundle's share already has its records.
    expect(order).toEqual(['a records', 'a bundle', 'b records', 'b bundle']);
    expect(records.held).toBe(0);
    expect(bundles.held).toBe(0);
  });

  it("wait across them only until a finished pull's share nobody takes is given back (claimMs)", async () => {
    // B's pull has finished and holds all of the bundle budget for B's next reconcile; A's
    // reconcile holds all of the records budget and reads its bundle from the cache, within
    // the bundle budget; B's reconcile waits for the records budget at the installed step.
    const store = await storeWith('a', 'b');
    const records = new BundleBudget(size('a'));
    const bundles = new BundleBudget(1_000);
    const fetched = async (digestRef: string, fromCache: boolean): Promise<FetchedBundle> => ({
      bundle: {} as RegistryV1Bundle,
      digestRef,
      fromCache,
      lease: await bundles.acquire(1_000),
    });
    const claimMs = 300;
    const fetches: string[] = [];
    const pulls = new BundlePulls({
      log: pino({ level: 'silent' }),
      fetch: (extension, ref) => {
        fetches.push(extension);
        return fetched(ref, false);
      },
      cached: (extension, ref) => (extension === 'a' ? fetched(ref, true) : Promise.resolve(undefined)),
      enqueue: () => undefined,
      claimMs,
    });
    await pulls.get('b', 'registry.example/b:v1', { waitMs: 0 });
    await pulls.settled();
    expect(bundles.held).toBe(1_000);
    const pull = (ref: string) =>
      step('pull', async (state) => {
        const got = await pulls.get(state.ce.metadata.name, ref, { signal: state.signal });
        if (got.state !== 'done') throw new Error(`pull ${got.state}`);
        const lease = got.fetched.lease;
        if (lease !== undefined) state.held.defer(() => lease.release());
        return undefined;
      });
    const a = reconcile(store, records, [pull('registry.example/a@sha256:aa')], 'a');
    await vi.waitFor(() => expect(records.held).toBe(size('a')));
    const b = reconcile(store, records, [pull('registry.example/b:v1')], 'b');
    const finished = Promise.all([a.done, b.done]).then(() => 'finished');
    const stuck = new Promise((resolve) => setTimeout(() => resolve('stuck'), 5_000));
    expect(await Promise.race([finished, stuck])).toBe('finished');
    // B's share was dropped untaken, so A went on; B then pulled again and finished too.
    expect(fetches).toEqual(['b', 'b']);
    expect(records.held).toBe(0);
    expect(bundles.held).toBe(0);
  });
});
