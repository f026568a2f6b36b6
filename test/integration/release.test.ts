// `npm run release` against the run's registry: the project image of a fixed commit (the build
// buildProjectImage caches per tree, shared with project-image.test.ts and `olmv1 up`: no second
// image build), pushed under the version's tag, signed with a cosign key pair made here, and
// dist/release/<version>/ written. The manifest pins every image by digest, the signature is
// accepted by the project's own sigstoreSigned policy and by `cosign verify`, an unsigned image
// in the same repository is refused by that policy, and SHA256SUMS matches the files.
//
// Not here yet: the proof that two builds without cache give one digest (docs/release.md).
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RELEASE_FILES, unpinnedImages, verifyChecksums } from '../../pkg/olmv1/release/index.ts';
import { buildImage, createImageClient } from '../../pkg/shared/image/index.ts';
import { envtestCosign } from '../envtest/deferred-tools.ts';
import { attachmentsRegistriesD, makeSigstoreKey, type SigstoreKey } from '../support/image-signing.ts';

const execFileAsync = promisify(execFile);
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const env = { ...process.env, PATH: `${process.env.PATH ?? ''}:/usr/sbin:/sbin` };
const VERSION = 'v0.0.0-test';

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
if (missing !== undefined) console.warn(`release.test.ts skipped: ${missing}`);

const revision = execFileSync('git', ['-C', REPO, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
const registry = inject('envtestRegistries').anonymous.host;
const repository = `${registry}/release-${randomBytes(3).toString('hex')}/olmv1`;
// At collection time, where no timeout applies (test/envtest/deferred-tools.ts).
const cosign = await envtestCosign();

describe.skipIf(missing !== undefined)('npm run release', () => {
  let work: string;
  let key: SigstoreKey;
  let imageRef: string;
  let dir: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'olmv1-release-'));
    key = await makeSigstoreKey(cosign, work, 'release');
    const { stdout } = await execFileAsync(
      join(REPO, 'node_modules/.bin/node'),
      [
        join(REPO, 'scripts/release.ts'),
        '--version',
        VERSION,
        '--registry',
        repository,
        '--key',
        key.privateKeyPath,
        '--revision',
        revision,
        '--out',
        work,
      ],
      { env: { ...env, COSIGN: cosign, COSIGN_PASSWORD: key.passphrase }, maxBuffer: 64 * 1024 * 1024 },
    );
    const result = JSON.parse(stdout) as { imageRef: string; dir: string; signed: boolean };
    expect(result.signed).toBe(true);
    imageRef = result.imageRef;
    dir = result.dir;
  }, 1_800_000);

  afterAll(async () => {
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  });

  it('writes a manifest that pins every image by digest, the release image among them', async () => {
    expect(imageRef).toMatch(new RegExp(`^${repository.replaceAll('.', '\\.')}@sha256:[0-9a-f]{64}$`));
    const manifest = await readFile(join(dir, RELEASE_FILES.manifest), 'utf8');
    expect(unpinnedImages(manifest)).toEqual([]);
    expect(manifest).toContain(`image: ${imageRef}`);
    for (const kind of [
      'CustomResourceDefinition',
      'Deployment',
      'MutatingWebhookConfiguration',
      'NetworkPolicy',
      'PodDisruptionBudget',
      'ClusterRole',
      'Certificate',
    ])
      expect(manifest).toContain(`kind: ${kind}\n`);
  });

  it('SHA256SUMS matches the files written', async () => {
    const names = [RELEASE_FILES.manifest, RELEASE_FILES.install, RELEASE_FILES.sbom];
    const files = await Promise.all(names.map(async (name) => ({ name, content: await readFile(join(dir, name)) })));
    const sums = await readFile(join(dir, RELEASE_FILES.sums), 'utf8');
    expect(sums.trim().split('\n')).toHaveLength(names.length);
    expect(verifyChecksums(sums, files)).toEqual([]);
  });

  it('the signature verifies with our sigstoreSigned policy and with cosign verify; an unsigned image is refused', async () => {
    const policyFile = join(work, 'policy.json');
    const repo = repository;
    await writeFile(
      policyFile,
      JSON.stringify({
        default: [{ type: 'reject' }],
        transports: { docker: { [repo]: [{ type: 'sigstoreSigned', keyPath: key.publicKeyPath, signedIdentity: { type: 'matchRepository' } }] } },
      }),
    );
    const client = createImageClient({
      insecureRegistries: [registry],
      signaturePolicy: { systemPolicy: policyFile, systemRegistriesDir: await attachmentsRegistriesD(work) },
    });
    const pusher = createImageClient({ insecureRegistries: [registry] });
    try {
      const opened = await client.openLayers(imageRef, {});
      expect(opened.layers.length).toBeGreaterThan(1);
      await execFileAsync(cosign, [
        'verify',
        '--key',
        key.publicKeyPath,
        '--insecure-ignore-tlog=true',
        '--allow-http-registry',
        '--allow-insecure-registry',
        imageRef,
      ]);

      const unsigned = await pusher.push(`${repo}:unsigned`, buildImage({ files: new Map([['data.txt', Buffer.from('unsigned')]]) }));
      await expect(client.openLayers(`${repo}@${unsigned}`, {})).rejects.toThrow(/signature/i);
    } finally {
      client.close();
      pusher.close();
    }
  }, 120_000);
});
