import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONTENT_FILES } from './content-writer.ts';
import type { ByteRange } from './meta-index.ts';
import { StoredVersion } from './stored-version.ts';

const INFO = { digest: 'sha256:00', ref: 'example.test/c@sha256:00', unpackedAt: '2026-11-22T00:00:00Z' };
// 300 KiB; totals up to 400 KiB, so reads fall on both sides of the 256 KiB synchronous-read bound.
const SIZE = 300 * 1024;

describe('StoredVersion.readRangesInto', () => {
  let dir: string;
  let content: Buffer;
  let version: StoredVersion;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stored-version-'));
    content = Buffer.alloc(SIZE);
    for (let i = 0; i < SIZE; i++) content[i] = (i * 7 + (i >> 9)) & 0xff;
    await writeFile(join(dir, CONTENT_FILES.jsonl), content);
    await writeFile(join(dir, CONTENT_FILES.gzip), content.subarray(0, 1000));
    version = await StoredVersion.load('c', dir, 'v', INFO);
  });
  afterEach(async () => {
    await version.close();
    await rm(dir, { recursive: true, force: true });
  });

  // Into a buffer of exactly `total` bytes, as the server's small answers are read.
  const readWhole = (file: 'jsonl' | 'gzip', ranges: ByteRange[], total: number): Promise<Buffer> =>
    version.readRangesInto(file, ranges, Buffer.alloc(total), 0);

  const rangesArb = fc.array(
    fc
      .integer({ min: 0, max: SIZE - 1 })
      .chain((offset) => fc.record({ offset: fc.constant(offset), length: fc.integer({ min: 1, max: Math.min(SIZE - offset, 100 * 1024) }) })),
    { minLength: 1, maxLength: 4 },
  );

  it('returns exactly the bytes of the ranges, in order, for small and large totals', async () => {
    await fc.assert(
      fc.asyncProperty(rangesArb, async (ranges: ByteRange[]) => {
        const total = ranges.reduce((n, r) => n + r.length, 0);
        const got = await readWhole('jsonl', ranges, total);
        const want = Buffer.concat(ranges.map((r) => content.subarray(r.offset, r.offset + r.length)));
        expect(got.equals(want)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('reads the gzip file when asked', async () => {
    const got = await readWhole('gzip', [{ offset: 10, length: 20 }], 20);
    expect(got.equals(content.subarray(10, 30))).toBe(true);
  });

  it('rejects, naming the catalog, when the file is shorter than the index says (small and large reads)', async () => {
    await truncate(join(dir, CONTENT_FILES.jsonl), 1000);
    await expect(readWhole('jsonl', [{ offset: 900, length: 200 }], 200)).rejects.toThrow('catalog c: content ended before byte 1000');
    await expect(readWhole('jsonl', [{ offset: 0, length: 100_000 }], 100_000)).rejects.toThrow('catalog c: content ended before byte 1000');
  });

  it('rejects ranges that add up to more than the total', async () => {
    await expect(readWhole('jsonl', [{ offset: 0, length: 10 }], 5)).rejects.toThrow('ranges exceed 5 bytes');
  });

  it('still reads after close (the version was retired while a query was in flight)', async () => {
    await readWhole('jsonl', [{ offset: 0, length: 10 }], 10);
    await version.close();
    const got = await readWhole('jsonl', [{ offset: 5, length: 10 }], 10);
    expect(got.equals(content.subarray(5, 15))).toBe(true);
  });
});
