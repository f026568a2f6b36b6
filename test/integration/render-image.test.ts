// `olmv1 render bundle IMAGE` and `olmv1 rbac IMAGE` pull the bundle from a real registry and
// produce exactly what the same bundle directory renders to; --authfile and --ca-file reach a
// registry that wants credentials and one with its own CA.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { fetchBundleFiles } from '../../cmd/olmv1/bundle-image.ts';
import type { RegistryAccess } from '../../cmd/olmv1/registry-access.ts';
import { zeroFileLayer } from '../support/image-bombs.ts';
import { runRbac } from '../../cmd/olmv1/rbac.ts';
import { runRenderBundle } from '../../cmd/olmv1/render.ts';
import { BUNDLE_IMAGE_LIMITS, buildImage, buildLayer, createImageClient, filesToEntries, type ImageLimits } from '../../pkg/shared/image/index.ts';
import { createCertificateAuthority, issueCertificate, startRegistry, type Registry } from '../envtest/index.ts';
import { captureIO } from '../support/command-io.ts';
import { testTempDir } from '../support/temp-dir.ts';

const BUNDLE = fileURLToPath(new URL('../fixtures/bundles/multi-crd', import.meta.url));

async function filesOf(dir: string): Promise<Record<string, Buffer>> {
  const out: Record<string, Buffer> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out[relative(dir, path)] = await readFile(path);
  }
  return out;
}

/** What the commands hand their image fetcher. */
type Access = RegistryAccess & { limits: ImageLimits };

async function run(
  cmd: typeof runRenderBundle,
  args: string[],
  fetchBundle?: (ref: string, access: Access) => Promise<Map<string, Buffer>>,
): Promise<{ code: number; out: string; err: string }> {
  const io = captureIO();
  const code = await cmd(args, io, fetchBundle === undefined ? {} : { fetchBundle });
  return { code, out: io.out(), err: io.err() };
}

describe('rendering a bundle image', () => {
  it('renders and derives RBAC from a pushed image exactly as from the directory', async () => {
    const host = inject('envtestRegistries').anonymous.host;
    const ref = `${host}/bundles/multi-crd:v1`;
    const client = createImageClient({ insecureRegistries: ['127.0.0.1'] });
    await client.push(ref, buildImage({ files: await filesOf(BUNDLE), labels: { 'operators.operatorframework.io.bundle.package.v1': 'multi-crd' } }));
    client.close();
    const fetchBundle = (r: string, access: Access): Promise<Map<string, Buffer>> =>
      fetchBundleFiles(r, { insecureRegistries: ['127.0.0.1'], ...access });

    const args = ['--install-namespace', 'operators', '--watch-namespace', 'team-a'];
    const fromDir = await run(runRenderBundle, [BUNDLE, ...args]);
    const fromImage = await run(runRenderBundle, [ref, ...args], fetchBundle);
    expect(fromDir.code).toBe(0);
    expect(fromImage).toEqual(fromDir);
    expect(fromImage.out).toContain('kind: CustomResourceDefinition');

    const rbacArgs = ['--install-namespace', 'operators', '--service-account', 'installer'];
    expect(await run(runRbac, [ref, ...rbacArgs], fetchBundle)).toEqual(await run(runRbac, [BUNDLE, ...rbacArgs]));
  });

  it('reports an image that does not exist', async () => {
    const host = inject('envtestRegistries').anonymous.host;
    const fetchBundle = (r: string, access: Access): Promise<Map<string, Buffer>> =>
      fetchBundleFiles(r, { insecureRegistries: ['127.0.0.1'], ...access });
    const res = await run(runRenderBundle, [`${host}/bundles/missing:v1`, '--install-namespace', 'x'], fetchBundle);
    expect(res.code).toBe(1);
    expect(res.err).toMatch(
      /^error getting manifest: error reading manifest v1 in 127\.0\.0\.1:\d+\/bundles\/missing: HTTP 404 Not Found: MANIFEST_UNKNOWN/,
    );
    expect(res.err).not.toMatch(/\n\s+at /);
  });

  it('refuses an image over its caps before writing the oversized file, naming image, layer and cap; flags set the caps', async () => {
    const host = inject('envtestRegistries').anonymous.host;
    const ref = `${host}/bundles/bomb:v1`;
    // The bundle plus a ~1 MB layer holding one file that declares 1 GiB.
    const bomb = zeroFileLayer('manifests/zeros.bin', 1 << 30);
    const image = buildImage({ layers: [buildLayer(filesToEntries(await filesOf(BUNDLE))), bomb] });
    const client = createImageClient({ insecureRegistries: ['127.0.0.1'] });
    await client.push(ref, image);
    client.close();
    const seen: ImageLimits[] = [];
    const fetchBundle = (r: string, access: Access): Promise<Map<string, Buffer>> => {
      seen.push(access.limits);
      return fetchBundleFiles(r, { insecureRegistries: ['127.0.0.1'], ...access });
    };
    const res = await run(runRenderBundle, [ref, '--install-namespace', 'x'], fetchBundle);
    expect(res).toEqual({
      code: 1,
      out: '',
      err: `error applying image: image ${host}/bundles/bomb@${image.digest}: layer ${bomb.digest}: exceeds the limit of ${32 << 20} unpacked bytes (--max-image-unpacked-bytes)\n`,
    });
    expect(seen).toEqual([BUNDLE_IMAGE_LIMITS]);

    const rbac = await run(runRbac, [ref, '--install-namespace', 'x', '--service-account', 'sa', '--max-image-files', '3'], fetchBundle);
    expect(rbac.code).toBe(1);
    expect(rbac.err).toMatch(/: exceeds the limit of 3 files \(--max-image-files\)\n$/);
    const usage = await run(runRenderBundle, [ref, '--install-namespace', 'x', '--max-image-unpacked-bytes', 'lots'], fetchBundle);
    expect(usage.code).toBe(2);
    expect(usage.err).toMatch(/^invalid --max-image-unpacked-bytes "lots"/);
  });
});

