import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parseClusterVersion, type ClusterMinor } from '../gating/index.ts';
import { ApiError, NoKindMatchError, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import type { Release, ReleaseStore } from '../release/index.ts';
import { GatingController, affectsGate } from './index.ts';

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

describe('affectsGate', () => {
  it('adds and deletes always count', () => {
    expect(affectsGate('add', ext({}), undefined)).toBe(true);
    expect(affectsGate('delete', ext({}), undefined)).toBe(true);
  });

  it('a new install, an upgrade or a re-created extension counts', () => {
    expect(affectsGate('update', ext(installed('e.v1')), ext({}))).toBe(true);
    expect(affectsGate('update', ext(installed('e.v2')), ext(installed('e.v1')))).toBe(true);
    expect(affectsGate('update', ext(installed('e.v1'), 'u2'), ext(installed('e.v1')))).toBe(true);
    expect(affectsGate('update', ext(installed('e.v1', '2026-01-02T00:00:00Z')), ext(installed('e.v1')))).toBe(true);
  });

  it('status writes that leave the install alone do not', () => {
    const before = installed('e.v1');
    const after = { ...before, conditions: [...before.conditions, { type: 'Deprecated', status: 'False' }] };
    expect(affectsGate('update', ext(after), ext(before))).toBe(false);
  });
});

describe('GatingController.evaluate', () => {
  const cluster = parseClusterVersion('4.18');
  if (!cluster.ok) throw new Error(cluster.error);
  const release = (extension: string, bundle: string, max: string): Release => ({
    extension,
    extensionUID: 'u',
    revision: 1,
    status: 'deployed',
    bundle: { package: extension, name: bundle, version: '1.0.0', image: `registry.example/${bundle}` },
    manifest: [],
    properties: [{ type: 'olm.maxOpenShiftVersion', value: max }],
    description: 'Install complete',
  });

  /**
   * A gate over `extensions` whose release store serves `records` and counts the histories read;
   * `version` replaces --cluster-version (null: not set), `logged` collects the messages logged.
   */
  function gate(extensions: Map<string, KubeObject>, records: Map<string, Release | Error>, o: { version?: ClusterMinor | null } = {}) {
    const reads: string[] = [];
    const logged: string[] = [];
    const releases: ReleaseStore = {
      history: async (name) => {
        reads.push(name);
        const r = records.get(name);
        if (r instanceof Error) throw r;
        return r === undefined ? [] : [r];
      },
      list: () => Promise.reject(new Error('not used')),
      create: () => Promise.reject(new Error('not used')),
      update: () => Promise.reject(new Error('not used')),
      deleteAll: () => Promise.reject(new Error('not used')),
    };
    // No OpenShift API is served: the cluster version is the option's, and there are no conditions to write.
    const client = {
      resourceFor: (t: { apiVersion: string; kind: string }) =>
        Promise.reject(new NoKindMatchError({ group: t.apiVersion.split('/')[0] ?? '', version: 'v1', kind: t.kind })),
      get: () => Promise.reject(new ApiError(404, 'NotFound', 'the server could not find the requested resource')),
    } as unknown as KubeClient;
    const controller = new GatingController({
      client,
      releases,
      extensions: { list: () => [...extensions.values()], addHandler: () => () => undefined, waitForSync: () => Promise.resolve() },
      clusterVersion: o.version === null ? undefined : (o.version ?? (cluster.ok ? cluster.value : undefined)),
      log: pino({ level: 'info' }, { write: (line: string) => logged.push((JSON.parse(line) as { msg: string }).msg) }),
      registry: new Registry(),
    });
    return { controller, reads, logged };
  }
  const named = (name: string, status: object): KubeObject => ({ ...ext(status, `uid-${name}`), metadata: { name, uid: `uid-${name}` } });

  it('reads the records only of extensions whose install changed since the last evaluation', async () => {
    const extensions = new Map([
      ['a', named('a', installed('a.v1'))],
      ['b', named('b', installed('b.v1'))],
    ]);
    const records = new Map<string, Release | Error>([
      ['a', release('a', 'a.v1', '4.19')],
      ['b', release('b', 'b.v1', '4.20')],
    ]);
    const { controller, reads } = gate(extensions, records);
    expect((await controller.evaluate())?.maxVersions).toEqual({ a: '4.19', b: '4.20' });
    expect(reads).toEqual(['a', 'b']);

    reads.length = 0;
    expect((await controller.evaluate())?.maxVersions).toEqual({ a: '4.19', b: '4.20' });
    expect(reads).toEqual([]);

    // b is upgraded (its status names the new bundle) and a third one is installed.
    records.set('b', release('b', 'b.v2', '4.21'));
    extensions.set('b', named('b', installed('b.v2')));
    records.set('c', release('c', 'c.v1', '4.22'));
    extensions.set('c', named('c', installed('c.v1')));
    expect((await controller.evaluate())?.maxVersions).toEqual({ a: '4.19', b: '4.21', c: '4.22' });
    expect(reads).toEqual(['b', 'c']);

    // a is deleted: gone from the verdict; re-created later under the same name, it is read anew.
    reads.length = 0;
    extensions.delete('a');
    expect((await controller.evaluate())?.maxVersions).toEqual({ b: '4.21', c: '4.22' });
    extensions.set('a', named('a', installed('a.v1')));
    expect((await controller.evaluate())?.maxVersions).toEqual({ a: '4.19', b: '4.21', c: '4.22' });
    expect(reads).toEqual(['a']);
  });

  it('does not keep a failed read: the next evaluation reads again', async () => {
    const extensions = new Map([['a', named('a', installed('a.v1'))]]);
    const records = new Map<string, Release | Error>([['a', new Error('etcd is down')]]);
    const { controller, reads } = gate(extensions, records);
    expect((await controller.evaluate())?.errors).toEqual(['error returning the last deployed release for a']);
    records.set('a', release('a', 'a.v1', '4.19'));
    const verdict = await controller.evaluate();
    expect(verdict?.errors).toEqual([]);
    expect(verdict?.maxVersions).toEqual({ a: '4.19' });
    expect(reads).toEqual(['a', 'a']);
  });

  it('warns of a missing cluster version when it starts, not at every evaluation, and says when one is found', async () => {
    const { controller, logged } = gate(new Map(), new Map(), { version: null });
    for (let i = 0; i < 3; i++) expect(await controller.evaluate()).toBeUndefined();
    const warning = 'no cluster version: ClusterVersion is not served or has no desired version, and --cluster-version is not set';
    expect(logged).toEqual([warning]);
  });

  it('warns of an unreadable release history once per distinct error, and again after it was read', async () => {
    const extensions = new Map([['a', named('a', installed('a.v1'))]]);
    const records = new Map<string, Release | Error>([['a', new Error('etcd is down')]]);
    const { controller, logged } = gate(extensions, records);
    await controller.evaluate();
    await controller.evaluate();
    records.set('a', new Error('etcd is still down'));
    await controller.evaluate();
    records.set('a', release('a', 'a.v1', '4.19'));
    await controller.evaluate();
    extensions.set('a', named('a', installed('a.v1', '2026-02-01T00:00:00Z')));
    records.set('a', new Error('etcd is down'));
    await controller.evaluate();
    expect(logged.filter((m) => m === 'reading the release history failed')).toHaveLength(3);
  });
});
