/**
 * What the image client's unit tests pull with, new for each test: a temporary directory, a disk
 * image cache in it and a fake registry; closed and deleted (read-only unpacked trees included)
 * after each test.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { createDiskImageCache, type ImageCache } from '../../pkg/shared/image/index.ts';
import { startFakeRegistry, type FakeRegistry } from './fake-registry.ts';

/** The current test's directory, cache (`<dir>/unpack`) and registry. */
interface ImageTestBed {
  readonly dir: string;
  readonly cache: ImageCache;
  readonly registry: FakeRegistry;
}

/**
 * Registers the hooks that make an ImageTestBed for each test of the calling file or suite:
 * `prefix` names the directory, `deleteTree` deletes it (the image module's deleteReadOnly).
 */
export function imageTestBed(prefix: string, deleteTree: (dir: string) => Promise<void>): ImageTestBed {
  let current: ImageTestBed | undefined;
  beforeEach(async () => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    current = { dir, cache: createDiskImageCache(join(dir, 'unpack')), registry: await startFakeRegistry() };
  });
  afterEach(async () => {
    const done = current;
    current = undefined;
    await done?.registry.close();
    if (done !== undefined) await deleteTree(done.dir);
  });
  const now = (): ImageTestBed => {
    if (current === undefined) throw new Error('imageTestBed: used outside a test');
    return current;
  };
  return {
    get dir() {
      return now().dir;
    },
    get cache() {
      return now().cache;
    },
    get registry() {
      return now().registry;
    },
  };
}
