import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyChecksums } from './checksums.ts';
import { makeRelease, releaseInputProblem, type ReleaseTools } from './release.ts';

const digest = `sha256:${'e'.repeat(64)}`;
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

function tools(rendered: (kustomization: string) => string, signed: string[]): ReleaseTools {
  let overlay = '';
  return {
    pushImage: async () => digest,
    sign: async (ref) => void signed.push(ref),
    extractConfig: async (dir) => {
      // config/boxcutter's ClusterObjectSet CRD, which install.sh's CRD check covers too (decision 0154).
      await mkdir(join(dir, 'config', 'crd', 'experimental'), { recursive: true });
      const cos =
        'kind: CustomResourceDefinition\nmetadata: {name: clusterobjectsets.olm.operatorframework.io}\nspec: {versions: [{name: v1, served: true}]}\n';
      await writeFile(join(dir, 'config', 'crd', 'experimental', 'olm.operatorframework.io_clusterobjectsets.yaml'), cos);
    },
    kustomize: async (dir) => {
      overlay = await readFile(join(dir, 'kustomization.yaml'), 'utf8');
      return rendered(overlay);
    },
    packageLock: async () => JSON.stringify({ name: 'olmv1', packages: { '': {}, 'node_modules/pino': { version: '9.0.0' } } }),
    commitTime: async () => '2026-11-28T00:00:00Z',
    debianPackages: async () => [],
    log: () => undefined,
  };
}

describe('makeRelease', () => {
  it('pushes, signs the digest, renders config/ with cert-manager and the image by digest, and writes checksummed files', async () => {
    const out = await mkdtemp(join(tmpdir(), 'release-test-'));
    dirs.push(out);
    const signed: string[] = [];
    const release = await makeRelease(
      { version: 'v1.0.0', repository: '127.0.0.1:5000/olmv1/olmv1', outDir: out },
      tools((k) => {
        const parsed = JSON.parse(k) as {
          images: Array<{ newName: string; digest: string }>;
          components: string[];
          patches: Array<{ target: { name: string }; patch: string }>;
        };
        expect(parsed.components).toEqual(['../config/cert-manager']);
        // Both Deployments mount the optional ConfigMap install.sh writes registries.conf drop-ins into.
        for (const name of ['catalogd-controller-manager', 'operator-controller-controller-manager']) {
          const patch = parsed.patches.find((p) => p.target.name === name && p.patch.includes('registries-conf'))?.patch ?? '[]';
          expect(JSON.parse(patch)).toEqual([
            expect.objectContaining({ value: { name: 'registries-conf', configMap: { name: 'olmv1-registries-conf', optional: true } } }),
            expect.objectContaining({ value: { name: 'registries-conf', mountPath: '/etc/containers/registries.conf.d', readOnly: true } }),
          ]);
        }
        return `containers:\n- image: ${parsed.images[0]?.newName}@${parsed.images[0]?.digest}\n`;
      }, signed),
    );
    expect(release.imageRef).toBe(`127.0.0.1:5000/olmv1/olmv1@${digest}`);
    expect(signed).toEqual([release.imageRef]);
    const names = ['olmv1.yaml', 'install.sh', 'sbom.spdx.json'];
    const files = await Promise.all(names.map(async (name) => ({ name, content: await readFile(join(out, 'v1.0.0', name)) })));
    expect(verifyChecksums(await readFile(join(out, 'v1.0.0', 'SHA256SUMS'), 'utf8'), files)).toEqual([]);
    expect(await readFile(join(out, 'v1.0.0', 'olmv1.yaml'), 'utf8')).toContain(`image: ${release.imageRef}`);
    // The manifest carries no ClusterObjectSet CRD; install.sh still checks the cluster's against the overlay's.
    const script = await readFile(join(out, 'v1.0.0', 'install.sh'), 'utf8');
    expect(script).toContain('for crd in clusterobjectsets.olm.operatorframework.io; do');
    expect(script).toContain('served clusterobjectsets.olm.operatorframework.io v1');
  });

  it('refuses a manifest with an image not pinned by digest, writing nothing', async () => {
    const out = await mkdtemp(join(tmpdir(), 'release-test-'));
    dirs.push(out);
    await writeFile(join(out, 'marker'), '');
    await expect(
      makeRelease(
        { version: 'v1.0.0', repository: 'r.example/olmv1', outDir: out },
        tools(() => '- image: quay.io/x/y:latest\n', []),
      ),
    ).rejects.toThrow(/not pinned by digest: quay.io\/x\/y:latest/);
    await expect(readFile(join(out, 'v1.0.0', 'olmv1.yaml'))).rejects.toThrow();
  });
});

describe('releaseInputProblem', () => {
  it('takes v<semver> and HOST[:PORT]/REPO, and says what is wrong otherwise', () => {
    expect(releaseInputProblem({ version: 'v1.2.3-rc.1', repository: 'registry.example:5000/olmv1/olmv1' })).toBeUndefined();
    expect(releaseInputProblem({ version: '1.2.3', repository: 'r.example/o' })).toMatch(/--version/);
    expect(releaseInputProblem({ version: 'v1.2.3', repository: 'olmv1' })).toMatch(/--registry/);
  });
});
