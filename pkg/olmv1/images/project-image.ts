/**
 * The project's image (the repository's Dockerfile), built without a Docker daemon by buildah
 * over a private storage (overlay where it mounts, else vfs: decision 0146) with chroot
 * isolation (the Dockerfile runs `npm ci` and tsc, which needs a root filesystem to run commands
 * in), pushed to a registry by digest. An image is
 * tagged by a key over the git objects it is built from (Dockerfile, .dockerignore, its COPY
 * sources, at a revision) and the stand-in base's key, and reused while the tag exists; buildah's
 * layer cache keeps a change under cmd/ or pkg/ from repeating `npm ci`. The build is
 * reproducible (decision 0139): every time buildah writes (file times in the layers, the
 * config's and history's creation times) is SOURCE_DATE_EPOCH, fixed at 0, and the Dockerfile
 * hands the same value to the tools its steps run; so one tree over one stand-in base gives one
 * digest, whether its steps were cached from another tree's build or run afresh. The layer each
 * `RUN npm ci` step makes is tagged (DEPENDENCY_REPOSITORY), so that pruning keeps the build
 * stage's dependencies too and another tree with the same package-lock.json (the previous
 * release's, docs/release.md) reuses them instead of running `npm ci` again.
 */
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { createImageClient } from '../../shared/image/index.ts';
import { defaultCacheRoot, isExecutable, runCommand, withLock } from '../localstack/index.ts';
import { createBuildah, type Buildah, type ImageRunSettings } from './buildah.ts';
import { chooseStorageDriver, type StorageDriver } from './storage-driver.ts';
import { machineDebianSource } from './debian.ts';
import { ensureStandInBase, type StandIn } from './stand-in-base.ts';
import { errorMessage } from '../../shared/errors/index.ts';

/** Repository of the project's image in local storage and in registries. */
const PROJECT_IMAGE_REPOSITORY = 'olmv1/olmv1';
const TREE_LABEL = 'org.olmv1.tree';
/** Tags of the layers the Dockerfile's `RUN npm ci` steps made, by image id: `localhost/<this>:<id>`. */
const DEPENDENCY_REPOSITORY = 'olmv1/olmv1-deps';
/**
 * The one time every build writes (seconds since the epoch). Not the commit's time: buildah
 * reuses a cached step whatever time it was written with, so only a time that never changes
 * keeps a build that reuses another tree's `npm ci` equal to a build without cache.
 */
export const SOURCE_DATE_EPOCH = 0;
/**
 * When each project image tag and dependency tag was last built or found (wall clock, ms): the
 * images' own times are all SOURCE_DATE_EPOCH. The name is older than the meaning: earlier
 * commits (a previous release's build) read it as build times and prune by it just as well.
 */
const BUILD_TIMES_FILE = 'project-image-builds.json';

/** `${XDG_CACHE_HOME:-$HOME/.cache}/olmv1/images`: the buildah storage and its images. */
export function defaultImageCacheDir(env: NodeJS.ProcessEnv): string {
  return join(dirname(defaultCacheRoot(env)), 'images');
}

/** Options of {@link buildProjectImage}. */
export interface ProjectImageOptions {
  /** The git work tree holding the Dockerfile. */
  repoRoot: string;
  /** The committed tree built (default `HEAD`): work in progress is never built. */
  revision?: string;
  /** Holds the buildah storage (e.g. defaultImageCacheDir(env)). */
  cacheDir: string;
  /** Environment of buildah, debootstrap and git (PATH). */
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** A CA bundle for the stand-in (see StandInInputs.extraCaFile). */
  extraCaFile?: string | undefined;
  /** buildah's storage driver; default overlay where a probe mount in cacheDir works, else vfs (decision 0146). */
  storageDriver?: StorageDriver | undefined;
}

/** A built (or reused) project image. */
export interface ProjectImage {
  /** `localhost/olmv1/olmv1:tree-<key>` in the private storage. */
  tag: string;
  treeKey: string;
  /** True when the tag was found and nothing was built. */
  cached: boolean;
  standIn: StandIn;
  /** Wall time of this call. */
  seconds: number;
  /** The storage's buildah, for pushes and runs. */
  buildah: Buildah;
}

