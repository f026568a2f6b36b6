import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { parseClusterVersion, type ClusterMinor, type DeployedExtension, type GateVerdict } from '../gating/index.ts';
import { ApiError, NoKindMatchError, type KubeObject } from '../../shared/kube/index.ts';
import type { Release } from '../release/index.ts';
import type { ApiPresence, ApiWatch } from './openshift.ts';
import type { GateMetrics } from './steps.ts';
import { CLUSTER_VERSION, OLM_CLUSTER_OPERATOR, OLM_OPERATOR } from './openshift.ts';
import {
  GATING_FIELD_MANAGER,
  clusterVersionStep,
  conditionsStep,
  deployedStep,
  verdictStep,
  type ClusterVersionCache,
  type ClusterVersionStepPorts,
  type ConditionsStepPorts,
  type DeployedStepPorts,
  type GateState,
  type VerdictStepPorts,
} from './steps.ts';
import { summaryOf } from '../revisions/index.ts';
import { cappedRelease } from '../../../test/support/release-revisions.ts';

function minor(text: string): ClusterMinor {
  const parsed = parseClusterVersion(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

/** A fresh state whose log lines (message and fields) are collected in `logged`. */
function newState(extra: Partial<GateState> = {}): { state: GateState; logged: Array<Record<string, unknown>> } {
  const logged: Array<Record<string, unknown>> = [];
  const log = pino({ level: 'info' }, { write: (line: string) => logged.push(JSON.parse(line) as Record<string, unknown>) });
  return { state: { log, signal: new AbortController().signal, deployed: [], extra: [], ...extra }, logged };
}
const messages = (logged: Array<Record<string, unknown>>): unknown[] => logged.map((l) => l['msg']);

type ResourceInfo = Awaited<ReturnType<ClusterVersionStepPorts['client']['resourceFor']>>;

const NO_VERSION_WARNING = 'no cluster version: ClusterVersion is not served or has no desired version, and --cluster-version is not set';
const served: ResourceInfo = {
  group: 'config.openshift.io',
  version: 'v1',
  kind: 'ClusterVersion',
  resource: 'clusterversions',
  namespaced: false,
  verbs: [],
};
const notServed = (): Promise<ResourceInfo> =>
  Promise.reject(new NoKindMatchError({ group: 'config.openshift.io', version: 'v1', kind: 'ClusterVersion' }));
const clusterVersionObject = (desired: string | undefined): KubeObject => ({
  apiVersion: CLUSTER_VERSION.apiVersion,
  kind: CLUSTER_VERSION.kind,
  metadata: { name: CLUSTER_VERSION.name },
  status: desired === undefined ? {} : { desired: { version: desired } },
});

describe('clusterVersionStep', () => {
  /**
   * The step over a cluster where ClusterVersion is served when `object` is given (undefined:
   * not served); `synced` says whether the started informer's cache has synced.
   */
  function setup(o: { object?: KubeObject; flag?: ClusterMinor; synced?: boolean; discovery?: () => Promise<ResourceInfo> }) {
    const calls = { started: 0, gets: 0 };
    const cache: ClusterVersionCache = {
      hasSynced: o.synced ?? true,
      get: (name) => (name === CLUSTER_VERSION.name ? o.object : undefined),
    };
    const ports = {
      client: {
        resourceFor: o.discovery ?? (() => (o.object === undefined ? notServed() : Promise.resolve(served))),
        get: <T extends KubeObject>() => {
          calls.gets++;
          return o.object === undefined ? Promise.reject(new ApiError(404, 'NotFound', 'not found')) : Promise.resolve(o.object as T);
        },
      },
      clusterVersion: o.flag,
      informers: {
        start: () => {
          calls.started++;
          return cache;
        },
      },
    } satisfies ClusterVersionStepPorts;
    return { step: clusterVersionStep(ports), calls, ports };
  }

  it.each([
    { name: 'not served, no --cluster-version', object: undefined, flag: undefined, current: undefined },
    { name: 'not served, --cluster-version', object: undefined, flag: '4.18', current: '4.18' },
    { name: 'served without a desired version, no flag', object: clusterVersionObject(undefined), flag: undefined, current: undefined },
    { name: 'served without a desired version, flag', object: clusterVersionObject(undefined), flag: '4.17', current: '4.17' },
    { name: 'from ClusterVersion (the flag is ignored)', object: clusterVersionObject('4.19.3'), flag: '4.17', current: '4.19' },
    { name: 'unparsable ClusterVersion, flag', object: clusterVersionObject('four'), flag: '4.17', current: '4.17' },
    { name: 'unparsable ClusterVersion, no flag', object: clusterVersionObject('four'), flag: undefined, current: undefined },
  ])('$name -> $current', async ({ object, flag, current }) => {
    const { step } = setup({ ...(object === undefined ? {} : { object }), ...(flag === undefined ? {} : { flag: minor(flag) }) });
    const { state } = newState();
    expect(await step.run(state)).toBeUndefined();
    expect(state.current === undefined ? undefined : `${state.current.major}.${state.current.minor}`).toBe(current);
  });

  it('warns of a missing cluster version when it starts, not at every evaluation, and says when one is found', async () => {
    const flag: { value?: ClusterMinor } = {};
    const ports = {
      client: { resourceFor: notServed, get: () => Promise.reject(new Error('not used')) },
      get clusterVersion() {
        return flag.value;
      },
      informers: { start: () => ({ hasSynced: true, get: () => undefined }) },
    } satisfies ClusterVersionStepPorts;
    const step = clusterVersionStep(ports);
    const { state, logged } = newState();
    for (let i = 0; i < 3; i++) await step.run(state);
    expect(messages(logged)).toEqual([NO_VERSION_WARNING]);
    flag.value = minor('4.18');
    await step.run(state);
    await step.run(state);
    expect(messages(logged)).toEqual([NO_VERSION_WARNING, 'cluster version found']);
  });

  it('warns of an unparsable desired version once per distinct value', async () => {
    const object = { current: clusterVersionObject('four') };
    const ports = {
      client: { resourceFor: () => Promise.resolve(served), get: () => Promise.reject(new Error('not used')) },
      clusterVersion: minor('4.17'),
      informers: { start: () => ({ hasSynced: true, get: () => object.current }) },
    } satisfies ClusterVersionStepPorts;
    const step = clusterVersionStep(ports);
    const { state, logged } = newState();
    await step.run(state);
    await step.run(state);
    object.current = clusterVersionObject('five');
    await step.run(state);
    const warnings = messages(logged).filter((m) => m === 'ClusterVersion desired version does not parse');
    expect(warnings).toHaveLength(2);
  });

  it('starts the informer once, the first time ClusterVersion is served, and reads directly until it synced', async () => {
    const { step, calls } = setup({ object: clusterVersionObject('4.19.0'), synced: false });
    const { state, logged } = newState();
    await step.run(state);
    await step.run(state);
    expect(calls).toEqual({ started: 1, gets: 2 });
    expect(messages(logged).filter((m) => m === 'ClusterVersion is served: the cluster version comes from it')).toHaveLength(1);
    expect(state.current).toEqual(minor('4.19'));
  });

  it('reads the synced informer cache, not the API server', async () => {
    const { step, calls } = setup({ object: clusterVersionObject('4.19.0'), synced: true });
    await step.run(newState().state);
    expect(calls).toEqual({ started: 1, gets: 0 });
  });

  /** An ApiWatch whose every kind has `presence` (changed through the returned box). */
  const watch = (presence: ApiPresence): { box: { presence: ApiPresence }; apis: ApiWatch } => {
    const box = { presence };
    return { box, apis: { presence: () => box.presence } };
  };

  it('asks discovery nothing while the CRD watch says the API is absent, and needs no resync', async () => {
    const { apis } = watch('absent');
    const discovery = (): Promise<ResourceInfo> => Promise.reject(new Error('discovery must not be asked'));
    const step = clusterVersionStep({ ...setup({ flag: minor('4.18'), discovery }).ports, apis });
    const { state } = newState();
    await step.run(state);
    expect(state.current).toEqual(minor('4.18'));
    expect(state.resync).toBeUndefined();
    expect(state.pending).toBeUndefined();
  });

  it('asks for a resync while the API presence is unknown (CRDs not watched, or not yet listed)', async () => {
    const { apis } = watch('unknown');
    const { state } = newState();
    await clusterVersionStep({ ...setup({ flag: minor('4.18') }).ports, apis }).run(state);
    expect(state.resync).toBe(true);
  });

  it('an established CRD that discovery does not list yet makes the evaluation pending', async () => {
    const { apis } = watch('established');
    const { state } = newState();
    await clusterVersionStep({ ...setup({ flag: minor('4.18') }).ports, apis }).run(state);
    expect(state.pending).toBe(true);
    expect(state.current).toEqual(minor('4.18'));
  });

  it('stops the ClusterVersion informer when the API goes, and starts a new one when it comes back', async () => {
    const { box, apis } = watch('established');
    const stops: AbortSignal[] = [];
    const base = setup({ object: clusterVersionObject('4.19.0'), flag: minor('4.17') });
    const step = clusterVersionStep({
      ...base.ports,
      apis,
      informers: {
        start: (stop) => {
          stops.push(stop);
          return base.ports.informers.start();
        },
      },
    });
    const first = newState();
    await step.run(first.state);
    expect(first.state.current).toEqual(minor('4.19'));
    box.presence = 'absent';
    const gone = newState();
    await step.run(gone.state);
    expect(gone.state.current).toEqual(minor('4.17'));
    expect(stops.map((s) => s.aborted)).toEqual([true]);
    expect(messages(gone.logged)).toContain('ClusterVersion is no longer served');
    box.presence = 'established';
    const back = newState();
    await step.run(back.state);
    expect(back.state.current).toEqual(minor('4.19'));
    expect(stops.map((s) => s.aborted)).toEqual([true, false]);
  });

  it('fails when discovery fails for another reason than a kind not served', async () => {
    const { step, calls } = setup({ discovery: () => Promise.reject(new ApiError(503, 'ServiceUnavailable', 'unavailable')) });
    await expect(step.run(newState().state)).rejects.toThrow('unavailable');
    expect(calls.started).toBe(0);
  });
});

const release = cappedRelease;
const installedExtension = (name: string, bundle: string, t = '2026-01-01T00:00:00Z'): KubeObject => ({
  apiVersion: 'olm.operatorframework.io/v1',
  kind: 'ClusterExtension',
  metadata: { name, uid: `uid-${name}` },
  status: {
    install: { bundle: { name: bundle, version: '1.0.0' } },
    conditions: [{ type: 'Installed', status: 'True', lastTransitionTime: t }],
  },
});

describe('deployedStep', () => {
  /** The step over `extensions`, whose release store serves `records` and records the histories read. */
  function setup(extensions: Map<string, KubeObject>, records: Map<string, Release | Error>) {
    const reads: string[] = [];
    const ports = {
      releases: {
        installed: (name: string) => {
          reads.push(name);
          const r = records.get(name);
          if (r instanceof Error) return Promise.reject(r);
          return Promise.resolve(r?.status === 'deployed' ? summaryOf(r) : undefined);
        },
      },
      extensions: { list: () => [...extensions.values()] },
    } satisfies DeployedStepPorts;
    const step = deployedStep(ports);
    async function run(): Promise<{ state: GateState; logged: Array<Record<string, unknown>> }> {
      const s = newState({ current: minor('4.18') });
      expect(await step.run(s.state)).toBeUndefined();
      return s;
    }
    return { step, run, reads };
  }
  const names = (deployed: DeployedExtension[]): string[] => deployed.map((d) => `${d.extension}:${d.bundle}`);

  it('reads nothing without a cluster version', async () => {
    const { step, reads } = setup(new Map([['a', installedExtension('a', 'a.v1')]]), new Map([['a', release('a', 'a.v1', '4.19')]]));
    const { state } = newState();
    expect(await step.run(state)).toBeUndefined();
    expect(reads).toEqual([]);
    expect(state.deployed).toEqual([]);
  });

  it('re-reads only extensions whose gate inputs changed, and forgets deleted ones', async () => {
    const extensions = new Map([
      ['a', installedExtension('a', 'a.v1')],
      ['b', installedExtension('b', 'b.v1')],
    ]);
    const records = new Map<string, Release | Error>([
      ['a', release('a', 'a.v1', '4.19')],
      ['b', release('b', 'b.v1', '4.20')],
    ]);
    const { run, reads } = setup(extensions, records);
    expect(names((await run()).state.deployed)).toEqual(['a:a.v1', 'b:b.v1']);
    expect(await run().then((s) => names(s.state.deployed))).toEqual(['a:a.v1', 'b:b.v1']);
    expect(reads).toEqual(['a', 'b']);

    // b is upgraded, c installed; a Progressing-only status write on a changes no gate input.
    reads.length = 0;
    records.set('b', release('b', 'b.v2', '4.21'));
    extensions.set('b', installedExtension('b', 'b.v2'));
    records.set('c', release('c', 'c.v1', '4.22'));
    extensions.set('c', installedExtension('c', 'c.v1'));
    const a = installedExtension('a', 'a.v1');
    const progressing = { type: 'Progressing', status: 'True', reason: 'Succeeded' };
    const status = a.status as { conditions: object[] };
    extensions.set('a', { ...a, status: { ...status, conditions: [...status.conditions, progressing] } });
    expect(names((await run()).state.deployed)).toEqual(['a:a.v1', 'b:b.v2', 'c:c.v1']);
    expect(reads).toEqual(['b', 'c']);

    // a is deleted, then re-created under the same name: read anew.
    reads.length = 0;
    extensions.delete('a');
    expect(names((await run()).state.deployed)).toEqual(['b:b.v2', 'c:c.v1']);
    extensions.set('a', installedExtension('a', 'a.v1'));
    expect(names((await run()).state.deployed)).toEqual(['b:b.v2', 'c:c.v1', 'a:a.v1']);
    expect(reads).toEqual(['a']);
  });

  it('passes over an object it already saw without looking into it, and still reports its release', async () => {
    // The informer hands out a new object for every change; an evaluation runs per install change
    // of any extension, so an unchanged one must cost a lookup, not its gate inputs.
    let statusReads = 0;
    const seen = installedExtension('a', 'a.v1');
    const counted = Object.defineProperty({ ...seen }, 'status', {
      get: () => {
        statusReads++;
        return seen.status;
      },
      enumerable: true,
    });
    const extensions = new Map([['a', counted]]);
    const { run, reads } = setup(extensions, new Map([['a', release('a', 'a.v1', '4.19')]]));
    expect(names((await run()).state.deployed)).toEqual(['a:a.v1']);
    const afterFirst = statusReads;
    expect(afterFirst).toBeGreaterThan(0);
    expect(names((await run()).state.deployed)).toEqual(['a:a.v1']);
    expect(names((await run()).state.deployed)).toEqual(['a:a.v1']);
    expect(statusReads).toBe(afterFirst);
    expect(reads).toEqual(['a']);
  });

  it('reads no records before the reconciler reports a deploy, nor after it reported none; Installed Unknown is read', async () => {
    const fresh: KubeObject = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension', metadata: { name: 'a', uid: 'uid-a' } };
    const withInstalled = (status: string): KubeObject => ({
      ...fresh,
      status: { conditions: [{ type: 'Installed', status, lastTransitionTime: `2026-01-01T00:00:0${status.length}Z` }] },
    });
    const extensions = new Map([['a', fresh]]);
    // Records exist from the start (an extension taken over, or records the reconciler is writing).
    const { run, reads } = setup(extensions, new Map([['a', release('a', 'a.v1', '4.19')]]));
    expect((await run()).state.deployed).toEqual([]);
    extensions.set('a', withInstalled('False'));
    expect((await run()).state.deployed).toEqual([]);
    expect(reads).toEqual([]);
    extensions.set('a', withInstalled('Unknown'));
    expect(names((await run()).state.deployed)).toEqual(['a:a.v1']);
    extensions.set('a', installedExtension('a', 'a.v1'));
    expect(names((await run()).state.deployed)).toEqual(['a:a.v1']);
    expect(reads).toEqual(['a', 'a']);
  });

  it('an extension without a deployed release contributes nothing and is not read again', async () => {
    const { run, reads } = setup(new Map([['a', installedExtension('a', 'a.v1')]]), new Map());
    expect((await run()).state.deployed).toEqual([]);
    expect((await run()).state.deployed).toEqual([]);
    expect(reads).toEqual(['a']);
  });

  it('an unreadable history adds the error entry and is read again next time', async () => {
    const records = new Map<string, Release | Error>([['a', new Error('etcd is down')]]);
    const { run, reads } = setup(new Map([['a', installedExtension('a', 'a.v1')]]), records);
    const failed = (await run()).state;
    expect(failed.extra).toEqual(['error returning the last deployed release for a']);
    expect(failed.deployed).toEqual([]);
    records.set('a', release('a', 'a.v1', '4.19'));
    const read = (await run()).state;
    expect(read.extra).toEqual([]);
    expect(names(read.deployed)).toEqual(['a:a.v1']);
    expect(reads).toEqual(['a', 'a']);
  });

  it('warns of an unreadable history once per distinct error, and again after it was read', async () => {
    const extensions = new Map([['a', installedExtension('a', 'a.v1')]]);
    const records = new Map<string, Release | Error>([['a', new Error('etcd is down')]]);
    const { run } = setup(extensions, records);
    const warnings: unknown[] = [];
    const collect = async (): Promise<void> => {
      const { logged } = await run();
      warnings.push(...logged.filter((l) => l['msg'] === 'reading the release history failed').map((l) => l['extension']));
    };
    await collect();
    await collect();
    records.set('a', new Error('etcd is still down'));
    await collect();
    records.set('a', release('a', 'a.v1', '4.19'));
    await collect();
    extensions.set('a', installedExtension('a', 'a.v1', '2026-02-01T00:00:00Z'));
    records.set('a', new Error('etcd is down'));
    await collect();
    expect(warnings).toEqual(['a', 'a', 'a']);
  });
});

describe('verdictStep', () => {
  function setup() {
    const published: Array<GateVerdict | undefined> = [];
    const ports = { metrics: ((v) => published.push(v)) satisfies GateMetrics } satisfies VerdictStepPorts;
    return { step: verdictStep(ports), published };
  }

  it('without a cluster version: resets the gauges and ends the evaluation', async () => {
    const { step, published } = setup();
    const { state } = newState();
    expect(await step.run(state)).toEqual({});
    expect(published).toEqual([undefined]);
    expect(state.verdict).toBeUndefined();
  });

  it.each([
    { name: 'nothing installed', deployed: [], extra: [], upgradeable: true, blockers: 0, errors: 0 },
    { name: 'a maximum above the next minor', deployed: [['a', '4.20']], extra: [], upgradeable: true, blockers: 0, errors: 0 },
    { name: 'a maximum at the current minor', deployed: [['a', '4.18']], extra: [], upgradeable: false, blockers: 1, errors: 0 },
    { name: 'an unparsable maximum', deployed: [['a', 'x']], extra: [], upgradeable: false, blockers: 0, errors: 1 },
    {
      name: 'an unreadable history',
      deployed: [],
      extra: ['error returning the last deployed release for b'],
      upgradeable: false,
      blockers: 0,
      errors: 1,
    },
  ])('$name: upgradeable $upgradeable', async ({ deployed, extra, upgradeable, blockers, errors }) => {
    const { step, published } = setup();
    const { state } = newState({
      current: minor('4.18'),
      deployed: deployed.map(([name, max]) => ({
        extension: name ?? '',
        bundle: `${name}.v1`,
        properties: [{ type: 'olm.maxOpenShiftVersion', value: max }],
      })),
      extra: [...extra],
    });
    expect(await step.run(state)).toBeUndefined();
    expect(state.verdict).toMatchObject({ current: '4.18', next: '4.19', upgradeable });
    expect(state.verdict?.blockers).toHaveLength(blockers);
    expect(state.verdict?.errors).toHaveLength(errors);
    expect(published).toEqual([state.verdict]);
  });
});

describe('conditionsStep', () => {
  const allowed: GateVerdict = { current: '4.18', next: '4.19', upgradeable: true, blockers: [], errors: [], maxVersions: {} };
  const blocked: GateVerdict = {
    ...allowed,
    upgradeable: false,
    blockers: [{ extension: 'a', bundle: 'a.v1', maxVersion: '4.18' }],
    maxVersions: { a: '4.18' },
  };

  /** A client over in-memory OpenShift objects (kinds not in `objects` are not served); counts status writes. */
  function setup(objects: Map<string, KubeObject>) {
    const writes: string[] = [];
    const managers = new Set<string | undefined>();
    const ports = {
      client: {
        get: <T extends KubeObject>(ref: { kind: string }) => {
          const obj = objects.get(ref.kind);
          if (obj === undefined) return Promise.reject(new NoKindMatchError({ group: 'openshift.io', version: 'v1', kind: ref.kind }));
          return Promise.resolve(structuredClone(obj) as T);
        },
        updateStatus: <T extends KubeObject>(obj: KubeObject, o?: { fieldManager?: string }) => {
          writes.push(obj.kind);
          managers.add(o?.fieldManager);
          objects.set(obj.kind, obj);
          return Promise.resolve(obj as T);
        },
      },
      now: () => new Date('2026-03-01T00:00:00Z'),
    } satisfies ConditionsStepPorts;
    return { step: conditionsStep(ports), writes, managers };
  }
  const openshift = (): Map<string, KubeObject> =>
    new Map([
      [OLM_OPERATOR.kind, { apiVersion: OLM_OPERATOR.apiVersion, kind: OLM_OPERATOR.kind, metadata: { name: OLM_OPERATOR.name }, status: {} }],
      [
        OLM_CLUSTER_OPERATOR.kind,
        { apiVersion: OLM_CLUSTER_OPERATOR.apiVersion, kind: OLM_CLUSTER_OPERATOR.kind, metadata: { name: OLM_CLUSTER_OPERATOR.name }, status: {} },
      ],
    ]);
  const conditions = (obj: KubeObject | undefined): Array<Record<string, unknown>> =>
    ((obj?.status as { conditions?: Array<Record<string, unknown>> } | undefined)?.conditions ?? []).map(({ type, status, reason }) => ({
      type,
      status,
      reason,
    }));

  it('writes nothing without a verdict', async () => {
    const { step, writes } = setup(openshift());
    expect(await step.run(newState().state)).toBeUndefined();
    expect(writes).toEqual([]);
  });

  it('writes nothing where the OpenShift APIs are not served', async () => {
    const { step, writes } = setup(new Map());
    const { state, logged } = newState({ verdict: allowed });
    expect(await step.run(state)).toBeUndefined();
    expect(writes).toEqual([]);
    expect(logged).toEqual([]);
  });

  it('writes both conditions when they change, and only then', async () => {
    const objects = openshift();
    const { step, writes, managers } = setup(objects);
    const first = newState({ verdict: blocked });
    await step.run(first.state);
    expect(writes).toEqual([OLM_OPERATOR.kind, OLM_CLUSTER_OPERATOR.kind]);
    expect(managers).toEqual(new Set([GATING_FIELD_MANAGER]));
    expect(conditions(objects.get(OLM_OPERATOR.kind))).toEqual([
      { type: 'InstalledOLMOperatorsUpgradeable', status: 'False', reason: 'IncompatibleOperatorsInstalled' },
    ]);
    expect(conditions(objects.get(OLM_CLUSTER_OPERATOR.kind))).toEqual([
      { type: 'Upgradeable', status: 'False', reason: 'InstalledOLMOperators_IncompatibleOperatorsInstalled' },
    ]);
    expect(messages(first.logged)).toEqual(['cluster upgrade gate conditions written']);

    // The same verdict again: nothing written, nothing logged.
    writes.length = 0;
    const again = newState({ verdict: blocked });
    await step.run(again.state);
    expect(writes).toEqual([]);
    expect(again.logged).toEqual([]);

    // Allowed now: both flip.
    await step.run(newState({ verdict: allowed }).state);
    expect(writes).toEqual([OLM_OPERATOR.kind, OLM_CLUSTER_OPERATOR.kind]);
    expect(conditions(objects.get(OLM_CLUSTER_OPERATOR.kind))).toEqual([{ type: 'Upgradeable', status: 'True', reason: 'AsExpected' }]);
  });

  it('reads nothing for kinds the CRD watch says are absent (no resync), and asks for a resync where they may be served', async () => {
    const objects = openshift();
    const reads: string[] = [];
    const { step, writes } = setup(objects);
    const watched = conditionsStep({
      client: {
        get: (ref) => {
          reads.push(ref.kind);
          return Promise.reject(new Error('not read'));
        },
        updateStatus: () => Promise.reject(new Error('not written')),
      },
      apis: { presence: () => 'absent' },
    });
    const none = newState({ verdict: blocked });
    await watched.run(none.state);
    expect(reads).toEqual([]);
    expect(none.state.resync).toBeUndefined();
    const present = newState({ verdict: blocked });
    await step.run(present.state);
    expect(writes).toEqual([OLM_OPERATOR.kind, OLM_CLUSTER_OPERATOR.kind]);
    expect(present.state.resync).toBe(true);
  });

  it('sets the ClusterOperator from the verdict alone when the OLM object is absent', async () => {
    const objects = openshift();
    objects.delete(OLM_OPERATOR.kind);
    const { step, writes } = setup(objects);
    await step.run(newState({ verdict: blocked }).state);
    expect(writes).toEqual([OLM_CLUSTER_OPERATOR.kind]);
    expect(conditions(objects.get(OLM_CLUSTER_OPERATOR.kind))).toEqual([
      { type: 'Upgradeable', status: 'False', reason: 'InstalledOLMOperators_IncompatibleOperatorsInstalled' },
    ]);
  });
});
