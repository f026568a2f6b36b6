/**
 * HealthServer's probe port, served on a worker thread with its own event loop (decision 0136):
 * `/healthz` is answered here at once, however long the main thread is busy, and fails only when
 * the main thread's heartbeat is older than the stall limit (a wedged event loop). `/readyz` and
 * `/metrics` need the main thread's state: they are forwarded to it and answered 500 when it
 * does not answer in time. This module loads nothing but Node's built-ins and small modules of its own.
 */
import type * as NodeHttp from 'node:http';
import type * as NodeHttps from 'node:https';
import type { MessagePort } from 'node:worker_threads';
import { parentPort, workerData } from 'node:worker_threads';
import { errorMessage, isErrno } from '../errors/index.ts';
import type { Answer, FromWorker, HealthWorkerData } from './health-protocol.ts';
import { probeListener } from './health-answer.ts';
import { type ProbeAnswer, reportLine, seconds } from './health-report.ts';
import { listen } from './listening.ts';

const TEXT = 'text/plain; charset=utf-8';

function serve(port: MessagePort, data: HealthWorkerData): void {
  const post = (msg: FromWorker): void => port.postMessage(msg);
  const heartbeat = new BigInt64Array(data.heartbeat);
  const pending = new Map<number, (answer: Answer) => void>();
  let nextId = 0;

  const eventLoop = (): true | string => {
    const ageMs = Number(process.hrtime.bigint() - Atomics.load(heartbeat, 0)) / 1e6;
    if (ageMs <= data.stallLimitMs) return true;
    return `no heartbeat from the event loop for ${seconds(ageMs)} (limit ${seconds(data.stallLimitMs, 3)})`;
  };

  const late = `the main thread did not answer within ${seconds(data.forwardTimeoutMs, 3)}`;
  const forward = (path: '/readyz' | '/metrics', verbose: boolean): Promise<ProbeAnswer & { contentType: string }> =>
    new Promise((resolve) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        const line = reportLine('event-loop', late);
        resolve({ status: 500, contentType: TEXT, body: path === '/readyz' ? `${line}readyz check failed\n` : line });
      }, data.forwardTimeoutMs);
      pending.set(id, (answer) => {
        clearTimeout(timer);
        pending.delete(id);
        resolve(answer);
      });
      post({ kind: 'forward', id, path, verbose });
    });

  const handle = probeListener({
    eventLoop,
    metrics: data.metrics,
    answer: forward,
    failed: (message, url) => post({ kind: 'failed', message, url }),
  });

  port.on('message', (msg: Answer) => pending.get(msg.id)?.(msg));

  const server =
    data.tls === undefined
      ? (process.getBuiltinModule('node:http') as typeof NodeHttp).createServer(handle)
      : (process.getBuiltinModule('node:https') as typeof NodeHttps).createServer({ cert: data.tls.cert, key: data.tls.key }, handle);
  listen(server, data.port, data.host, { reusePort: data.reusePort }).then(
    () => {
      const address = server.address();
      post({ kind: 'listening', port: typeof address === 'object' && address !== null ? address.port : data.port });
    },
    (err: unknown) => post({ kind: 'listen-failed', message: errorMessage(err), code: isErrno(err) ? err.code : undefined }),
  );
}

if (parentPort === null) throw new Error('health-worker.ts runs in a worker thread');
serve(parentPort, workerData as HealthWorkerData);