/** Paths the Dockerfile's COPY lines take from the build context (not `--from` a stage). */
export function dockerfileCopySources(dockerfile: string): string[] {
  const sources = new Set<string>();
  for (const line of dockerfile.replace(/\\\n/g, ' ').split('\n')) {
    const m = /^\s*COPY\s+(.*)$/i.exec(line);
    if (m === null) continue;
    const args = (m[1] ?? '').trim().split(/\s+/);
    if (args.some((a) => a.startsWith('--from'))) continue;
    for (const a of args.filter((x) => !x.startsWith('--')).slice(0, -1)) sources.add(a.replace(/^\.\//, '').replace(/\/+$/, ''));
  }
  return [...sources].sort();
}

/**
 * The build context's content key at `revision`: sha256 over `<path> <git object hash>` of the
 * Dockerfile, .dockerignore and every COPY source, and `salt` (the base's key); 20 hex digits.
 * Throws when the revision or a path does not exist in git.
 */
async function treeKey(repoRoot: string, revision: string, salt: string, env: NodeJS.ProcessEnv): Promise<{ key: string; paths: string[] }> {
  const git = (args: string[]): Promise<string> => runCommand('git', ['-C', repoRoot, ...args], { env }).then((r) => r.stdout.trim());
  const commit = await git(['rev-parse', '--verify', `${revision}^{commit}`]);
  const dockerfile = await git(['show', `${commit}:Dockerfile`]);
  const paths = ['Dockerfile', '.dockerignore', ...dockerfileCopySources(dockerfile)];
  const hashes = (await git(['rev-parse', ...paths.map((p) => `${commit}:${p}`)])).split('\n');
  const hash = createHash('sha256');
  paths.forEach((p, i) => hash.update(`${p} ${hashes[i] ?? ''}\n`));
  hash.update(salt);
  return { key: hash.digest('hex').slice(0, 20), paths };
}

/**
 * Builds the Dockerfile of `repoRoot` at `revision` (default HEAD), first making the stand-in
 * base when it is missing, or finds it built; throws with buildah's output on a failed build.
 */
export async function buildProjectImage(options: ProjectImageOptions): Promise<ProjectImage> {
  await mkdir(options.cacheDir, { recursive: true });
  // One build (and its prune) at a time in the shared storage: a prune running beside another
  // build removes layers that build is reusing ("layer not known").
  return withLock(join(options.cacheDir, '.build.lock'), () => buildUnlocked(options), {
    onWait: (holder) => options.log(`waiting for ${holder} to finish its image build`),
  });
}

async function buildUnlocked(options: ProjectImageOptions): Promise<ProjectImage> {
  const started = performance.now();
  const driver = await storageDriver(options);
  const buildah = createBuildah(options.cacheDir, options.env, driver);
  const standIn = await ensureStandInBase(
    buildah,
    {
      nodeBinary: join(options.repoRoot, 'node_modules/node/bin/node'),
      npmDir: findNpmDir(options.env),
      debian: await machineDebianSource(),
      extraCaFile: options.extraCaFile,
    },
    options.env,
    options.log,
  );
  const revision = options.revision ?? 'HEAD';
  const { key, paths } = await treeKey(options.repoRoot, revision, standIn.key, options.env);
  const tag = `localhost/${PROJECT_IMAGE_REPOSITORY}:tree-${key}`;
  const seconds = (): number => Math.round((performance.now() - started) / 100) / 10;
  if ((await buildah.imageConfig(tag))?.Labels?.[TREE_LABEL] === key) {
    // Found is used: another build's pruning (this tree's or an older commit's) keeps it a while.
    await recordUse(options.cacheDir, [tag], Date.now()).catch((err: unknown) => options.log(`${tag}: use time not recorded: ${errorMessage(err)}`));
    return { tag, treeKey: key, cached: true, standIn, seconds: seconds(), buildah };
  }
  options.log(`building ${tag} from ${revision} (${paths.join(', ')}) with buildah, ${driver} storage`);
  const buildStart = Date.now();
  const kept = [tag];
  const work = await mkdtemp(join(options.cacheDir, 'context-'));
  try {
    const tar = join(work, 'context.tar');
    const context = join(work, 'context');
    await mkdir(context);
    await runCommand('git', ['-C', options.repoRoot, 'archive', '-o', tar, revision, '--', ...paths], { env: options.env });
    await runCommand('tar', ['-x', '-f', tar, '-C', context], { env: options.env });
    const out = await buildah.run(projectBuildArgs({ context, tag, treeKey: key }));
    const reused = out.split('\n').filter((l) => l.startsWith('--> Using cache')).length;
    options.log(`${tag}: ${reused} step(s) taken from buildah's layer cache`);
    for (const id of dependencyLayers(out)) {
      const name = `localhost/${DEPENDENCY_REPOSITORY}:${id}`;
      await buildah.run(['tag', id, name]);
      kept.push(name);
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  await recordUse(options.cacheDir, kept, buildStart).catch((err: unknown) => options.log(`${tag}: build time not recorded: ${errorMessage(err)}`));
  // Housekeeping: an image another build or container still uses cannot be removed now; the
  // next build tries again. The new image is built either way.
  await pruneOlderBuilds(buildah, options.cacheDir, kept, buildStart).catch((err: unknown) =>
    options.log(`${tag}: older builds not pruned this time: ${errorMessage(err)}`),
  );
  return { tag, treeKey: key, cached: false, standIn, seconds: seconds(), buildah };
}

/** The driver asked for, else the probe's choice (logged with its reason when vfs). */
async function storageDriver(options: ProjectImageOptions): Promise<StorageDriver> {
  if (options.storageDriver !== undefined) return options.storageDriver;
  const choice = await chooseStorageDriver(options.cacheDir, options.env);
  if (choice.driver === 'vfs') options.log(`buildah storage: vfs (${choice.reason})`);
  return choice.driver;
}

/**
 * `buildah bud` arguments of the project image (pure): layer cache, chroot isolation, the tree
 * label, and the reproducible build's fixed time (SOURCE_DATE_EPOCH: `--timestamp` for what
 * buildah writes, the build argument for what the Dockerfile's steps write).
 */
export function projectBuildArgs(input: { context: string; tag: string; treeKey: string }): string[] {
  return [
    'bud',
    '--pull-never',
    '--layers',
    // A failed step's working container would otherwise stay and keep its image from the
    // next build's prune ("image is in use by a container").
    '--force-rm',
    '--isolation',
    'chroot',
    '--network',
    'host',
    '--timestamp',
    String(SOURCE_DATE_EPOCH),
    // No io.buildah.version label: buildah's version is not an input of the image.
    '--identity-label=false',
    '--build-arg',
    `SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH}`,
    '--label',
    `${TREE_LABEL}=${input.treeKey}`,
    '--tag',
    input.tag,
    input.context,
  ];
}

/**
 * The image ids `buildah bud --layers` printed for the layers of the Dockerfile's `RUN npm ci`
 * steps (pure): the `--> <id>` line that ends each such step, whether run or taken from the cache.
 */
export function dependencyLayers(budOutput: string): string[] {
  const ids: string[] = [];
  let inStep = false;
  for (const line of budOutput.split('\n')) {
    const step = /^(?:\[\d+\/\d+\] )?STEP \d+\/\d+: (.*)$/.exec(line);
    if (step !== null) inStep = /^RUN npm ci\b/.test(step[1] ?? '');
    const done = /^--> ([0-9a-f]{11,64})$/.exec(line);
    if (inStep && done !== null) {
      ids.push(done[1] ?? '');
      inStep = false;
    }
  }
  return ids;
}

/** Project images and dependency layers used within this survive another tree's build (one may still wait to be pushed). */
const KEEP_RECENT_MS = 30 * 60 * 1000;

async function readBuildTimes(cacheDir: string): Promise<Record<string, number>> {
  try {
    return JSON.parse(await readFile(join(cacheDir, BUILD_TIMES_FILE), 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

/** Notes that `tags` were built or found at `at` (under the build lock, as is every read). */
async function recordUse(cacheDir: string, tags: readonly string[], at: number): Promise<void> {
  const times = { ...(await readBuildTimes(cacheDir)), ...Object.fromEntries(tags.map((t) => [t, at])) };
  await writeFile(join(cacheDir, BUILD_TIMES_FILE), JSON.stringify(times, null, 2) + '\n');
}

/** An image as `buildah images --json` lists it. */
interface ListedImage {
  id: string;
  names: string[] | null;
  /** The image's own creation time (s): SOURCE_DATE_EPOCH since builds are reproducible. */
  created: number;
}

/**
 * The project image and dependency tags to remove (pure): all but `keep` last used before
 * `since - KEEP_RECENT_MS`, by `usedAt` (ms), else by the image's creation time (tags made
 * before use times were kept).
 */
export function staleProjectTags(
  images: readonly ListedImage[],
  keep: readonly string[],
  usedAt: Readonly<Record<string, number>>,
  since: number,
): string[] {
  const ours = (n: string): boolean =>
    n.startsWith(`localhost/${PROJECT_IMAGE_REPOSITORY}:tree-`) || n.startsWith(`localhost/${DEPENDENCY_REPOSITORY}:`);
  return images.flatMap((i) =>
    (i.names ?? []).filter((n) => ours(n) && !keep.includes(n) && (usedAt[n] ?? i.created * 1000) < since - KEEP_RECENT_MS),
  );
}

/**
 * Keeps the storage from growing by every step's layer per build (vfs: about 2 GB a build):
 * removes the other project image and dependency tags last used more than KEEP_RECENT_MS before `since`, then,
 * round after round, the childless untagged images (what the new image or a dependency tag
 * descends from has children; no other build runs meanwhile: the build lock is held). Images'
 * own creation times are all SOURCE_DATE_EPOCH, hence the recorded use times.
 */
async function pruneOlderBuilds(buildah: Buildah, cacheDir: string, keep: readonly string[], since: number): Promise<void> {
  const list = async (args: string[]): Promise<ListedImage[]> =>
    JSON.parse((await buildah.run(['images', '--json', ...args])) || '[]') as ListedImage[];
  const builtAt = await readBuildTimes(cacheDir);
  const stale = staleProjectTags(await list([]), keep, builtAt, since);
  if (stale.length > 0) await buildah.run(['rmi', ...stale]);
  const left = Object.fromEntries(Object.entries(builtAt).filter(([tag]) => !stale.includes(tag)));
  await writeFile(join(cacheDir, BUILD_TIMES_FILE), JSON.stringify(left, null, 2) + '\n');
  for (let round = 0; round < 50; round++) {
    const victims = (await list(['--filter', 'dangling=true'])).map((i) => i.id);
    if (victims.length === 0) return;
    await buildah.run(['rmi', ...victims]);
  }
}

/** The npm package directory of the `npm` first on env.PATH. */
function findNpmDir(env: NodeJS.ProcessEnv): string {
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    const npm = join(dir, 'npm');
    if (dir !== '' && isExecutable(npm)) return dirname(dirname(realpathSync(npm)));
  }
  throw new Error('the stand-in base image needs npm: no "npm" on PATH');
}

/** Pushes `image.tag` to `<registry>/olmv1/olmv1:tree-<key>` and returns its digest reference. */
export async function pushProjectImage(image: ProjectImage, registry: string, insecureRegistries: readonly string[]): Promise<string> {
  const work = await mkdtemp(join(tmpdir(), 'olmv1-push-'));
  try {
    const digestFile = join(work, 'digest');
    const tls = insecureRegistries.includes(registry) ? ['--tls-verify=false'] : [];
    await image.buildah.run([
      'push',
      ...tls,
      '--digestfile',
      digestFile,
      image.tag,
      `docker://${registry}/${PROJECT_IMAGE_REPOSITORY}:tree-${image.treeKey}`,
    ]);
    const digest = (await readFile(digestFile, 'utf8')).trim();
    if (!/^sha256:[0-9a-f]{64}$/.test(digest)) throw new Error(`buildah push wrote no digest (${JSON.stringify(digest)})`);
    return `${registry}/${PROJECT_IMAGE_REPOSITORY}@${digest}`;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Sizes of an image in a registry, read back with the project's image client. */
interface ImageSizes {
  /** Layers as stored (compressed) plus the config. */
  compressedBytes: number;
  /** Layers decompressed (the tar streams). */
  uncompressedBytes: number;
  layers: number;
  /** The image's config (`config` of the configuration). */
  config: ImageRunSettings;
}

/** Pulls `ref` with the project's image client (digests verified) and measures it. */
export async function measurePushedImage(ref: string, insecureRegistries: readonly string[]): Promise<ImageSizes> {
  const client = createImageClient({ insecureRegistries });
  try {
    const opened = await client.openLayers(ref, {});
    let compressed = 0;
    let uncompressed = 0;
    for (const layer of opened.layers) {
      compressed += layer.size;
      await pipeline(layer.open(), createGunzip(), async (gunzipped: AsyncIterable<Buffer>) => {
        for await (const chunk of gunzipped) uncompressed += chunk.length;
      });
    }
    const raw = opened.config.raw as { config?: ImageRunSettings };
    return { compressedBytes: compressed, uncompressedBytes: uncompressed, layers: opened.layers.length, config: raw.config ?? {} };
  } finally {
    client.close();
  }
}
