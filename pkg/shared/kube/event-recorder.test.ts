import pino from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ApiError, KubeEventRecorder, type KubeClient, type KubeObject } from './index.ts';
import { COMBINED_PREFIX } from './event-correlator.ts';
import { NOTE_MAX_BYTES, truncateNote } from './event-recorder.ts';

const log = pino({ level: 'silent' });
const CE = {
  apiVersion: 'olm.operatorframework.io/v1',
  kind: 'ClusterExtension',
  metadata: { name: 'argocd', uid: 'u-1', resourceVersion: '7' },
} satisfies KubeObject;

/** An in-memory events.k8s.io store: creates and merge patches, with failures on demand. */
function eventServer() {
  const events = new Map<string, KubeObject>();
  const calls: string[] = [];
  let fail: Error | undefined;
  const client: Pick<KubeClient, 'create' | 'patch'> = {
    create: async <T extends KubeObject>(obj: KubeObject) => {
      await Promise.resolve();
      calls.push(`create ${obj.metadata.namespace}/${obj.metadata.name}`);
      if (fail !== undefined) throw fail;
      const key = `${obj.metadata.namespace}/${obj.metadata.name}`;
      if (events.has(key)) throw new ApiError(409, 'AlreadyExists', 'exists');
      events.set(key, structuredClone(obj));
      return obj as T;
    },
    patch: async <T extends KubeObject>(ref: { namespace?: string | undefined; name: string }, patch: unknown) => {
      await Promise.resolve();
      const key = `${ref.namespace}/${ref.name}`;
      calls.push(`patch ${key} ${JSON.stringify(patch)}`);
      if (fail !== undefined) throw fail;
      const old = events.get(key);
      if (old === undefined) throw new ApiError(404, 'NotFound', 'not found');
      events.set(key, { ...old, ...(patch as object) });
      return old as T;
    },
  };
  return {
    client,
    events,
    calls,
    failWith(e: Error | undefined) {
      fail = e;
    },
  };
}

function recorder(server: ReturnType<typeof eventServer>, clock: { now: number }, registry?: Registry) {
  return new KubeEventRecorder({
    client: server.client,
    reportingController: 'olm.operatorframework.io/operator-controller',
    reportingInstance: 'pod-1',
    log,
    now: () => clock.now,
    ...(registry === undefined ? {} : { registry }),
  });
}

