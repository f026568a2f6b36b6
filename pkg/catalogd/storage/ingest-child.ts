/**
 * Child-process entry point of `createProcessIngest` (ingest.ts): loads the ingest code, waits for
 * one `IngestRequest` over IPC, ingests (a directory, or layer blobs on `LAYER_STREAM_FD`),
 * replies and exits. Idle past its argument (ms), or when the parent goes away, it exits.
 */
import { Socket } from 'node:net';
import { errorMessage, isLimitExceeded } from '../../shared/errors/index.ts';
import { chunksOf } from '../../shared/image/decompress.ts'; // not the index: see ingest-layers.ts
import { ImageLimitError } from '../../shared/image/limits.ts';
// The decoder is imported here, not on first use as ingestInProcess does: a spare process
// loads it while the pull it waits for runs.
import { ingestDirectory } from './ingest-directory.ts';
import { type IngestReply, type IngestRequest, LAYER_STREAM_FD } from './ingest.ts';
import { CatalogContentError } from './catalog-layers.ts';
import { ingestLayerBlobs, layerBudget } from './ingest-layers.ts';
import { splitBySizes } from './split-stream.ts';

const idleMs = Number(process.argv[2] ?? '0');
const idle = setTimeout(() => process.exit(0), Number.isFinite(idleMs) && idleMs > 0 ? idleMs : 60_000);
process.once('disconnect', () => process.exit(0));

async function handle(request: IngestRequest): Promise<IngestReply> {
  if (typeof request?.targetDir !== 'string') throw new Error('ingest request without targetDir');
  if (request.kind !== 'layers') {
    if (typeof request.fbcDir !== 'string') throw new Error('ingest request without fbcDir');
    return { ok: true, summary: await ingestDirectory(request.fbcDir, request.targetDir, request.limits) };
  }
  const socket = new Socket({ fd: LAYER_STREAM_FD, readable: true, writable: false });
  try {
    const blobs = splitBySizes(chunksOf(socket, 'catalog layer stream'), request.layerSizes);
    const layers = request.layerSizes.map((size, i) => ({ digest: request.image?.layerDigests[i], size }));
    const budget = layerBudget(request.image, layers);
    return { ok: true, summary: await ingestLayerBlobs(blobs, request.pathFilter, request.targetDir, request.limits, budget) };
  } finally {
    socket.destroy();
  }
}

process.once('message', (request: IngestRequest) => {
  clearTimeout(idle);
  void (async () => {
    let reply: IngestReply;
    try {
      reply = await handle(request);
    } catch (err) {
      reply = { ok: false, message: errorMessage(err), content: err instanceof CatalogContentError, limit: isLimitExceeded(err) };
      if (err instanceof ImageLimitError) reply.imageLimit = { image: err.image, layer: err.layer, kind: err.kind, limit: err.limit };
    }
    process.send?.(reply, () => process.disconnect());
  })();
});
