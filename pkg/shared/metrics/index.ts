/**
 * prom-client's Registry and metric classes, loaded from the library's own files rather than
 * its index (decision 0097). The index also loads the default process metrics (and with them
 * @opentelemetry/api), Summary, Pushgateway and the cluster aggregator: about 25 ms of CPU
 * that a start-up path serving before it needs them does not pay; `collectDefaultMetrics`
 * comes from the index where a component loads its control part. The classes are the ones
 * the index exports (Node's module cache holds each file once), so instances mix freely with
 * code that imports 'prom-client'; the types are the index's.
 */
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';

const load = createRequire(import.meta.url);

export type Registry = PromClient.Registry;
export type Counter<L extends string = string> = PromClient.Counter<L>;
export type Gauge<L extends string = string> = PromClient.Gauge<L>;
export type Histogram<L extends string = string> = PromClient.Histogram<L>;

export const Registry = load('prom-client/lib/registry') as typeof PromClient.Registry;
export const Counter = load('prom-client/lib/counter') as typeof PromClient.Counter;
export const Gauge = load('prom-client/lib/gauge') as typeof PromClient.Gauge;
export const Histogram = load('prom-client/lib/histogram') as typeof PromClient.Histogram;

export { collectDefaultMetrics } from './default-metrics.ts';
