/**
 * The client-go workqueue metric families (as controller-runtime registers them), bound to
 * one queue's `name` label.
 */
import type { Registry } from 'prom-client';
import { counterOn, exponentialBuckets, gaugeOn, histogramOn } from '../kube/index.ts';

/** Metric children of one queue. */
export type WorkQueueMetrics = ReturnType<typeof workQueueMetrics>;

// 10 ns .. 1000 s, as client-go's workqueue histograms.
const DURATION_BUCKETS = exponentialBuckets(10e-9, 10, 12);

/** Registers (or finds) the `workqueue_*` families on `registry` and binds them to `name`. */
export function workQueueMetrics(registry: Registry, name: string) {
  const labels = ['name'] as const;
  return {
    depth: gaugeOn(registry, 'workqueue_depth', 'Keys waiting in the queue.', labels).labels(name),
    adds: counterOn(registry, 'workqueue_adds_total', 'Keys added to the queue (duplicates of queued keys not counted).', labels).labels(name),
    retries: counterOn(registry, 'workqueue_retries_total', 'Delayed (rate-limited or timed) adds.', labels).labels(name),
    queueDuration: histogramOn(
      registry,
      'workqueue_queue_duration_seconds',
      'Seconds a key waited in the queue before a worker took it.',
      labels,
      DURATION_BUCKETS,
    ).labels(name),
    workDuration: histogramOn(registry, 'workqueue_work_duration_seconds', 'Seconds a worker spent on a key.', labels, DURATION_BUCKETS).labels(name),
    unfinished: gaugeOn(registry, 'workqueue_unfinished_work_seconds', 'Seconds spent so far on keys still being processed.', labels).labels(name),
    longest: gaugeOn(
      registry,
      'workqueue_longest_running_processor_seconds',
      'Seconds the longest-running in-flight key has been processed.',
      labels,
    ).labels(name),
  };
}
