import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { parseClusterVersion, type ClusterMinor } from '../gating/index.ts';
import { Controller, type ReconcileContext } from '../../shared/controller/index.ts';
import { ApiError, Informer, NoKindMatchError, type KubeObject, type ListWatchSource } from '../../shared/kube/index.ts';
import type { Release } from '../release/index.ts';
import { DEFAULT_GATE_RESYNC_MS, GATE_KEY, GateReconciler, UPGRADE_GATE_NAME, affectsGate, gateKeys, gateRateLimiter } from './controller.ts';
import type { ApiWatch } from './openshift.ts';
import { gateMetrics } from './steps.ts';
import {
  clusterVersionStep,
  conditionsStep,
  deployedStep,
  verdictStep,
  type ClusterVersionStepPorts,
  type ConditionsStepPorts,
  type DeployedStepPorts,
  type GateState,
} from './steps.ts';
import type { Step } from '../../shared/controller/index.ts';
import { summaryOf } from '../revisions/index.ts';
import { abortedAfterEach } from '../../../test/support/per-test.ts';
import { cappedRelease } from '../../../test/support/release-revisions.ts';

const ext = (status: object, uid = 'u1'): KubeObject => ({
  apiVersion: 'olm.operatorframework.io/v1',
  kind: 'ClusterExtension',
  metadata: { name: 'e', uid },
  status,
});
const installed = (bundle: string, t = '2026-01-01T00:00:00Z') => ({
  install: { bundle: { name: bundle, version: '1.0.0' } },
  conditions: [
    { type: 'Installed', status: 'True', lastTransitionTime: t },
    { type: 'Progressing', status: 'True', reason: 'Succeeded', lastTransitionTime: t },
  ],
});

describe('affectsGate and gateKeys', () => {
  it('adds and deletes always count', () => {
    expect(affectsGate('add', ext({}), undefined)).toBe(true);
    expect(affectsGate('delete', ext({}), undefined)).toBe(true);
    expect(gateKeys('add', ext({}), undefined)).toBe(GATE_KEY);
  });

  it('a new install, an upgrade or a re-created extension counts', () => {
    expect(affectsGate('update', ext(installed('e.v1')), ext({}))).toBe(true);
    expect(affectsGate('update', ext(installed('e.v2')), ext(installed('e.v1')))).toBe(true);
    expect(affectsGate('update', ext(installed('e.v1'), 'u2'), ext(installed('e.v1')))).toBe(true);
    expect(affectsGate('update', ext(installed('e.v1', '2026-01-02T00:00:00Z')), ext(installed('e.v1')))).toBe(true);
    expect(gateKeys('update', ext(installed('e.v2')), ext(installed('e.v1')))).toBe(GATE_KEY);
  });

  it('status writes that leave the install alone do not', () => {
    const before = installed('e.v1');
    const after = { ...before, conditions: [...before.conditions, { type: 'Deprecated', status: 'False' }] };
    expect(affectsGate('update', ext(after), ext(before))).toBe(false);
    expect(gateKeys('update', ext(after), ext(before))).toBeUndefined();
  });
});

describe('gateRateLimiter', () => {
  it('retries after 500 ms doubling to 30 s, and starts over after a success', () => {
    const limiter = gateRateLimiter();
    expect(Array.from({ length: 9 }, () => limiter.when(GATE_KEY))).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
    limiter.forget(GATE_KEY);
    expect(limiter.when(GATE_KEY)).toBe(500);
  });
});

const cluster = parseClusterVersion('4.18');
if (!cluster.ok) throw new Error(cluster.error);
const release = cappedRelease;
const named = (name: string, status: object): KubeObject => ({ ...ext(status, `uid-${name}`), metadata: { name, uid: `uid-${name}` } });

/**
 * The gate as cmd/operator-controller/upgradegate.ts assembles it, over fakes: extensions from
 * `extensions`, release records from `records` (the histories read are in `reads`), no
 * OpenShift API served unless `discovery` says otherwise; `version` replaces --cluster-version
 * (null: not set). `logged` collects the messages logged, `registry` the gauges.
 */
