/**
 * Layers that are small compressed and huge decompressed, for the image caps' tests
 * (pkg/shared/image limits.ts): gzip streams of concatenated members, so that a GiB of zeros costs
 * ~1 MB and no GiB is ever held in memory to build it. The same zeros as bare gzip payloads,
 * for the bounded decoders of release records and catalog bodies.
 */
import { once } from 'node:events';
import { constants, createGzip, gzipSync } from 'node:zlib';
import { type BuiltLayer, rawLayer, tarHeaderBlock } from '../../pkg/shared/image/index.ts';

const CHUNK = 16 << 20;
let zeroMember: Buffer | undefined;

// gzip members that inflate to `size` zero bytes (16 MiB of zeros compress to ~16 KB).
function zeroMembers(size: number): Buffer[] {
  zeroMember ??= gzipSync(Buffer.alloc(CHUNK));
  const out: Buffer[] = Array<Buffer>(Math.floor(size / CHUNK)).fill(zeroMember);
  if (size % CHUNK > 0) out.push(gzipSync(Buffer.alloc(size % CHUNK)));
  return out;
}

/** A gzip layer of `size` zero bytes: an empty tar (its end marker) followed by zeros. */
export function zeroLayer(size: number): BuiltLayer {
  return rawLayer(Buffer.concat(zeroMembers(size)));
}

/** A gzip layer whose tar holds one regular file `path` of `size` zero bytes (the header declares the size up front). */
export function zeroFileLayer(path: string, size: number): BuiltLayer {
  const header = gzipSync(tarHeaderBlock({ name: path, typeflag: '0', size }));
  const padding = (512 - (size % 512)) % 512;
  return rawLayer(Buffer.concat([header, ...zeroMembers(size + padding + 1024)]));
}

/**
 * `size` zero bytes as gzip members of 16 MiB (the last one shorter), concatenated: ~1 KB per
 * MiB, built in a fraction of the time one member takes. The trailer of the last member states
 * only its own size, so reading the trailer tells nothing of the whole.
 */
export function zeroGzip(size: number): Buffer {
  return Buffer.concat(zeroMembers(size));
}

/**
 * `size` zero bytes as one gzip member at level 9, as a writer that compresses one document
 * produces it: zeros streamed through the compressor 1 MiB at a time (a GiB costs ~1 MB and a
 * few seconds), never held inflated.
 */
export async function zeroGzipMember(size: number): Promise<Buffer> {
  const gz = createGzip({ level: constants.Z_BEST_COMPRESSION });
  const out: Buffer[] = [];
  gz.on('data', (b: Buffer) => out.push(b));
  const done = once(gz, 'end');
  const piece = Buffer.alloc(1 << 20);
  for (let left = size; left > 0; left -= piece.length) {
    if (!gz.write(left >= piece.length ? piece : piece.subarray(0, left))) await once(gz, 'drain');
  }
  gz.end();
  await done;
  return Buffer.concat(out);
}
