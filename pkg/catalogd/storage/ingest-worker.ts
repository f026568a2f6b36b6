/**
 * Worker-thread entry point for `createWorkerIngest` (ingest.ts): ingests `workerData.fbcDir`
 * into `workerData.targetDir` and posts `{ ok, summary }` or `{ ok: false, message }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { errorMessage } from '../../errors/index.ts';
import { ingestInProcess } from './ingest.ts';

const { fbcDir, targetDir } = workerData as { fbcDir: string; targetDir: string };

try {
  const summary = await ingestInProcess(fbcDir, targetDir);
  parentPort?.postMessage({ ok: true, summary });
} catch (err) {
  parentPort?.postMessage({ ok: false, message: errorMessage(err) });
}