function assemble(
  extensions: () => Array<Readonly<KubeObject>>,
  records: Map<string, Release | Error>,
  o: { version?: ClusterMinor | null; discovery?: () => Promise<never>; extraStep?: Step<GateState>; resyncMs?: number; apis?: ApiWatch } = {},
) {
  const reads: string[] = [];
  const logged: string[] = [];
  const registry = new Registry();
  const log = pino({ level: 'info' }, { write: (line: string) => logged.push((JSON.parse(line) as { msg: string }).msg) });
  const notServed = (t: { apiVersion: string; kind: string }): Promise<never> =>
    Promise.reject(new NoKindMatchError({ group: t.apiVersion.split('/')[0] ?? '', version: 'v1', kind: t.kind }));
  const client = {
    resourceFor: o.discovery ?? notServed,
    get: () => Promise.reject(new ApiError(404, 'NotFound', 'the server could not find the requested resource')),
    updateStatus: () => Promise.reject(new Error('not served: never written')),
  } satisfies ClusterVersionStepPorts['client'] & ConditionsStepPorts['client'];
  const releases = {
    installed: (name: string) => {
      reads.push(name);
      const r = records.get(name);
      if (r instanceof Error) return Promise.reject(r);
      return Promise.resolve(r?.status === 'deployed' ? summaryOf(r) : undefined);
    },
  } satisfies DeployedStepPorts['releases'];
  const reconciler = new GateReconciler({
    steps: [
      clusterVersionStep({
        client,
        clusterVersion: o.version === null ? undefined : (o.version ?? (cluster.ok ? cluster.value : undefined)),
        informers: { start: () => ({ hasSynced: true, get: () => undefined }) },
        ...(o.apis === undefined ? {} : { apis: o.apis }),
      }),
      deployedStep({ releases, extensions: { list: extensions } }),
      verdictStep({ metrics: gateMetrics(registry) }),
      conditionsStep({ client, ...(o.apis === undefined ? {} : { apis: o.apis }) }),
      ...(o.extraStep === undefined ? [] : [o.extraStep]),
    ],
    ...(o.resyncMs === undefined ? {} : { resyncMs: o.resyncMs }),
  });
  const ctx = (signal = new AbortController().signal): ReconcileContext => ({ signal, log });
  return { reconciler, reads, logged, registry, log, ctx };
}

async function gauge(registry: Registry, name: string): Promise<Array<{ labels: object; value: number }>> {
  const m = await registry.getSingleMetric(name)?.get();
  return (m?.values ?? []).map((v) => ({ labels: v.labels, value: v.value }));
}

