// The containers signature policy on the image client's pulls, with the run's real registry and
// real signatures: a GnuPG key made here, `skopeo copy --sign-by` storing the signature in a
// file:// lookaside that a registries.d file names. Each verdict is compared with skopeo's own
// (containers/image, the library upstream's components pull with) under the same policy files.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildImage, createDiskImageCache, createImageClient, type ImageClient, type SignaturePolicyPaths } from '../../pkg/shared/image/index.ts';
import { lookasideRegistriesD, makeGpgKey, skopeoSignedCopy, skopeoVerdict, type GpgKey } from '../support/image-signing.ts';

const registry = inject('envtestRegistries').anonymous.host;
const run = randomBytes(3).toString('hex');
const ns = `${registry}/sig-${run}`;

let work: string;
let trusted: GpgKey;
let stranger: GpgKey;
let registriesDir: string;
let policyFile: string;
let paths: SignaturePolicyPaths;
let client: ImageClient;

async function setPolicy(policy: unknown): Promise<void> {
  await writeFile(policyFile, JSON.stringify(policy));
}

/** Our verdict on reading `ref` (`accepted` or the error message) and skopeo's, for the same files. */
async function verdicts(ref: string): Promise<{ ours: string; skopeo: string }> {
  let ours = 'accepted';
  try {
    await client.readImageFiles(ref);
  } catch (e) {
    ours = e instanceof Error ? e.message : String(e);
  }
  const skopeo = await skopeoVerdict(ref, policyFile, registriesDir, await mkdtemp(join(work, 'out-')));
  return { ours, skopeo };
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'olmv1-sigpolicy-'));
  [trusted, stranger] = await Promise.all([makeGpgKey(work, 'trusted'), makeGpgKey(work, 'stranger')]);
  ({ registriesDir } = await lookasideRegistriesD(work));
  policyFile = join(work, 'policy.json');
  paths = { userPolicy: join(work, 'home-policy.json'), systemPolicy: policyFile, systemRegistriesDir: registriesDir };
  client = createImageClient({ insecureRegistries: [registry], signaturePolicy: paths });
  const pusher = createImageClient({ insecureRegistries: [registry] });
  try {
    await pusher.push(`${ns}/app:v1`, buildImage({ files: new Map([['data.txt', Buffer.from(`signed ${run}`)]]) }));
    await pusher.push(`${ns}/plain:v1`, buildImage({ files: new Map([['data.txt', Buffer.from(`unsigned ${run}`)]]) }));
  } finally {
    pusher.close();
  }
  await skopeoSignedCopy(`${ns}/app:v1`, `${ns}/signed:v1`, trusted, registriesDir);
}, 60_000);

afterAll(async () => {
  client?.close();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

const signedBy = (keyPath: string) => [{ type: 'signedBy', keyType: 'GPGKeys', keyPath }];

describe('signature policy on pulls', () => {
  it('accepts the signed image and refuses the unsigned one, as skopeo does', async () => {
    await setPolicy({ default: [{ type: 'reject' }], transports: { docker: { [`${ns}`]: signedBy(trusted.publicKeyPath) } } });
    expect(await verdicts(`${ns}/signed:v1`)).toEqual({ ours: 'accepted', skopeo: 'accepted' });
    const unsigned = await verdicts(`${ns}/plain:v1`);
    expect(unsigned.ours).toBe('error copying image: Source image rejected: A signature was required, but no signature exists');
    expect(unsigned.skopeo).toBe('Source image rejected: A signature was required, but no signature exists');
  });

  it('refuses a signature made by another key, as skopeo does', async () => {
    await setPolicy({ default: [{ type: 'reject' }], transports: { docker: { [`${ns}/signed`]: signedBy(stranger.publicKeyPath) } } });
    const { ours, skopeo } = await verdicts(`${ns}/signed:v1`);
    // upstream's pure-Go OpenPGP mechanism's text; skopeo's gpgme build words it differently
    expect(ours).toMatch(/^error copying image: Source image rejected: Key not found for key ID [0-9a-f]{16} in signature$/);
    expect(skopeo).toMatch(/^Source image rejected: Invalid GPG signature/);
  });

  it('a more specific scope that accepts anything wins over a stricter namespace', async () => {
    await setPolicy({
      default: [{ type: 'reject' }],
      transports: { docker: { [ns]: signedBy(trusted.publicKeyPath), [`${ns}/plain:v1`]: [{ type: 'insecureAcceptAnything' }] } },
    });
    expect(await verdicts(`${ns}/plain:v1`)).toEqual({ ours: 'accepted', skopeo: 'accepted' });
    const rejected = await verdicts(`${registry}/elsewhere-${run}/x:v1`);
    expect(rejected.ours).toMatch(/^error getting manifest: /); // reading the manifest comes first here, as in skopeo
  });

  it('reads the policy again at each pull: a change while running applies to the next pull', async () => {
    const cache = createDiskImageCache(await mkdtemp(join(work, 'cache-')));
    await setPolicy({ default: [{ type: 'insecureAcceptAnything' }] });
    await expect(client.pull(`${ns}/plain:v1`, { owner: 'a', cache })).resolves.toMatchObject({ fromCache: false });
    await setPolicy({ default: [{ type: 'reject' }] });
    await expect(client.pull(`${ns}/plain:v1`, { owner: 'b', cache })).rejects.toThrow(
      `error copying image: Source image rejected: Running image docker://${ns}/plain:v1 is rejected by policy.`,
    );
    // the per-user file, once it exists, takes precedence over the system one
    await writeFile(paths.userPolicy ?? '', JSON.stringify({ default: [{ type: 'insecureAcceptAnything' }] }));
    await expect(client.pull(`${ns}/plain:v1`, { owner: 'b', cache })).resolves.toMatchObject({ fromCache: false });
    await rm(paths.userPolicy ?? '');
  });

  it('a malformed policy refuses the pull, naming the file, instead of accepting anything', async () => {
    await writeFile(policyFile, '{"default": [{"type": "insecureAcceptAnything"}], "transports": {"docker": {"x": [{"type": "signedByAnyone"}]}}}');
    await expect(client.readImageFiles(`${ns}/plain:v1`)).rejects.toThrow(
      `error loading policy context: invalid policy in "${policyFile}": Unknown policy requirement type "signedByAnyone"`,
    );
    expect((await verdicts(`${ns}/plain:v1`)).skopeo).toContain('Unknown policy requirement type "signedByAnyone"');
  });

  it('without any policy file, anything is accepted, as upstream', async () => {
    await rm(policyFile, { force: true });
    await expect(client.readImageFiles(`${ns}/plain:v1`)).resolves.toMatchObject({ digest: expect.stringMatching(/^sha256:/) });
  });
});
