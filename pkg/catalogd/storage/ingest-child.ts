/**
 * Child-process entry point of `createProcessIngest` (ingest.ts). Started with the idle limit
 * in ms as its argument, it loads the ingest code, then waits for one `IngestRequest` over the
 * IPC channel, ingests, replies `{ ok, summary }` or `{ ok: false, message }` and exits. Its
 * memory is returned to the system when it exits. Without a request within the idle limit, or
 * when the parent goes away, it exits.
 */
import { errorMessage } from '../../errors/index.ts';
import { type IngestRequest, ingestInProcess } from './ingest.ts';

const idleMs = Number(process.argv[2] ?? '0');
const idle = setTimeout(() => process.exit(0), Number.isFinite(idleMs) && idleMs > 0 ? idleMs : 60_000);
process.once('disconnect', () => process.exit(0));

process.once('message', (request: IngestRequest) => {
  clearTimeout(idle);
  void (async () => {
    let reply: { ok: boolean; summary?: unknown; message?: string };
    try {
      if (typeof request?.fbcDir !== 'string' || typeof request.targetDir !== 'string') throw new Error('ingest request without fbcDir and targetDir');
      reply = { ok: true, summary: await ingestInProcess(request.fbcDir, request.targetDir) };
    } catch (err) {
      reply = { ok: false, message: errorMessage(err) };
    }
    process.send?.(reply, () => process.disconnect());
  })();
});