describe('GateReconciler assembled from the steps', () => {
  it('judges the deployed releases, sets the gauges and asks for the resync', async () => {
    const records = new Map<string, Release | Error>([
      ['a', release('a', 'a.v1', '4.18')],
      ['b', release('b', 'b.v1', '4.20')],
    ]);
    const { reconciler, ctx, registry } = assemble(() => [named('a', installed('a.v1')), named('b', installed('b.v1'))], records);
    expect(await reconciler.reconcile(GATE_KEY, ctx())).toEqual({ requeueAfterMs: DEFAULT_GATE_RESYNC_MS });
    expect(reconciler.lastVerdict).toMatchObject({ current: '4.18', next: '4.19', upgradeable: false, maxVersions: { a: '4.18', b: '4.20' } });
    expect(await gauge(registry, 'olmv1_cluster_upgradeable')).toEqual([{ labels: { next: '4.19' }, value: 0 }]);
    expect(await gauge(registry, 'olmv1_cluster_upgrade_blockers')).toEqual([{ labels: { next: '4.19' }, value: 1 }]);
    expect(await gauge(registry, 'olmv1_cluster_upgrade_metadata_errors')).toEqual([{ labels: { next: '4.19' }, value: 0 }]);
  });

  it('asks for no resync where the CRD watch says the OpenShift APIs are absent, nor asks discovery', async () => {
    const records = new Map<string, Release | Error>([['a', release('a', 'a.v1', '4.18')]]);
    const discovery = (): Promise<never> => Promise.reject(new Error('discovery must not be asked'));
    const { reconciler, ctx } = assemble(() => [named('a', installed('a.v1'))], records, { discovery, apis: { presence: () => 'absent' } });
    expect(await reconciler.reconcile(GATE_KEY, ctx())).toBeUndefined();
    expect(reconciler.lastVerdict).toMatchObject({ upgradeable: false });
    const { reconciler: none, ctx: noneCtx } = assemble(() => [], new Map(), { version: null, discovery, apis: { presence: () => 'absent' } });
    expect(await none.reconcile(GATE_KEY, noneCtx())).toBeUndefined();
  });

  it('retries with the rate limiter while an established CRD is not in discovery yet', async () => {
    const { reconciler, ctx } = assemble(() => [], new Map(), { apis: { presence: () => 'established' } });
    expect(await reconciler.reconcile(GATE_KEY, ctx())).toEqual({ requeue: true });
    expect(reconciler.lastVerdict?.upgradeable).toBe(true);
  });

  it('re-reads only the extensions whose install changed between reconciles', async () => {
    const extensions = new Map([
      ['a', named('a', installed('a.v1'))],
      ['b', named('b', installed('b.v1'))],
    ]);
    const records = new Map<string, Release | Error>([
      ['a', release('a', 'a.v1', '4.19')],
      ['b', release('b', 'b.v1', '4.20')],
    ]);
    const { reconciler, reads, ctx } = assemble(() => [...extensions.values()], records);
    await reconciler.reconcile(GATE_KEY, ctx());
    await reconciler.reconcile(GATE_KEY, ctx());
    expect(reads).toEqual(['a', 'b']);
    records.set('b', release('b', 'b.v2', '4.21'));
    extensions.set('b', named('b', installed('b.v2')));
    await reconciler.reconcile(GATE_KEY, ctx());
    expect(reads).toEqual(['a', 'b', 'b']);
    expect(reconciler.lastVerdict?.maxVersions).toEqual({ a: '4.19', b: '4.21' });
  });

  it('an unreadable history makes the verdict undecided, not the reconcile failed', async () => {
    const records = new Map<string, Release | Error>([['a', new Error('etcd is down')]]);
    const { reconciler, ctx } = assemble(() => [named('a', installed('a.v1'))], records, { resyncMs: 5000 });
    expect(await reconciler.reconcile(GATE_KEY, ctx())).toEqual({ requeueAfterMs: 5000 });
    expect(reconciler.lastVerdict?.errors).toEqual(['error returning the last deployed release for a']);
    expect(reconciler.lastVerdict?.upgradeable).toBe(false);
  });

  it('without a cluster version: no verdict, gauges reset, histories unread, one warning', async () => {
    const { reconciler, ctx, registry, reads, logged } = assemble(() => [named('a', installed('a.v1'))], new Map(), { version: null });
    for (let i = 0; i < 3; i++) expect(await reconciler.reconcile(GATE_KEY, ctx())).toEqual({ requeueAfterMs: DEFAULT_GATE_RESYNC_MS });
    expect(reconciler.lastVerdict).toBeUndefined();
    expect(await gauge(registry, 'olmv1_cluster_upgradeable')).toEqual([]);
    expect(reads).toEqual([]);
    expect(logged).toEqual(['no cluster version: ClusterVersion is not served or has no desired version, and --cluster-version is not set']);
  });

  it('a failed evaluation asks for a rate-limited retry and is logged once per distinct error', async () => {
    const failure = { message: 'discovery is down' as string | undefined };
    const discovery = (): Promise<never> =>
      failure.message === undefined
        ? Promise.reject(new NoKindMatchError({ group: 'config.openshift.io', version: 'v1', kind: 'ClusterVersion' }))
        : Promise.reject(new ApiError(503, 'ServiceUnavailable', failure.message));
    const { reconciler, ctx, logged } = assemble(() => [], new Map(), { discovery });
    expect(await reconciler.reconcile(GATE_KEY, ctx())).toEqual({ requeue: true });
    expect(await reconciler.reconcile(GATE_KEY, ctx())).toEqual({ requeue: true });
    failure.message = 'discovery is still down';
    await reconciler.reconcile(GATE_KEY, ctx());
    expect(reconciler.lastVerdict).toBeUndefined();
    failure.message = undefined;
    expect(await reconciler.reconcile(GATE_KEY, ctx())).toEqual({ requeueAfterMs: DEFAULT_GATE_RESYNC_MS });
    expect(reconciler.lastVerdict?.upgradeable).toBe(true);
    failure.message = 'discovery is down';
    await reconciler.reconcile(GATE_KEY, ctx());
    expect(logged.filter((m) => m === 'evaluating the cluster upgrade gate failed')).toHaveLength(3);
  });

  it('a programming error is rethrown for the controller to count', async () => {
    const extraStep: Step<GateState> = {
      name: 'broken',
      run: () => {
        throw new TypeError('x is undefined');
      },
    };
    const { reconciler, ctx, logged } = assemble(() => [], new Map(), { extraStep });
    await expect(reconciler.reconcile(GATE_KEY, ctx())).rejects.toThrow(TypeError);
    expect(logged).toEqual([]);
  });

  it('a failure while stopping is neither logged nor retried', async () => {
    const stop = new AbortController();
    const discovery = (): Promise<never> => {
      stop.abort();
      return Promise.reject(new Error('aborted'));
    };
    const { reconciler, ctx, logged } = assemble(() => [], new Map(), { discovery });
    expect(await reconciler.reconcile(GATE_KEY, ctx(stop.signal))).toBeUndefined();
    expect(logged).toEqual([]);
  });
});

