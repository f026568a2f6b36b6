import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { findCondition } from '../../shared/api/index.ts';
import { extensionState } from '../../../test/support/extension-state.ts';
import type { ReleaseHealth } from './health.ts';
import { ExtensionHealthGauge, healthStep, type HealthPorts } from './steps-health.ts';

async function samples(registry: Registry): Promise<Record<string, number>> {
  const values = (await registry.getSingleMetric('olmv1_extension_healthy')?.get())?.values ?? [];
  return Object.fromEntries(values.map((v) => [String(v.labels['name']), v.value]));
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
    const state = extensionState();
    const ports = { drift: { health: () => health }, gauge: metric } satisfies HealthPorts;
    expect(await healthStep(ports).run(state)).toBeUndefined();
    expect(findCondition(state.ce.status?.conditions, 'Healthy')).toMatchObject({ ...want, observedGeneration: 1 });
    expect(await samples(registry)).toEqual({ ...gauge, other: 0 });
    metric.forget('ext');
    expect(await samples(registry)).toEqual({ other: 0 });
    metric.reset();
    expect(await samples(registry)).toEqual({});
  });
});
