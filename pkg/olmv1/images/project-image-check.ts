/**
 * Checks of a built project image that only running it can make: its config names a numeric
 * non-root user and starts no shell, and in its root filesystem, mounted read-only and run with
 * chroot(8) as that user (what a kubelet with `readOnlyRootFilesystem` and `runAsUser` gives;
 * needs root), each entry point prints its usage under NODE_ENV=production (production
 * dependencies alone), the root cannot be written, the cache directories belong to the user,
 * /etc/passwd gives the user the image's group, and no devDependency was installed.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rmdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '../localstack/index.ts';
import type { Buildah } from './buildah.ts';
import type { ProjectImage } from './project-image.ts';

/** The image's entry points (config/manager/*.yaml run the first two). */
const PROJECT_ENTRY_POINTS = ['dist/cmd/catalogd/main.js', 'dist/cmd/operator-controller/main.js', 'dist/cmd/olmv1/main.js'] as const;

/** What {@link checkProjectImage} saw. */
interface ProjectImageCheck {
  user: string;
  /** The first line each entry point printed for --help. */
  usage: Record<string, string>;
  /** What a write to the working directory failed with (EROFS when the root is read-only). */
  writeError: string;
  /** Empty when every check passed. */
  problems: string[];
}

/** Runs the checks of the module comment on `image`; see ProjectImageCheck. Needs root. */
export async function checkProjectImage(image: ProjectImage): Promise<ProjectImageCheck> {
  const problems: string[] = [];
  const config = (await image.buildah.imageConfig(image.tag)) ?? {};
  const user = config.User ?? '';
  if (!/^[1-9]\d*(:\d+)?$/.test(user)) problems.push(`image user ${JSON.stringify(user)}: want a numeric non-root uid`);
  for (const [field, argv] of [
    ['Entrypoint', config.Entrypoint],
    ['Cmd', config.Cmd],
  ] as const) {
    if (argv?.[0] !== undefined && /(^|\/)(ba|da)?sh$/.test(argv[0])) problems.push(`${field} ${JSON.stringify(argv)} runs a shell`);
  }
  const workDir = config.WorkingDir ?? '/';
  const env = { NODE_ENV: 'production', PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/tmp' };
  const usage: Record<string, string> = {};
  let writeError = '';
  await withReadOnlyRoot(image.buildah, image.tag, async (root, run) => {
    for (const entry of PROJECT_ENTRY_POINTS) {
      const { stdout } = await run(['/usr/local/bin/node', join(workDir, entry), '--help'], { user, env });
      usage[entry] = stdout.split('\n')[0] ?? '';
      if (!usage[entry].startsWith('Usage: ')) problems.push(`${entry} --help printed no usage: ${stdout.slice(0, 200)}`);
    }
    const probe = `try { require('node:fs').writeFileSync(${JSON.stringify(join(workDir, '.write-probe'))}, 'x'); console.log('written'); } catch (e) { console.log(e.code); }`;
    writeError = (await run(['/usr/local/bin/node', '-e', probe], { user, env })).stdout.trim();
    if (writeError !== 'EROFS') problems.push(`writing to ${workDir} gave ${writeError}, want EROFS`);
    const uid = Number(user.split(':')[0]);
    for (const dir of ['var/cache/catalogd', 'var/cache/operator-controller']) {
      const owner = await stat(join(root, dir)).then(
        (s) => s.uid,
        () => undefined,
      );
      if (owner !== uid) problems.push(`/${dir} is owned by ${owner ?? '(missing)'}, want ${uid}`);
    }
    // The kubelet hands the runtime the image's uid alone (runAsUser), and the runtime takes the
    // group from /etc/passwd: without an entry the processes run with group 0.
    const gid = Number(user.split(':')[1] ?? uid);
    const passwd = await readFile(join(root, 'etc/passwd'), 'utf8').catch(() => '');
    const entry = passwd.split('\n').find((line) => line.split(':')[2] === String(uid));
    if (entry === undefined) problems.push(`/etc/passwd has no entry for uid ${uid}: Pods would run with group 0`);
    else if (entry.split(':')[3] !== String(gid)) problems.push(`/etc/passwd gives uid ${uid} group ${entry.split(':')[3]}, want ${gid}`);
    const devDependency = await stat(join(root, workDir, 'node_modules/typescript')).then(
      () => true,
      () => false,
    );
    if (devDependency) problems.push('devDependency typescript is in the image');
  });
  return { user, usage, writeError, problems };
}

/** Runs `argv` inside `root` as `uid:gid` with exactly `env`; errors as runCommand. */
type RunInRoot = (argv: readonly string[], options: { user: string; env: NodeJS.ProcessEnv }) => ReturnType<typeof runCommand>;

/**
 * Mounts `image` (a container of it, in buildah's storage) read-only on a temp directory,
 * bind-mounts /proc and /dev into it, calls `fn` with the directory and a runner, and undoes it
 * all afterwards, whether `fn` resolves or throws.
 */
async function withReadOnlyRoot<T>(buildah: Buildah, image: string, fn: (root: string, run: RunInRoot) => Promise<T>): Promise<T> {
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
