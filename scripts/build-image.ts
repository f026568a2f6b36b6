/**
 * Builds the project's image from the committed tree without a Docker daemon
 * (pkg/olmv1/images: buildah, overlay or vfs storage, chroot isolation, the stand-in `node:24-slim` built
 * from Debian packages when missing), runs its checks (numeric non-root user, no shell, each
 * entry point's --help as that user on a read-only root), and optionally pushes it.
 *
 *   node scripts/build-image.ts [--revision REV] [--push HOST:PORT [--plain-http] [--ref-only]] [--measure] [--storage-driver overlay|vfs]
 *
 * --push pushes to that registry (plain HTTP for a loopback one, or any with --plain-http) and
 * prints the digest reference; with --ref-only that reference alone is stdout (for
 * `IMAGE=$(...)`, README "Deploying on a cluster"). --measure pushes to a throwaway local registry (binaries from the envtest cache)
 * and prints the compressed and uncompressed sizes read back with the project's image client.
 * --storage-driver overrides buildah's driver (by default overlay where a probe mount works, else vfs).
 * Needs root, Debian's `buildah` and `debootstrap` packages, and npm on PATH. Exits 1 when a
 * check fails. The result is one JSON object on stdout; progress goes to stderr.
 */
import { parseArgs } from 'node:util';
import { buildProjectImage, checkProjectImage, defaultImageCacheDir, measurePushedImage, pushProjectImage } from '../pkg/olmv1/images/index.ts';
import { defaultCacheRoot, resolveBinaries, startRegistry } from '../pkg/olmv1/localstack/index.ts';

const USAGE =
  'Usage: node scripts/build-image.ts [--revision REV] [--push HOST:PORT [--plain-http] [--ref-only]] [--measure] [--storage-driver overlay|vfs]\n';
const parsed = (() => {
  try {
    return parseArgs({
      options: {
        revision: { type: 'string' },
        push: { type: 'string' },
        'plain-http': { type: 'boolean' },
        'ref-only': { type: 'boolean' },
        measure: { type: 'boolean' },
        'storage-driver': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    process.stderr.write(`build-image: ${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
})();
const { values } = parsed;
if (values.help === true) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const driver = values['storage-driver'];
if (driver !== undefined && driver !== 'overlay' && driver !== 'vfs') {
  process.stderr.write(`build-image: --storage-driver must be overlay or vfs\n${USAGE}`);
  process.exit(2);
}
const log = (line: string): void => void process.stderr.write(`build-image: ${line}\n`);
const env = { ...process.env, PATH: `${process.env.PATH ?? ''}:/usr/sbin:/sbin` };
const image = await buildProjectImage({
  repoRoot: new URL('..', import.meta.url).pathname,
  cacheDir: defaultImageCacheDir(env),
  env,
  log,
  extraCaFile: process.env.NODE_EXTRA_CA_CERTS || undefined,
  ...(values.revision !== undefined ? { revision: values.revision } : {}),
  storageDriver: driver,
});
log(`${image.tag} ${image.cached ? 'found' : 'built'} in ${image.seconds} s (stand-in base ${image.standIn.cached ? 'found' : 'built'})`);
const check = await checkProjectImage(image);
for (const [entry, line] of Object.entries(check.usage)) log(`${entry} --help as ${check.user}, read-only root: ${line}`);
const result: Record<string, unknown> = { tag: image.tag, cached: image.cached, seconds: image.seconds, standIn: image.standIn, check };
const isLoopback = (host: string): boolean => /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(host);
if (values.push !== undefined) {
  const plainHttp = values['plain-http'] === true || isLoopback(values.push);
  result['pushed'] = await pushProjectImage(image, values.push, plainHttp ? [values.push] : []);
}
if (values.measure === true) {
  const binaries = await resolveBinaries({ kubebuilderAssets: undefined, cacheRoot: defaultCacheRoot(env), env, log });
  const registry = await startRegistry({ binaries });
  try {
    const started = performance.now();
    const ref = await pushProjectImage(image, registry.host, [registry.host]);
    const pushSeconds = Math.round((performance.now() - started) / 100) / 10;
    result['measured'] = { ref, pushSeconds, ...(await measurePushedImage(ref, [registry.host])) };
  } finally {
    await registry.stop();
  }
}
process.stdout.write(
  values['ref-only'] === true && typeof result['pushed'] === 'string' ? `${result['pushed']}\n` : `${JSON.stringify(result, null, 2)}\n`,
);
if (check.problems.length > 0) {
  for (const p of check.problems) log(`problem: ${p}`);
  process.exitCode = 1;
}
