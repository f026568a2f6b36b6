// `olmv1 render bundle IMAGE` and `olmv1 rbac IMAGE` pull the bundle from a real registry and
// produce exactly what the same bundle directory renders to.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import { fetchBundleFiles } from '../../cmd/olmv1/bundle-image.ts';
import { runRbac } from '../../cmd/olmv1/rbac.ts';
import { runRenderBundle } from '../../cmd/olmv1/render.ts';
import { buildImage, createImageClient } from '../../pkg/image/index.ts';

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

async function run(
  cmd: typeof runRenderBundle,
  args: string[],
  fetchBundle?: (ref: string) => Promise<Map<string, Buffer>>,
): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  const code = await cmd(args, { stdout, stderr }, fetchBundle === undefined ? {} : { fetchBundle });
  return { code, out: Buffer.concat(out).toString(), err: Buffer.concat(err).toString() };
}

describe('rendering a bundle image', () => {
  it('renders and derives RBAC from a pushed image exactly as from the directory', async () => {
    const host = inject('envtestRegistries').anonymous.host;
    const ref = `${host}/bundles/multi-crd:v1`;
    const client = createImageClient({ insecureRegistries: ['127.0.0.1'] });
    await client.push(ref, buildImage({ files: await filesOf(BUNDLE), labels: { 'operators.operatorframework.io.bundle.package.v1': 'multi-crd' } }));
    client.close();
    const fetchBundle = (r: string): Promise<Map<string, Buffer>> => fetchBundleFiles(r, { insecureRegistries: ['127.0.0.1'] });

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
    const fetchBundle = (r: string): Promise<Map<string, Buffer>> => fetchBundleFiles(r, { insecureRegistries: ['127.0.0.1'] });
    const res = await run(runRenderBundle, [`${host}/bundles/missing:v1`, '--install-namespace', 'x'], fetchBundle);
    expect(res.code).toBe(1);
    expect(res.err).toMatch(
      /^error getting manifest: error reading manifest v1 in 127\.0\.0\.1:\d+\/bundles\/missing: HTTP 404 Not Found: MANIFEST_UNKNOWN/,
    );
    expect(res.err).not.toMatch(/\n\s+at /);
  });
});
