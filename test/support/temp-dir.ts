/**
 * Temporary directories for tests: created under the OS temp directory and removed when the
 * calling test finishes, pass or fail, so repeated suite runs leave nothing behind.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/** A new directory `<tmp>/<prefix>XXXXXX`, deleted after the current test (call it inside a test, not a hook). */
export async function testTempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs `fn` with a new directory `<tmp>/<prefix>XXXXXX` and removes it afterwards (usable in hooks). */
export async function withTempDir<T>(prefix: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
