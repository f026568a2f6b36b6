/**
 * Child-process entry point of `createProcessIngest` (ingest.ts): ingests the FBC directory
 * `argv[2]` into `argv[3]`, reports `{ ok, summary }` or `{ ok: false, message }` over the IPC
 * channel, and exits. Its memory is returned to the system when it exits.
 */
import { errorMessage } from '../../errors/index.ts';
import { ingestInProcess } from './ingest.ts';

const [fbcDir, targetDir] = process.argv.slice(2);
let reply: { ok: boolean; summary?: unknown; message?: string };
try {
  if (fbcDir === undefined || targetDir === undefined) throw new Error('usage: ingest-child FBC_DIR TARGET_DIR');
  reply = { ok: true, summary: await ingestInProcess(fbcDir, targetDir) };
} catch (err) {
  reply = { ok: false, message: errorMessage(err) };
}
process.send?.(reply, () => process.disconnect());
