import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { findCondition } from '../../shared/api/index.ts';
import { extensionState } from '../../../test/support/extension-state.ts';
import type { ReleaseHealth } from '../drift/index.ts';
import { ExtensionHealthGauge } from '../drift/index.ts';
import { healthStep, type HealthPorts } from './steps-health.ts';

async function samples(registry: Registry): Promise<Record<string, number>> {
  const values = (await registry.getSingleMetric('olmv1_extension_healthy')?.get())?.values ?? [];
  return Object.fromEntries(values.map((v) => [String(v.labels['name']), v.value]));
}

/** A reconcile of an extension with a deployed revision (status.install set). */
function installed(): ReturnType<typeof extensionState> {
  const state = extensionState();
  state.ce.status = { install: { bundle: { name: 'p.v1.0.0', version: '1.0.0' } } };
  return state;
}

describe('health step', () => {
  const ready = { ready: true as const };
  const cases: [string, ReleaseHealth, { status: string; reason: string; message: string }, Record<string, number>][] = [
    [
      'not listed yet',
      { observed: false },
      { status: 'Unknown', reason: 'NotObserved', message: "The release's objects have not been listed yet" },
      {},
    ],
    [
      'all available',
      { observed: true, objects: [{ object: 'Deployment ns/d', health: ready }] },
      { status: 'True', reason: 'Healthy', message: 'All available: 1 Deployment' },
      { ext: 1 },
    ],
    [
      'one not available',
      { observed: true, objects: [{ object: 'Deployment ns/d', health: { ready: false, why: 'not found' } }] },
      { status: 'False', reason: 'Unhealthy', message: 'Deployment ns/d: not found' },
      { ext: 0 },
    ],
  ];
  it.each(cases)('%s: sets Healthy and the gauge from the watches, and continues', async (_name, health, want, gauge) => {
    const registry = new Registry();
    const metric = new ExtensionHealthGauge(registry);
    metric.set('ext', 'True');
    metric.set('other', 'False');
    const state = installed();
    const ports = { drift: { health: () => health }, gauge: metric } satisfies HealthPorts;
    expect(await healthStep(ports).run(state)).toBeUndefined();
    expect(findCondition(state.ce.status?.conditions, 'Healthy')).toMatchObject({ ...want, observedGeneration: 1 });
    expect(await samples(registry)).toEqual({ ...gauge, other: 0 });
    metric.forget('ext');
    expect(await samples(registry)).toEqual({ other: 0 });
    metric.reset();
    expect(await samples(registry)).toEqual({});
  });

  it('runs even after a failed step, and reports nothing when nothing is deployed or the extension is being deleted', async () => {
    const registry = new Registry();
    const ports = {
      drift: { health: () => ({ observed: false }) as ReleaseHealth },
      gauge: new ExtensionHealthGauge(registry),
    } satisfies HealthPorts;
    expect(healthStep(ports).always).toBe(true);
    const fresh = extensionState();
    await healthStep(ports).run(fresh);
    expect(findCondition(fresh.ce.status?.conditions, 'Healthy')).toBeUndefined();
    const deleting = installed();
    deleting.ce.metadata.deletionTimestamp = '2026-11-24T00:00:00Z';
    await healthStep(ports).run(deleting);
    expect(findCondition(deleting.ce.status?.conditions, 'Healthy')).toBeUndefined();
    expect(await samples(registry)).toEqual({});
  });
});
