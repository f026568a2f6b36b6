// The project's image, built from the Dockerfile as shipped without a Docker daemon
// (pkg/olmv1/images: buildah, overlay or vfs, chroot isolation, a stand-in node:24-slim made from Debian
// packages), pushed to the test registry by digest and read back with our image client; each
// entry point prints its usage as the image's numeric non-root user on a read-only root; a
// second build of the same tree is a cache hit.
//
// Needs root, buildah and debootstrap (Debian packages). The first build on a machine makes
// the stand-in (debootstrap, about two minutes) and the image (npm ci twice, tsc): several
// minutes; the storage is kept under ~/.cache/olmv1/images, so later runs reuse both.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import {
  buildProjectImage,
  checkProjectImage,
  defaultImageCacheDir,
  measurePushedImage,
  pushProjectImage,
  type ProjectImage,
  type ProjectImageOptions,
} from '../../pkg/olmv1/images/index.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const env = { ...process.env, PATH: `${process.env.PATH ?? ''}:/usr/sbin:/sbin` };

function missingPrerequisite(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root';
  for (const tool of ['buildah', 'debootstrap']) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { env, stdio: 'ignore' });
    } catch {
      return `no ${tool} on PATH (apt-get install ${tool})`;
    }
  }
  return undefined;
}
const missing = missingPrerequisite();
if (missing !== undefined) console.warn(`project-image.test.ts skipped: ${missing}`);

// The commit HEAD names now: other commits landing while the suite runs must not change what
// the second build is compared with.
const revision = execFileSync('git', ['-C', REPO, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
const options: ProjectImageOptions = {
  repoRoot: REPO,
  revision,
  cacheDir: defaultImageCacheDir(env),
  env,
  log: (line) => console.log(`project image: ${line}`),
  extraCaFile: process.env.NODE_EXTRA_CA_CERTS || undefined,
};

describe.skipIf(missing !== undefined)('the project image', () => {
  let image: ProjectImage;
  beforeAll(async () => {
    image = await buildProjectImage(options);
    console.log(`project image: ${image.tag} ${image.cached ? 'found in the cache' : 'built'} in ${image.seconds} s`);
  }, 1_800_000);

  it('is pushed by digest and reads back with our image client: numeric non-root user, no shell', async () => {
    const host = inject('envtestRegistries').anonymous.host;
    const ref = await pushProjectImage(image, host, [host]);
    expect(ref).toMatch(new RegExp(`^${host.replaceAll('.', '\\.')}/olmv1/olmv1@sha256:[0-9a-f]{64}$`));
    const measured = await measurePushedImage(ref, [host]);
    expect(measured.config.User).toBe('65532:65532');
    expect(measured.config.Entrypoint ?? []).toEqual([]);
    expect(measured.config.Cmd).toEqual(['node', 'dist/cmd/olmv1/main.js', '--help']);
    expect(measured.config.WorkingDir).toBe('/app');
    expect(measured.config.Env).toContain('NODE_ENV=production');
    // The build host's CA (a TLS-inspecting proxy's) served the build's npm ci only.
    expect((measured.config.Env ?? []).filter((e) => e.startsWith('NODE_EXTRA_CA_CERTS='))).toEqual([]);
    expect(measured.layers).toBeGreaterThan(1);
    expect(measured.compressedBytes).toBeLessThan(measured.uncompressedBytes);
    console.log(`project image: ${measured.layers} layers, ${measured.compressedBytes} bytes compressed, ${measured.uncompressedBytes} uncompressed`);
  }, 600_000);

  it('runs each entry point with --help as uid 65532 on a read-only root', async () => {
    const check = await checkProjectImage(image);
    expect(check.problems).toEqual([]);
    expect(check.user).toBe('65532:65532');
    expect(check.writeError).toBe('EROFS');
    expect(Object.keys(check.usage)).toEqual(['dist/cmd/catalogd/main.js', 'dist/cmd/operator-controller/main.js', 'dist/cmd/olmv1/main.js']);
    for (const line of Object.values(check.usage)) expect(line).toMatch(/^Usage: /);
  }, 120_000);

  it('is not built again for the same tree', async () => {
    const again = await buildProjectImage(options);
    expect(again.cached).toBe(true);
    expect(again.tag).toBe(image.tag);
    expect(again.seconds).toBeLessThan(30);
  }, 120_000);
});
