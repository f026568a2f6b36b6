/** What HealthServer's main thread and its probe worker (health-worker.ts) exchange. */

/** The worker's `workerData`. */
export interface HealthWorkerData {
  port: number;
  host: string;
  /** Serve HTTPS with this certificate and key (PEM). */
  tls: { cert: string; key: string } | undefined;
  /** `/metrics` is forwarded to the main thread; without, it is not found. */
  metrics: boolean;
  /** One BigInt64 the main thread keeps at `process.hrtime.bigint()` (ns) while its event loop turns. */
  heartbeat: SharedArrayBuffer;
  /** `/healthz` fails once the heartbeat is older than this (ms). */
  stallLimitMs: number;
  /** A forwarded request the main thread has not answered in this long is answered 500 (ms). */
  forwardTimeoutMs: number;
  /** Listen with SO_REUSEPORT: the main thread holds the same port until the worker listens. */
  reusePort: boolean;
}

/** Worker → main thread. */
export type FromWorker =
  | { kind: 'listening'; port: number }
  | { kind: 'listen-failed'; message: string; code: string | undefined }
  | { kind: 'forward'; id: number; path: '/readyz' | '/metrics'; verbose: boolean }
  | { kind: 'failed'; message: string; url: string | undefined };

/** Main thread → worker: the answer to forward `id`. */
export interface Answer {
  kind: 'answer';
  id: number;
  status: number;
  contentType: string;
  body: string;
}
