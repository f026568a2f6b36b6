// `olmv1 bundle push` against a real registry: the pushed image carries operator-sdk's bundle
// labels, renders exactly as its directory does when pulled back with `render bundle IMAGE`, and
// an invalid bundle is refused with the parser's message before anything is pushed.
import { cp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import { fetchBundleFiles } from '../../cmd/olmv1/bundle-image.ts';
import { runBundlePush } from '../../cmd/olmv1/bundle-push.ts';
import { runRenderBundle } from '../../cmd/olmv1/render.ts';
import type { RegistryAccess } from '../../cmd/olmv1/registry-access.ts';
import { createDiskImageCache, createImageClient, type ImageLimits } from '../../pkg/shared/image/index.ts';
import { captureIO } from '../support/command-io.ts';
import { testTempDir } from '../support/temp-dir.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/example-operator/bundles/1.0.0', import.meta.url));
const deps = { insecureRegistries: ['127.0.0.1'], defaultAuthFile: undefined };

describe('olmv1 bundle push', () => {
  it('pushes a bundle image that carries the bundle labels and renders as its directory does', async () => {
    const host = inject('envtestRegistries').anonymous.host;
    const repo = `${host}/bundle-push/example-operator-bundle`;
    const ref = `${repo}:v1.0.0`;
    const cli = captureIO();
    expect(await runBundlePush([EXAMPLE, ref], cli, deps)).toBe(0);
    const pushed = cli.out().trim();
    // By digest, without the tag: OLM refuses references with both.
    expect(pushed).toMatch(new RegExp(`^${repo.replaceAll('.', '\\.')}@sha256:[0-9a-f]{64}$`));
    expect(cli.err()).toMatch(/^validating bundle .*\npushing \d+\.\d MB to /);

    const client = createImageClient({ insecureRegistries: ['127.0.0.1'] });
    const cache = createDiskImageCache(await testTempDir('bundle-push-'));
    const pulled = await client.pull(pushed, { owner: 'bundle-push', cache });
    client.close();
    expect(pulled.config.labels).toEqual({
      'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
      'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
      'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
      'operators.operatorframework.io.bundle.package.v1': 'example-operator',
      'operators.operatorframework.io.bundle.channels.v1': 'stable,candidate',
      'operators.operatorframework.io.bundle.channel.default.v1': 'stable',
    });

    // Pulled back by digest with `render bundle IMAGE`: the same objects as the directory.
    const fetchBundle = (r: string, access: RegistryAccess & { limits: ImageLimits }) =>
      fetchBundleFiles(r, { ...access, insecureRegistries: ['127.0.0.1'] });
    const fromDir = captureIO();
    expect(await runRenderBundle([EXAMPLE, '--install-namespace', 'operators'], fromDir, {})).toBe(0);
    const fromImage = captureIO();
    expect(await runRenderBundle([pushed, '--install-namespace', 'operators'], fromImage, { fetchBundle })).toBe(0);
    expect(fromImage.err()).toBe('');
    expect(fromImage.out()).toBe(fromDir.out());
    expect(fromImage.out()).toContain('kind: CustomResourceDefinition');
  });

  it('refuses an invalid bundle with the parser message and pushes nothing', async () => {
    const host = inject('envtestRegistries').anonymous.host;
    const dir = join(await testTempDir('bundle-push-invalid-'), 'bundle');
    await cp(EXAMPLE, dir, { recursive: true });
    await writeFile(join(dir, 'manifests', 'broken.yaml'), 'apiVersion: v1\nmetadata: {name: x}\n');
    const cli = captureIO();
    expect(await runBundlePush([dir, `${host}/bundle-push/invalid:v1`], cli, deps)).toBe(1);
    expect(cli.err()).toContain(
      `error parsing objects in "manifests/broken.yaml": unable to decode "manifests/broken.yaml": Object 'Kind' is missing in`,
    );
    expect(cli.err()).toContain('not pushed: the bundle is invalid');
    expect(cli.out()).toBe('');
    expect((await fetch(`http://${host}/v2/bundle-push/invalid/manifests/v1`)).status).toBe(404);

    await rm(join(dir, 'manifests', 'broken.yaml'));
    await writeFile(join(dir, 'metadata', 'annotations.yaml'), 'annotations:\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n');
    const noPackage = captureIO();
    expect(await runBundlePush([dir, `${host}/bundle-push/invalid:v1`], noPackage, deps)).toBe(1);
    expect(noPackage.err()).toContain(
      'metadata/annotations.yaml: annotation operators.operatorframework.io.bundle.package.v1 (the package name) is not set',
    );
  });
});
