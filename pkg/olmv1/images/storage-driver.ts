/**
 * Which containers/storage driver the project's buildah uses (decision 0146): overlay where the
 * kernel mounts an overlay filesystem in the storage directory (one real mount, made and undone
 * here), vfs otherwise. overlay gives each build step a copy-on-write root instead of a full copy
 * of the stage's root filesystem; vfs needs nothing of the kernel but root.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand } from '../localstack/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';

/** The drivers the project uses. */
export type StorageDriver = 'overlay' | 'vfs';

/** The driver chosen, and why vfs when it is vfs. */
type DriverChoice = { driver: 'overlay' } | { driver: 'vfs'; reason: string };

/** What the probe saw: the overlay mounted and showed the lower layer's file, or why not. */
type OverlayProbe = { mounted: true; lowerVisible: boolean } | { mounted: false; error: string };

/** The driver for a probe's outcome (pure). */
export function driverFor(probe: OverlayProbe): DriverChoice {
  if (!probe.mounted) return { driver: 'vfs', reason: `an overlay mount in the storage directory failed: ${probe.error}` };
  if (!probe.lowerVisible) return { driver: 'vfs', reason: "an overlay mount in the storage directory did not show its lower layer's file" };
  return { driver: 'overlay' };
}

/** The storage and run roots of a driver under `storageDir` (pure): vfs keeps the names older commits use. */
export function storageRoots(storageDir: string, driver: StorageDriver): { root: string; runRoot: string } {
  return driver === 'vfs'
    ? { root: join(storageDir, 'storage'), runRoot: join(storageDir, 'run') }
    : { root: join(storageDir, `storage-${driver}`), runRoot: join(storageDir, `run-${driver}`) };
}

/** Mounts `mount(8)`'s overlay once in a fresh directory under `storageDir` and undoes it. */
async function probeOverlay(storageDir: string, env: NodeJS.ProcessEnv): Promise<OverlayProbe> {
  await mkdir(storageDir, { recursive: true });
  const dir = await mkdtemp(join(storageDir, 'overlay-probe-'));
  const [lower, upper, work, merged] = ['lower', 'upper', 'work', 'merged'].map((d) => join(dir, d)) as [string, string, string, string];
  try {
    await Promise.all([lower, upper, work, merged].map((d) => mkdir(d)));
    await writeFile(join(lower, 'probe'), 'lower\n');
    try {
      await runCommand('mount', ['-t', 'overlay', 'overlay', '-o', `lowerdir=${lower},upperdir=${upper},workdir=${work}`, merged], { env });
    } catch (err) {
      return { mounted: false, error: errorMessage(err) };
    }
    try {
      const seen = await readFile(join(merged, 'probe'), 'utf8').catch(() => '');
      return { mounted: true, lowerVisible: seen === 'lower\n' };
    } finally {
      await runCommand('umount', [merged], { env });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The driver for `storageDir` on this machine, by {@link probeOverlay}. */
export async function chooseStorageDriver(storageDir: string, env: NodeJS.ProcessEnv): Promise<DriverChoice> {
  return driverFor(await probeOverlay(storageDir, env));
}