/** A ClusterExtension list/watch whose watch delivers what `push` is given. */
function extensionSource(items: KubeObject[]): { source: ListWatchSource; push: (type: 'ADDED' | 'MODIFIED', obj: KubeObject) => void } {
  const pending: Array<{ type: 'ADDED' | 'MODIFIED'; object: KubeObject }> = [];
  let wake = (): void => undefined;
  const source: ListWatchSource = {
    description: 'clusterextensions (fake)',
    list: () => Promise.resolve({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '1' }, items }),
    watch: (o) => ({
      async *[Symbol.asyncIterator]() {
        while (!o.signal.aborted) {
          const next = pending.shift();
          if (next !== undefined) {
            yield next;
            continue;
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
            o.signal.addEventListener('abort', () => resolve(), { once: true });
          });
        }
      },
    }),
  };
  return {
    source,
    push: (type, object) => {
      pending.push({ type, object });
      wake();
    },
  };
}

describe('the gate on the shared Controller', () => {
  const aborted = abortedAfterEach();

  /** The gate's controller as cmd/operator-controller composes it, over an informer fed by `extensionSource`. */
  function start(items: KubeObject[], records: Map<string, Release | Error>, discovery?: () => Promise<never>, extraStep?: Step<GateState>) {
    const stop = aborted();
    const feed = extensionSource(items);
    const informer = new Informer({ name: 'clusterextensions', source: feed.source, log: pino({ level: 'silent' }), resyncPeriodMs: 0 });
    const gate = assemble(() => informer.list(), records, {
      ...(discovery === undefined ? {} : { discovery }),
      ...(extraStep === undefined ? {} : { extraStep }),
    });
    const controller = new Controller({
      name: UPGRADE_GATE_NAME,
      reconciler: gate.reconciler,
      log: gate.log,
      watches: [{ informer, keys: gateKeys }],
      rateLimiter: gateRateLimiter(),
    });
    controller.enqueue(GATE_KEY);
    void informer.run(stop.signal);
    const stopped = controller.run(stop.signal);
    return { ...gate, feed, informer, controller, stop, stopped };
  }

  it('evaluates once the informer synced, even with no extension', async () => {
    const { reconciler } = start([], new Map());
    await vi.waitFor(() => expect(reconciler.lastVerdict).toMatchObject({ upgradeable: true, maxVersions: {} }));
  });

  /** A last step counting the evaluations that got through (`count.n`). */
  function counter(hold?: Promise<void>): { step: Step<GateState>; count: { n: number } } {
    const count = { n: 0 };
    const step: Step<GateState> = {
      name: 'count',
      run: async () => {
        count.n++;
        if (count.n === 1 && hold !== undefined) await hold;
        return undefined;
      },
    };
    return { step, count };
  }

  /** Collects the events the informer delivered, after the controller's own handler saw each. */
  function delivered(informer: Informer<KubeObject>): string[] {
    const seen: string[] = [];
    informer.addHandler((type, obj) => seen.push(`${type} ${obj.metadata.name ?? ''}`));
    return seen;
  }

  it('an install queues an evaluation; a status write that leaves the install alone does not', async () => {
    const records = new Map<string, Release | Error>([['a', release('a', 'a.v1', '4.18')]]);
    const { step, count } = counter();
    const { reconciler, controller, informer, feed, reads } = start([], records, undefined, step);
    await vi.waitFor(() => expect(count.n).toBe(1));
    await controller.queue.drain();
    const seen = delivered(informer);
    const before = installed('a.v1');
    feed.push('ADDED', { ...named('a', before), metadata: { name: 'a', uid: 'uid-a', resourceVersion: '2' } });
    await vi.waitFor(() => expect(seen).toEqual(['add a']));
    // Had the event queued the gate, the queue would be busy until that evaluation ended.
    await controller.queue.drain();
    expect(count.n).toBe(2);
    expect(reconciler.lastVerdict?.upgradeable).toBe(false);
    const deprecated = { ...before, conditions: [...before.conditions, { type: 'Deprecated', status: 'False' }] };
    feed.push('MODIFIED', { ...named('a', deprecated), metadata: { name: 'a', uid: 'uid-a', resourceVersion: '3' } });
    feed.push('MODIFIED', { ...named('a', deprecated), metadata: { name: 'a', uid: 'uid-a', resourceVersion: '4' } });
    await vi.waitFor(() => expect(seen).toEqual(['add a', 'update a', 'update a']));
    await controller.queue.drain();
    expect(count.n).toBe(2);
    expect(reads).toEqual(['a']);
  });

  it('events that arrive while an evaluation runs make one more evaluation, not one each', async () => {
    let release = (): void => undefined;
    const { step, count } = counter(new Promise<void>((resolve) => (release = resolve)));
    const { reconciler, controller, informer, feed } = start([], new Map(), undefined, step);
    await vi.waitFor(() => expect(count.n).toBe(1));
    const seen = delivered(informer);
    for (const [i, name] of ['a', 'b', 'c'].entries())
      feed.push('ADDED', { ...named(name, installed(`${name}.v1`)), metadata: { name, uid: `uid-${name}`, resourceVersion: String(i + 2) } });
    await vi.waitFor(() => expect(seen).toEqual(['add a', 'add b', 'add c']));
    release();
    await vi.waitFor(() => expect(count.n).toBe(2));
    await controller.queue.drain();
    expect(count.n).toBe(2);
    expect(Object.keys(reconciler.lastVerdict?.maxVersions ?? {})).toEqual([]);
  });

  it('retries a failed evaluation with the rate limiter until it succeeds', async () => {
    let failures = 1;
    const discovery = (): Promise<never> => {
      if (failures-- > 0) return Promise.reject(new ApiError(503, 'ServiceUnavailable', 'discovery is down'));
      return Promise.reject(new NoKindMatchError({ group: 'config.openshift.io', version: 'v1', kind: 'ClusterVersion' }));
    };
    const { reconciler, logged } = start([], new Map(), discovery);
    await vi.waitFor(() => expect(reconciler.lastVerdict).toBeDefined(), { timeout: 10_000 });
    expect(logged.filter((m) => m === 'evaluating the cluster upgrade gate failed')).toHaveLength(1);
    expect(logged).not.toContain('Reconciler error');
  });
});
