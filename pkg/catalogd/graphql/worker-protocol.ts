/** The messages between catalogd's main thread and a query worker (query-workers.ts, execute-worker.ts). */
import type { CatalogShape } from './discovery.ts';

/** Main thread → worker: run one query; the worker runs one at a time. */
export interface RunQuery {
  kind: 'query';
  /** The stored version's number in this catalogd: the worker keeps the schemas of the last few. */
  key: number;
  shape: CatalogShape;
  query: string;
  variables: Record<string, unknown> | undefined;
  operationName: string | undefined;
  maxAnswerBytes: number;
}

/** Main thread → worker: the blobs a `load` asked for, one after another in `bytes`. */
interface Loaded {
  kind: 'loaded';
  id: number;
  bytes: Uint8Array;
  lengths: number[];
}

/** Worker → main thread: read the objects of `schema` from `offset` on, at most `limit`. */
export interface Load {
  kind: 'load';
  id: number;
  schema: string;
  offset: number;
  limit: number;
}

/** Worker → main thread: the query's answer, as the HTTP body. */
interface Answered {
  kind: 'answer';
  answer: string;
}

export type ToWorker = RunQuery | Loaded;
export type FromWorker = Load | Answered;