describe('pulling a bundle image with --authfile and --ca-file', () => {
  const binaries = inject('envtestBinaries');
  const args = ['--install-namespace', 'operators'];
  let tls: Registry | undefined;
  let tlsDir: string;
  let caPem = '';
  let bundleImage: ReturnType<typeof buildImage>;

  beforeAll(async () => {
    bundleImage = buildImage({ files: await filesOf(BUNDLE), labels: { 'operators.operatorframework.io.bundle.package.v1': 'multi-crd' } });
    tlsDir = await mkdtemp(join(tmpdir(), 'olmv1-render-tls-'));
    const ca = await createCertificateAuthority(tlsDir, 'registry-ca', 'olmv1 render test CA');
    const cert = await issueCertificate(ca, tlsDir, { name: 'registry', commonName: '127.0.0.1', ipAddresses: ['127.0.0.1'], usage: 'server' });
    caPem = ca.certPem;
    tls = await startRegistry({ binaries, tls: { certPath: cert.certPath, keyPath: cert.keyPath } });
    const client = createImageClient({ caPem });
    await client.push(`${tls?.host}/bundles/multi-crd:v1`, bundleImage);
    client.close();
  });

  afterAll(async () => {
    await tls?.stop();
    await rm(tlsDir, { recursive: true, force: true });
  });

  // Loopback registries are plain HTTP for the CLI by default (commands.ts); the TLS one must not be.
  const fetchBundle =
    (insecure: string[]) =>
    (r: string, access: Access): Promise<Map<string, Buffer>> =>
      fetchBundleFiles(r, { insecureRegistries: insecure, ...access });

  it('authenticates with the credentials of --authfile', async () => {
    const auth = inject('envtestRegistries').basicAuth;
    const ref = `${auth.host}/bundles/private-multi-crd:v1`;
    const user = { username: auth.username ?? '', password: auth.password ?? '' };
    const client = createImageClient({ insecureRegistries: ['127.0.0.1'], credentials: { auths: { [auth.host]: user } } });
    await client.push(ref, bundleImage);
    client.close();
    const authfile = join(await testTempDir('olmv1-render-auth-'), 'config.json');
    await writeFile(
      authfile,
      JSON.stringify({ auths: { [auth.host]: { auth: Buffer.from(`${user.username}:${user.password}`).toString('base64') } } }),
    );

    const fromDir = await run(runRenderBundle, [BUNDLE, ...args]);
    expect(await run(runRenderBundle, [ref, ...args, '--authfile', authfile], fetchBundle(['127.0.0.1']))).toEqual(fromDir);
    const anonymous = await run(runRenderBundle, [ref, ...args], fetchBundle(['127.0.0.1']));
    expect(anonymous.code).toBe(1);
    expect(anonymous.err).toContain('HTTP 401 Unauthorized');
  });

  it('trusts a registry with its own CA through --ca-file, and not without it', async () => {
    const ref = `${tls?.host}/bundles/multi-crd:v1`;
    const caFile = join(await testTempDir('olmv1-render-ca-'), 'ca.pem');
    await writeFile(caFile, caPem);
    const rbacArgs = [...args, '--service-account', 'installer'];
    const fromDir = await run(runRbac, [BUNDLE, ...rbacArgs]);
    expect(await run(runRbac, [ref, ...rbacArgs, '--ca-file', caFile], fetchBundle([]))).toEqual(fromDir);
    const untrusting = await run(runRbac, [ref, ...rbacArgs], fetchBundle([]));
    expect(untrusting.code).toBe(1);
    expect(untrusting.err).toMatch(/certificate/);
  });
});
