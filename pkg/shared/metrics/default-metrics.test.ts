import * as promClient from 'prom-client';
import { describe, expect, it } from 'vitest';
import { Registry, collectDefaultMetrics } from './index.ts';

const shape = async (registry: promClient.Registry): Promise<string[]> =>
  (await registry.getMetricsAsJSON()).map((m) => `${m.name} ${m.type} ${m.help}`);

describe('collectDefaultMetrics', () => {
  it("registers prom-client's default metrics, in its order, with its types and help", async () => {
    const theirs = new promClient.Registry();
    promClient.collectDefaultMetrics({ register: theirs, eventLoopMonitoringPrecision: 1000 });
    const ours = new Registry();
    collectDefaultMetrics(ours, { eventLoopMonitoringPrecision: 1000 });
    expect(await shape(ours)).toEqual(await shape(theirs));
  });

  it('counts the process CPU time, the total as user plus system, on every collection', async () => {
    const registry = new Registry();
    collectDefaultMetrics(registry);
    const value = async (name: string): Promise<number> => (await registry.getSingleMetric(name)!.get()).values[0]?.value ?? 0;
    const first = await registry.getMetricsAsJSON();
    const at = (name: string): number => first.find((m) => m.name === name)!.values[0]!.value;
    expect(at('process_cpu_seconds_total')).toBeCloseTo(at('process_cpu_user_seconds_total') + at('process_cpu_system_seconds_total'), 9);
    const before = at('process_cpu_seconds_total');
    const until = Date.now() + 30;
    while (Date.now() < until); // CPU time to count
    await registry.metrics();
    expect(await value('process_cpu_seconds_total')).toBeGreaterThan(before);
  });
});
