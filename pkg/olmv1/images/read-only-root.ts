/**
 * An image's root filesystem, mounted read-only, to run its programs as a given user with
 * chroot(8): what a kubelet with `readOnlyRootFilesystem: true` and `runAsUser` gives, without
 * a container runtime. Needs root (mount and chroot).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '../localstack/index.ts';
import type { Buildah } from './buildah.ts';

/** Runs `argv` inside `root` as `uid:gid` with exactly `env`; errors as runCommand. */
type RunInRoot = (argv: readonly string[], options: { user: string; env: NodeJS.ProcessEnv }) => ReturnType<typeof runCommand>;

/**
 * Mounts `image` (a container of it, in buildah's storage) read-only on a temp directory,
 * bind-mounts /proc and /dev into it, calls `fn` with the directory and a runner, and undoes it
 * all afterwards, whether `fn` resolves or throws.
 */
export async function withReadOnlyRoot<T>(buildah: Buildah, image: string, fn: (root: string, run: RunInRoot) => Promise<T>): Promise<T> {
  const ctr = (await buildah.run(['from', '--pull-never', image])).trim();
  const mounted: string[] = [];
  const dir = await mkdtemp(join(tmpdir(), 'olmv1-image-root-'));
  try {
    const source = (await buildah.run(['mount', ctr])).trim();
    // util-linux applies `ro` to a bind mount with a second, remounting step.
    await runCommand('mount', ['--bind', '-o', 'ro', source, dir]);
    mounted.push(dir);
    for (const special of ['proc', 'dev']) {
      await runCommand('mount', ['--bind', `/${special}`, join(dir, special)]);
      mounted.push(join(dir, special));
    }
    // By path: the child's environment is the one given, whose PATH is the image's.
    const chroot = ['/usr/sbin/chroot', '/usr/bin/chroot', '/sbin/chroot'].find((p) => existsSync(p)) ?? 'chroot';
    const run: RunInRoot = (argv, options) => runCommand(chroot, [`--userspec=${options.user}`, dir, ...argv], { env: options.env });
    return await fn(dir, run);
  } finally {
    for (const m of mounted.reverse()) await runCommand('umount', [m]).catch(() => runCommand('umount', ['-l', m]));
    // Never recursive: were an unmount to fail, a recursive removal would reach through it.
    await rmdir(dir).catch(() => {});
    await buildah.run(['rm', ctr]).catch(() => {});
  }
}
