import { randomBytes } from 'node:crypto';
import { gzipSync, zstdCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decompress, detectCompression } from './decompress.ts';

/** Compressible data with some entropy, like a catalog: JSON-ish text with base64 runs. */
function sample(bytes: number): Buffer {
  const parts: Buffer[] = [];
  let n = 0;
  while (n < bytes) {
    const part = Buffer.from(`{"schema":"olm.bundle","name":"op.v${n}","icon":"${randomBytes(96).toString('base64')}"}\n`);
    parts.push(part);
    n += part.length;
  }
  return Buffer.concat(parts).subarray(0, bytes);
}

async function* chunked(data: Buffer, size: number, onEnd?: () => void): AsyncGenerator<Buffer> {
  try {
    for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
  } finally {
    onEnd?.();
  }
}

async function collect(source: AsyncIterable<Buffer>, slow = false): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const chunk of source) {
    out.push(chunk);
    // A consumer slower than the inflater (as file writes are) lets its output pile up.
    if (slow) await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return out;
}

describe('decompress', () => {
  it.each([
    ['gzip', gzipSync],
    ['zstd', zstdCompressSync],
  ] as const)('inflates %s by sniffing and hands on the inflater chunks without joining them', async (kind, compress) => {
    const data = sample(1 << 20);
    const blob = compress(data);
    expect(detectCompression(blob)).toBe(kind);
    const chunks = await collect(decompress(chunked(blob, 64 * 1024)), true);
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
    // zlib's output buffers are 16 KiB (zstd's 16 KiB too); a Readable's own iterator would
    // join whatever was buffered into larger fresh buffers.
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThanOrEqual(16 * 1024);
  });

  it('passes an uncompressed tar through unchanged', async () => {
    const data = sample(200_000);
    expect(Buffer.concat(await collect(decompress(chunked(data, 1000)))).equals(data)).toBe(true);
  });

  it('fails a truncated gzip stream', async () => {
    const blob = gzipSync(sample(1 << 20));
    await expect(collect(decompress(chunked(blob.subarray(0, blob.length - 100), 8192)))).rejects.toThrow(/unexpected end of file/);
  });

  it('fails a corrupt gzip stream with the inflater error', async () => {
    const blob = gzipSync(sample(1 << 20));
    blob.fill(0x55, 1000, 2000);
    await expect(collect(decompress(chunked(blob, 8192)))).rejects.toThrow();
  });

  it('rejects bzip2 and xz with a clear error', async () => {
    await expect(collect(decompress(chunked(Buffer.from('BZh91AY&SY'), 4)))).rejects.toThrow('unsupported layer compression: bzip2');
  });
});
