/**
 * What the image client's unit tests pull with, new for each test: a temporary directory, a disk
 * image cache in it and a fake registry; closed and deleted (read-only unpacked trees included)
 * after each test; and the error a pull rejects with.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDiskImageCache, type ImageCache } from '../../pkg/shared/image/index.ts';
import { startFakeRegistry, type FakeRegistry } from './fake-registry.ts';
import { perTest } from './per-test.ts';

/** The current test's directory, cache (`<dir>/unpack`) and registry. */
interface ImageTestBed {
  readonly dir: string;
  readonly cache: ImageCache;
  readonly registry: FakeRegistry;
}

/**
 * Registers the hooks that make an ImageTestBed for each test of the calling file or suite:
 * `prefix` names the directory, `deleteTree` deletes it (the image module's deleteReadOnly).
 * The function returned gives the running test's.
 */
export function imageTestBed(prefix: string, deleteTree: (dir: string) => Promise<void>): () => ImageTestBed {
  return perTest(
    async () => {
      const dir = await mkdtemp(join(tmpdir(), prefix));
      return { dir, cache: createDiskImageCache(join(dir, 'unpack')), registry: await startFakeRegistry() };
    },
    async (bed) => {
      await bed.registry.close();
      await deleteTree(bed.dir);
    },
  );
}

/** The error `p` rejects with; throws when it resolves. */
export async function errorOf(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}
