/**
 * Layers that are small compressed and huge decompressed, for the image caps' tests
 * (pkg/shared/image limits.ts): gzip streams of concatenated members, so that a GiB of zeros costs
 * ~1 MB and no GiB is ever held in memory to build it.
 */
import { gzipSync } from 'node:zlib';
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
