/**
 * Checks of a built project image that only running it can make: its config names a numeric
 * non-root user and starts no shell, and in its root filesystem, mounted read-only, each entry
 * point prints its usage as that user under NODE_ENV=production (so the module graph loads
 * from production dependencies alone), the root cannot be written, the cache directories
 * belong to the user, /etc/passwd gives the user the image's group, and no devDependency was
 * installed.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProjectImage } from './project-image.ts';
import { withReadOnlyRoot } from './read-only-root.ts';

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
