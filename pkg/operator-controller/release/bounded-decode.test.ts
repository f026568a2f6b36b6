// What a release record's payload may decompress to is bounded (codec.ts MAX_RECORD_JSON_BYTES,
// ReleaseStoreOptions.maxRecordBytes): a gzip bomb in a record's Secrets is reported as that
// record being corrupt, costs at most the bound in memory, and deletes nothing; records within
// the bound read as before.
import { describe, expect, it } from 'vitest';
import { fakeSecrets, type SecretStore } from '../../../test/support/fake-secrets.ts';
import { zeroGzip, zeroGzipMember } from '../../../test/support/image-bombs.ts';
import { upstreamRecordOf } from '../../../test/support/upstream-release-records.ts';
import { decodeRelease, decodeReleaseSummary } from './codec.ts';
import { MAX_RECORD_JSON_BYTES, createReleaseStore, encodeRelease, releaseJson, type Release } from './index.ts';
import { Manifest } from './manifest.ts';
import { compareManifestsByObjects } from '../../../test/support/manifest-equality.ts';

compareManifestsByObjects();

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const WHERE = 'Secret "olmv1-system/sh.helm.release.v1.bomb.v1"';

function release(): Release {
  return {
    extension: 'bomb',
    extensionUID: 'ce-uid',
    revision: 1,
    status: 'deployed',
    bundle: { package: 'bomb', name: 'bomb.v1.0.0', version: '1.0.0', image: 'quay.io/bomb/b@sha256:00' },
    manifest: Manifest.ofObjects([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'bomb' }, data: { a: 'b' } }]),
    properties: [],
    description: 'Install complete',
  };
}

/** A compressed size as the messages write it (these are never a whole number of units). */
const sizeText = (n: number): string => (n >= MiB ? `${(n / MiB).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`);

/** Resident memory this process ever reached, in bytes (ru_maxrss). */
const peakRss = (): number => process.resourceUsage().maxRSS * 1024;

/** The error `run` rejects with and how much the process's resident peak grew while it ran. */
async function failureAndGrowth(run: () => Promise<unknown>): Promise<{ message: string; grewBy: number }> {
  const before = peakRss();
  const failure = await run().then(
    () => new Error('decoded'),
    (e: unknown) => e as Error,
  );
  return { message: failure.message, grewBy: peakRss() - before };
}

describe('decoding a release record within a bound', () => {
  // First in the file: the resident peak is the process's, and nothing before it has raised it.
  it('reports one gzip member of 256 MiB of zeros as a corrupt record from its trailer, inflating nothing (the bound is 64 MiB by default)', async () => {
    expect(MAX_RECORD_JSON_BYTES).toBe(64 * MiB);
    const bomb = await zeroGzipMember(256 * MiB);
    const size = sizeText(bomb.length);
    const { message, grewBy } = await failureAndGrowth(() => decodeRelease(bomb, WHERE));
    expect(message).toBe(`release record ${WHERE} is corrupt: its payload decompresses to more than 64 MiB (${size} compressed)`);
    // Inflated whole, it held 256 MiB of Buffers, their copy and 256 MiB of text at once; up to
    // the bound, 64 MiB of Buffers. Its trailer states 256 MiB: nothing is inflated.
    expect(grewBy).toBeLessThan(16 * MiB);
  });

  it('bounds what concatenated members inflate to, whatever the last trailer states, for whole records and summaries', async () => {
    // 1 GiB in 16 MiB members: the last trailer states 16 MiB.
    const bomb = zeroGzip(1 * GiB);
    expect(bomb.readUInt32LE(bomb.length - 4)).toBe(16 * MiB);
    const size = sizeText(bomb.length);
    for (const decode of [() => decodeRelease(bomb, WHERE), () => decodeReleaseSummary(bomb, WHERE)]) {
      const { message, grewBy } = await failureAndGrowth(decode);
      expect(message).toBe(`release record ${WHERE} is corrupt: its payload decompresses to more than 64 MiB (${size} compressed)`);
      expect(grewBy).toBeLessThan(160 * MiB);
    }
  });

  it('reads a record of exactly the bound as before, and one byte less is over it', async () => {
    const payload = await encodeRelease(release());
    const length = Buffer.byteLength(releaseJson(release()));
    expect(await decodeRelease(payload, WHERE, 'ce-uid', undefined, length)).toEqual(release());
    const { manifest: _objects, ...summary } = release();
    expect(await decodeReleaseSummary(payload, WHERE, 'ce-uid', length)).toEqual(summary);
    await expect(decodeRelease(payload, WHERE, 'ce-uid', undefined, length - 1)).rejects.toThrow(
      `release record ${WHERE} is corrupt: its payload decompresses to more than ${length - 1} bytes (${payload.length} bytes compressed)`,
    );
  });

  it('still says when a payload is not gzip at all', async () => {
    await expect(decodeRelease(Buffer.from('plain'), WHERE)).rejects.toThrow(
      `release record ${WHERE} is corrupt: decompressing the payload failed: incorrect header check`,
    );
  });
});

describe('the release store over a record holding a gzip bomb', () => {
  /** An upstream-shaped chunked record of revision 1 of `bomb` whose payload is 2 GiB of zeros (~2 MB, three Secrets). */
  function bombRecord(): SecretStore {
    const record = upstreamRecordOf(zeroGzip(2 * GiB), { name: 'bomb', version: 1, status: 'deployed' }, 'olmv1-system', {
      name: 'bomb',
      uid: 'ce-uid',
    });
    const objects: SecretStore = new Map();
    const index = { ...record.index, metadata: { ...record.index.metadata, uid: 'index-uid', resourceVersion: '1' } };
    objects.set(record.key, index);
    for (const chunk of record.chunks('index-uid'))
      objects.set(chunk.metadata.name ?? '', { ...chunk, metadata: { ...chunk.metadata, resourceVersion: '1' } });
    return objects;
  }

  it('reports the record corrupt from history and deployed, naming its index Secret, the bound and its compressed size; nothing is deleted', async () => {
    const objects = bombRecord();
    expect(objects.size).toBe(3);
    const before = structuredClone([...objects]);
    const compressed = [...objects.values()].reduce(
      (n, s) => n + Buffer.from((s['data'] as Record<string, string>)['chunk'] ?? '', 'base64').length,
      0,
    );
    const expected = `release record ${WHERE} is corrupt: its payload decompresses to more than 8 MiB (${sizeText(compressed)} compressed)`;
    const store = createReleaseStore({ client: fakeSecrets(objects).client, namespace: 'olmv1-system', maxRecordBytes: 8 * MiB });
    await expect(store.history('bomb')).rejects.toThrow(expected);
    await expect(store.history('bomb', { admit: () => Promise.resolve() })).rejects.toThrow(expected);
    await expect(store.deployed('bomb')).rejects.toThrow(expected);
    expect([...objects]).toEqual(before);
    // The default bound.
    const byDefault = createReleaseStore({ client: fakeSecrets(objects).client, namespace: 'olmv1-system' });
    await expect(byDefault.history('bomb')).rejects.toThrow(expected.replace('8 MiB', '64 MiB'));
  });

  it('refuses a bound that is not a positive integer', () => {
    for (const maxRecordBytes of [0, -1, 1.5, Number.NaN]) {
      expect(() => createReleaseStore({ client: fakeSecrets(new Map()).client, namespace: 'olmv1-system', maxRecordBytes })).toThrow(
        `maxRecordBytes must be a positive integer, got ${maxRecordBytes}`,
      );
    }
  });
});
