/**
 * controller-runtime's per-controller metric families, bound to one `controller` label.
 */
import type { Registry } from 'prom-client';
import { counterOn, gaugeOn, histogramOn } from '../kube/index.ts';

/** Metric children of one controller. */
export type ControllerMetrics = ReturnType<typeof controllerMetrics>;

// controller-runtime's reconcile_time_seconds buckets: fine below 1 s, coarse up to a minute.
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5,
  5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/** Registers (or finds) the `controller_runtime_*` families on `registry`, bound to `controller`. */
export function controllerMetrics(registry: Registry, controller: string) {
  const total = counterOn(registry, 'controller_runtime_reconcile_total', 'Reconciles per controller, by result.', ['controller', 'result']);
  return {
    total: { inc: (l: { result: 'success' | 'error' | 'requeue' | 'requeue_after' }) => total.inc({ controller, result: l.result }) },
    errors: counterOn(registry, 'controller_runtime_reconcile_errors_total', 'Reconciles that returned an error.', ['controller']).labels(controller),
    terminalErrors: counterOn(
      registry,
      'controller_runtime_terminal_reconcile_errors_total',
      'Reconciles that returned a terminal (not retried) error.',
      ['controller'],
    ).labels(controller),
    panics: counterOn(registry, 'controller_runtime_reconcile_panics_total', 'Reconciles that failed with a programming error.', [
      'controller',
    ]).labels(controller),
    duration: histogramOn(registry, 'controller_runtime_reconcile_time_seconds', 'Seconds per reconcile.', ['controller'], RECONCILE_BUCKETS).labels(
      controller,
    ),
    activeWorkers: gaugeOn(registry, 'controller_runtime_active_workers', 'Workers currently reconciling.', ['controller']).labels(controller),
    maxConcurrent: gaugeOn(registry, 'controller_runtime_max_concurrent_reconciles', 'Configured number of workers.', ['controller']).labels(
      controller,
    ),
  };
}
