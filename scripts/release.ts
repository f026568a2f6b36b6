/**
 * Makes a release of the committed tree (pkg/olmv1/release, docs/release.md):
 *
 *   npm run release -- --version vX.Y.Z --registry HOST[:PORT]/REPO [--key cosign.key] [--revision REV] [--plain-http] [--out DIR]
 *
 * Builds the project image (the shared, cached build of pkg/olmv1/images), pushes it as
 * REPO:vX.Y.Z, signs it with `cosign sign --key` when --key is given (COSIGN_PASSWORD is the
 * key's password; no transparency log), and writes DIR/vX.Y.Z/ (default dist/release):
 * olmv1.yaml, install.sh, sbom.spdx.json, SHA256SUMS. The result is one JSON object on stdout;
 * progress goes to stderr. Needs root, buildah and debootstrap (as the image build does); cosign
 * is the one on PATH or the one the tests built (COSIGN names another).
 */
import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildProjectImage, defaultImageCacheDir } from '../pkg/olmv1/images/index.ts';
import { defaultCacheRoot, isExecutable, resolveBinaries, runCommand } from '../pkg/olmv1/localstack/index.ts';
import { makeRelease, parseDpkgStatus, releaseInputProblem, type DebianPackage } from '../pkg/olmv1/release/index.ts';

const USAGE =
  'Usage: npm run release -- --version vX.Y.Z --registry HOST[:PORT]/REPO [--key cosign.key] [--revision REV] [--plain-http] [--out DIR]\n';
const { values } = (() => {
  try {
    return parseArgs({
      options: {
        version: { type: 'string' },
        registry: { type: 'string' },
        key: { type: 'string' },
        revision: { type: 'string' },
        'plain-http': { type: 'boolean' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    process.stderr.write(`release: ${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
})();
if (values.help === true) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const version = values.version ?? '';
const repository = values.registry ?? '';
const problem = releaseInputProblem({ version, repository });
if (problem !== undefined) {
  process.stderr.write(`release: ${problem}\n${USAGE}`);
  process.exit(2);
}
const log = (line: string): void => void process.stderr.write(`release: ${line}\n`);
const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${process.env.PATH ?? ''}:/usr/sbin:/sbin` };
const repoRoot = new URL('..', import.meta.url).pathname;
const host = repository.slice(0, repository.indexOf('/'));
const plainHttp = values['plain-http'] === true || /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(host);
const git = async (args: string[]): Promise<string> => (await runCommand('git', ['-C', repoRoot, ...args], { env })).stdout;
const revision = (await git(['rev-parse', '--verify', `${values.revision ?? 'HEAD'}^{commit}`])).trim();

/** cosign: COSIGN, else on PATH, else the newest the tests built into the envtest cache. */
function findCosign(): string {
  if (env['COSIGN']) return env['COSIGN'];
  for (const dir of (env['PATH'] ?? '').split(':')) if (dir !== '' && isExecutable(join(dir, 'cosign'))) return join(dir, 'cosign');
  const root = defaultCacheRoot(env);
  const built = readdirSync(root)
    .filter((d) => d.startsWith('cosign-'))
    .sort()
    .reverse()
    .map((d) => join(root, d, 'cosign'))
    .find((p) => isExecutable(p));
  if (built === undefined) throw new Error('--key needs cosign: none on PATH, in COSIGN, or built by the tests');
  return built;
}

const binaries = await resolveBinaries({ kubebuilderAssets: env['KUBEBUILDER_ASSETS'], cacheRoot: defaultCacheRoot(env), env, log });
const image = await buildProjectImage({
  repoRoot,
  revision,
  cacheDir: defaultImageCacheDir(env),
  env,
  log,
  extraCaFile: env['NODE_EXTRA_CA_CERTS'] || undefined,
});
log(`${image.tag} ${image.cached ? 'found' : 'built'} in ${image.seconds} s`);
const key = values.key;
const release = await makeRelease(
  { version, repository, outDir: values.out ?? join(repoRoot, 'dist', 'release') },
  {
    log,
    async pushImage(repo, tag) {
      const work = await mkdtemp(join(tmpdir(), 'olmv1-release-push-'));
      try {
        const digestFile = join(work, 'digest');
        await image.buildah.run([
          'push',
          ...(plainHttp ? ['--tls-verify=false'] : []),
          '--digestfile',
          digestFile,
          image.tag,
          `docker://${repo}:${tag}`,
        ]);
        return (await readFile(digestFile, 'utf8')).trim();
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
    ...(key === undefined
      ? {}
      : {
          async sign(ref: string) {
            const insecure = plainHttp ? ['--allow-insecure-registry', '--allow-http-registry'] : [];
            await runCommand(findCosign(), ['sign', '--yes', '--key', key, '--tlog-upload=false', ...insecure, ref], { env });
          },
        }),
    async extractConfig(dir) {
      const tar = join(dir, 'config.tar');
      await runCommand('git', ['-C', repoRoot, 'archive', '-o', tar, revision, '--', 'config'], { env });
      await runCommand('tar', ['-x', '-f', tar, '-C', dir], { env });
    },
    kustomize: async (dir) => (await runCommand(binaries.kubectl, ['kustomize', dir], { env })).stdout,
    packageLock: () => git(['show', `${revision}:package-lock.json`]),
    commitTime: async () =>
      new Date(Number((await git(['show', '-s', '--format=%ct', revision])).trim()) * 1000).toISOString().replace(/\.000Z$/, 'Z'),
    async debianPackages(): Promise<DebianPackage[]> {
      const container = (await image.buildah.run(['from', '--pull-never', image.tag])).trim();
      try {
        const mount = (await image.buildah.run(['mount', container])).trim();
        return parseDpkgStatus(await readFile(join(mount, 'var/lib/dpkg/status'), 'utf8'));
      } catch (err) {
        log(`the base's Debian packages are not listed in the SBOM: ${(err as Error).message}`);
        return [];
      } finally {
        await image.buildah.run(['rm', container]).catch(() => undefined);
      }
    },
  },
);
process.stdout.write(JSON.stringify({ ...release, files: release.files.map((f) => f.name), revision, imageTag: image.tag }, null, 2) + '\n');