describe('KubeEventRecorder', () => {
  it('writes an events.k8s.io/v1 Event about a cluster-scoped object to namespace default', async () => {
    const server = eventServer();
    const rec = recorder(server, { now: Date.parse('2025-01-02T03:04:05.678Z') });
    rec.event(CE, 'Normal', 'Installed', 'Install', 'Installed bundle argocd.v1.0.0 (version 1.0.0)');
    await rec.settled();
    const [event] = [...server.events.values()];
    expect(event).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { namespace: 'default' },
      eventTime: '2025-01-02T03:04:05.678000Z',
      reportingController: 'olm.operatorframework.io/operator-controller',
      reportingInstance: 'pod-1',
      action: 'Install',
      reason: 'Installed',
      type: 'Normal',
      note: 'Installed bundle argocd.v1.0.0 (version 1.0.0)',
      regarding: { apiVersion: CE.apiVersion, kind: 'ClusterExtension', name: 'argocd', uid: 'u-1', resourceVersion: '7' },
    });
    expect(event?.metadata.name).toMatch(/^argocd\.[0-9a-f]+$/);
    expect(event).not.toHaveProperty('series');
  });

  it('folds repeats within 6 minutes into the series of one Event, and starts a new Event after a longer pause', async () => {
    const server = eventServer();
    const clock = { now: 1_000_000 };
    const rec = recorder(server, clock);
    rec.event(CE, 'Warning', 'ApplyFailed', 'Install', 'boom');
    // A burst while the create is in flight ends as one create and one PATCH with the final count.
    rec.event(CE, 'Warning', 'ApplyFailed', 'Install', 'boom');
    clock.now += 1000;
    rec.event(CE, 'Warning', 'ApplyFailed', 'Install', 'boom');
    await rec.settled();
    expect(server.events.size).toBe(1);
    expect(server.calls.filter((c) => c.startsWith('patch'))).toHaveLength(1);
    expect([...server.events.values()][0]).toMatchObject({
      series: { count: 3, lastObservedTime: new Date(1_001_000).toISOString().replace('Z', '000Z') },
    });

    clock.now += 5 * 60_000;
    rec.event(CE, 'Warning', 'ApplyFailed', 'Install', 'boom');
    await rec.settled();
    expect(server.events.size).toBe(1);
    expect([...server.events.values()][0]).toMatchObject({ series: { count: 4 } });

    clock.now += 6 * 60_000 + 1;
    rec.event(CE, 'Warning', 'ApplyFailed', 'Install', 'boom');
    await rec.settled();
    expect(server.events.size).toBe(2);
  });

  it('writes a different note, reason or object as its own Event', async () => {
    const server = eventServer();
    const rec = recorder(server, { now: 1 });
    rec.event(CE, 'Warning', 'ApplyFailed', 'Install', 'a');
    rec.event(CE, 'Warning', 'ApplyFailed', 'Install', 'b');
    rec.event(CE, 'Warning', 'PreflightFailed', 'Install', 'a');
    rec.event({ ...CE, metadata: { name: 'other', uid: 'u-2' } }, 'Warning', 'ApplyFailed', 'Install', 'a');
    await rec.settled();
    expect(server.events.size).toBe(4);
  });

  it('combines similar events once ten different notes were seen', async () => {
    const server = eventServer();
    const rec = recorder(server, { now: 1 });
    for (let i = 0; i < 15; i++) rec.event(CE, 'Warning', 'ApplyFailed', 'Install', `attempt ${i}`);
    await rec.settled();
    const notes = [...server.events.values()].map((e) => e.note as string);
    expect(notes).toHaveLength(10);
    const combined = [...server.events.values()].filter((e) => (e.note as string).startsWith(COMBINED_PREFIX));
    expect(combined).toHaveLength(1);
    expect(combined[0]).toMatchObject({ note: `${COMBINED_PREFIX}attempt 9`, series: { count: 6 } });
  });

  it('lets 25 events about one object through at once, then one per 5 minutes (repeats included)', async () => {
    const server = eventServer();
    const clock = { now: 1 };
    const registry = new Registry();
    const rec = recorder(server, clock, registry);
    for (let i = 0; i < 30; i++) rec.event(CE, 'Normal', 'Upgraded', 'Upgrade', `to ${i % 5}`);
    await rec.settled();
    const count = [...server.events.values()].reduce((n, e) => n + ((e.series as { count?: number } | undefined)?.count ?? 1), 0);
    expect(count).toBe(25);
    expect(await registry.getSingleMetricAsString('events_dropped_total')).toContain('events_dropped_total{cause="rate_limited"} 5');
    // Another object has a bucket of its own.
    rec.event({ ...CE, metadata: { name: 'b', uid: 'u-b' } }, 'Normal', 'Installed', 'Install', 'x');
    clock.now += 5 * 60_000;
    rec.event(CE, 'Normal', 'Installed', 'Install', 'refilled');
    rec.event(CE, 'Normal', 'Installed', 'Install', 'no token left');
    await rec.settled();
    const notes = [...server.events.values()].map((e) => e.note);
    expect(notes).toContain('x');
    expect(notes).toContain('refilled');
    expect(notes).not.toContain('no token left');
  });

  it('truncates notes to 1 KiB of UTF-8 on a character boundary', async () => {
    expect(truncateNote('short')).toBe('short');
    const long = 'é'.repeat(2000);
    const cut = truncateNote(long);
    expect(Buffer.byteLength(cut, 'utf8')).toBeLessThanOrEqual(NOTE_MAX_BYTES);
    expect(cut.endsWith('é...')).toBe(true);
    const server = eventServer();
    const rec = recorder(server, { now: 1 });
    rec.event(CE, 'Warning', 'ApplyFailed', 'Install', long);
    await rec.settled();
    expect([...server.events.values()][0]?.note).toBe(cut);
  });

  it('swallows write failures (counted), and re-creates a series whose Event is gone', async () => {
    const server = eventServer();
    const clock = { now: 1 };
    const registry = new Registry();
    const rec = recorder(server, clock, registry);
    server.failWith(new ApiError(403, 'Forbidden', 'forbidden'));
    expect(() => rec.event(CE, 'Warning', 'ApplyFailed', 'Install', 'x')).not.toThrow();
    await rec.settled();
    expect(server.events.size).toBe(0);
    expect(await registry.getSingleMetricAsString('events_dropped_total')).toContain('events_dropped_total{cause="write_failed"} 1');
    server.failWith(undefined);
    // The next repeat creates the Event, with the series so far.
    rec.event(CE, 'Warning', 'ApplyFailed', 'Install', 'x');
    await rec.settled();
    expect([...server.events.values()][0]).toMatchObject({ series: { count: 2 } });
    server.events.clear();
    rec.event(CE, 'Warning', 'ApplyFailed', 'Install', 'x');
    await rec.settled();
    expect([...server.events.values()][0]).toMatchObject({ series: { count: 3 } });
  });

  it('never throws, even on an object it cannot describe', () => {
    const server = eventServer();
    const rec = recorder(server, { now: 1 });
    expect(() => rec.event(null as unknown as KubeObject, 'Normal', 'X', 'Y', 'z')).not.toThrow();
  });
});
