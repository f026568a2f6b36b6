/**
 * prom-client's default process metrics (its `collectDefaultMetrics`) from the library's own
 * metric files, without @opentelemetry/api: prom-client's process CPU counters load it at
 * require time for exemplars, which this project never enables, and it is 51 modules (~20 ms
 * of CPU) before operator-controller is ready (decision 0097). The process CPU counters are
 * made here the same way, with prom-client's names, help and values; the other metrics are
 * prom-client's own files, in its order, so a scrape shows what the index's function shows.
 */
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';

const load = createRequire(import.meta.url);
// The index's class (Node's module cache holds the file once); not imported from the index, which re-exports this file.
const Counter = load('prom-client/lib/counter') as typeof PromClient.Counter;
type Registry = PromClient.Registry;

type DefaultMetric = (registry: Registry, config: { eventLoopMonitoringPrecision: number }) => void;

/** prom-client's list after its process CPU counters (lib/defaultMetrics.js), by file. */
const PROM_CLIENT_METRICS = [
  'processStartTime',
  'osMemoryHeap',
  'processOpenFileDescriptors',
  'processMaxFileDescriptors',
  'eventLoopLag',
  'processResources',
  'processHandles',
  'processRequests',
  'heapSizeAndUsed',
  'heapSpacesSizeAndUsed',
  'version',
  'gc',
] as const;

/**
 * Sampling period of the event loop lag histogram (`nodejs_eventloop_lag_*`), in ms, unless
 * told otherwise: prom-client's 10 ms is a hundred wake-ups a second, whose timer alone cost
 * several times upstream's whole process at rest (bench/results/idle.md), and an idle process is
 * charged per wake-up (bench/results/runtimes.md, 2026-11-29 15:10). A stall of 5 s or more
 * always shows; a shorter one in proportion to its length.
 */
const EVENT_LOOP_SAMPLE_MS = 5_000;

/** The default metrics' options this project sets. */
interface DefaultMetricsOptions {
  /** Sampling period of the event loop lag histogram, in ms (default EVENT_LOOP_SAMPLE_MS; prom-client's 10). */
  eventLoopMonitoringPrecision?: number;
}

/** Registers prom-client's default process metrics in `registry` (as its `collectDefaultMetrics({ register })`). */
export function collectDefaultMetrics(registry: Registry, options: DefaultMetricsOptions = {}): void {
  const config = { eventLoopMonitoringPrecision: options.eventLoopMonitoringPrecision ?? EVENT_LOOP_SAMPLE_MS };
  processCpuTotal(registry);
  for (const name of PROM_CLIENT_METRICS) {
    const metric = load(`prom-client/lib/metrics/${name}`) as DefaultMetric;
    metric(registry, config);
  }
}

/** process_cpu_{user,system,}_seconds_total, as prom-client's lib/metrics/processCpuTotal.js without exemplars. */
function processCpuTotal(registry: Registry): void {
  const registers = [registry];
  let last = process.cpuUsage();
  // As in prom-client, the first counter registered (so collected first) sets all three.
  new Counter({
    name: 'process_cpu_user_seconds_total',
    help: 'Total user CPU time spent in seconds.',
    registers,
    collect() {
      const now = process.cpuUsage();
      const user = now.user - last.user;
      const sys = now.system - last.system;
      last = now;
      this.inc(user / 1e6);
      system.inc(sys / 1e6);
      total.inc((user + sys) / 1e6);
    },
  });
  const system = new Counter({ name: 'process_cpu_system_seconds_total', help: 'Total system CPU time spent in seconds.', registers });
  const total = new Counter({ name: 'process_cpu_seconds_total', help: 'Total user and system CPU time spent in seconds.', registers });
}
