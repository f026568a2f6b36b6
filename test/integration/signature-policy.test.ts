// The containers signature policy on the image client's pulls, with the run's real registry and
// real signatures: a GnuPG key made here, `skopeo copy --sign-by` storing the signature in a
// file:// lookaside that a registries.d file names. Each verdict is compared with skopeo's own
// (containers/image, the library upstream's components pull with) under the same policy files.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildImage, createDiskImageCache, createImageClient, type ImageClient, type SignaturePolicyPaths } from '../../pkg/shared/image/index.ts';
import {
  attachmentsRegistriesD,
  cosignSign,
  lookasideRegistriesD,
  makeGpgKey,
  makeSigstoreKey,
  skopeoSignedCopy,
  skopeoVerdict,
  type GpgKey,
  type SigstoreKey,
} from '../support/image-signing.ts';
import { envtestCosign } from '../envtest/deferred-tools.ts';

const execFileAsync = promisify(execFile);
const registry = inject('envtestRegistries').anonymous.host;
const run = randomBytes(3).toString('hex');
const ns = `${registry}/sig-${run}`;
// At collection time, where no timeout applies (test/envtest/deferred-tools.ts).
const cosign = await envtestCosign();

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

// sigstoreSigned with public keys: cosign key pairs made here and signatures made by `cosign sign`
// (cosign built from the Go module proxy, test/envtest/cosign.ts), stored in the run's registry as
// the attachment `sha256-<hex>.sig` (registries.d use-sigstore-attachments). Debian's skopeo
// cannot take part: its build has sigstore disabled (signing and, as the last test shows,
// verifying), so each verdict is compared with `cosign verify` instead.
describe('sigstoreSigned on pulls', () => {
  let sigTrusted: SigstoreKey;
  let sigStranger: SigstoreKey;
  let attachmentsDir: string;
  let sigPolicyFile: string;
  let sigClient: ImageClient;
  let signedDigest: string;

  beforeAll(async () => {
    [sigTrusted, sigStranger] = await Promise.all([makeSigstoreKey(cosign, work, 'sig-trusted'), makeSigstoreKey(cosign, work, 'sig-stranger')]);
    attachmentsDir = await attachmentsRegistriesD(work);
    sigPolicyFile = join(work, 'sigstore-policy.json');
    sigClient = createImageClient({
      insecureRegistries: [registry],
      signaturePolicy: { systemPolicy: sigPolicyFile, systemRegistriesDir: attachmentsDir },
    });
    const pusher = createImageClient({ insecureRegistries: [registry] });
    try {
      signedDigest = await pusher.push(`${ns}/sigstore:v1`, buildImage({ files: new Map([['data.txt', Buffer.from(`sigstore ${run}`)]]) }));
    } finally {
      pusher.close();
    }
    await cosignSign(cosign, `${ns}/sigstore@${signedDigest}`, sigTrusted);
  }, 60_000);

  afterAll(() => sigClient?.close());

  async function ourVerdict(policy: unknown, ref: string): Promise<string> {
    await writeFile(sigPolicyFile, JSON.stringify(policy));
    try {
      await sigClient.readImageFiles(ref);
      return 'accepted';
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  }

  /** `cosign verify`'s verdict: `accepted`, or its error output. */
  async function cosignVerdict(key: SigstoreKey, ref: string): Promise<string> {
    try {
      await execFileAsync(cosign, [
        'verify',
        '--key',
        key.publicKeyPath,
        '--insecure-ignore-tlog=true',
        '--allow-http-registry',
        '--allow-insecure-registry',
        ref,
      ]);
      return 'accepted';
    } catch (e) {
      return String((e as { stderr?: unknown }).stderr ?? e);
    }
  }

  // cosign claims the repository without tag: matchRepository is what such signatures need (as upstream).
  const sigstoreSigned = (keyPath: string, signedIdentity: unknown = { type: 'matchRepository' }) => ({
    default: [{ type: 'reject' }],
    transports: { docker: { [ns]: [{ type: 'sigstoreSigned', keyPath, signedIdentity }] } },
  });

  it('accepts the image cosign signed with the trusted key, by tag and by digest, as cosign verify does', async () => {
    expect(await ourVerdict(sigstoreSigned(sigTrusted.publicKeyPath), `${ns}/sigstore:v1`)).toBe('accepted');
    expect(await ourVerdict(sigstoreSigned(sigTrusted.publicKeyPath), `${ns}/sigstore@${signedDigest}`)).toBe('accepted');
    expect(await cosignVerdict(sigTrusted, `${ns}/sigstore:v1`)).toBe('accepted');
  });

  it('refuses the unsigned image, as cosign verify does', async () => {
    expect(await ourVerdict(sigstoreSigned(sigTrusted.publicKeyPath), `${ns}/plain:v1`)).toBe(
      'error copying image: Source image rejected: A signature was required, but no signature exists',
    );
    expect(await cosignVerdict(sigTrusted, `${ns}/plain:v1`)).toMatch(/no signatures found/);
  });

  it('refuses a signature made by another key, as cosign verify does', async () => {
    expect(await ourVerdict(sigstoreSigned(sigStranger.publicKeyPath), `${ns}/sigstore:v1`)).toBe(
      'error copying image: Source image rejected: cryptographic signature verification failed: invalid signature when validating ASN.1 encoded signature',
    );
    expect(await cosignVerdict(sigStranger, `${ns}/sigstore:v1`)).toMatch(/invalid signature when validating ASN\.1 encoded signature/);
  });

  it("refuses cosign's tagless identity under the default matchRepoDigestOrExact, by tag and by digest, as upstream's catalogd does", async () => {
    const strict = sigstoreSigned(sigTrusted.publicKeyPath, { type: 'matchRepoDigestOrExact' });
    expect(await ourVerdict(strict, `${ns}/sigstore:v1`)).toBe(
      `error copying image: Source image rejected: Signature for identity "${ns}/sigstore" is not accepted`,
    );
    expect(await ourVerdict(strict, `${ns}/sigstore@${signedDigest}`)).toBe(
      `error copying image: Source image rejected: Signature for identity "${ns}/sigstore" is not accepted`,
    );
  });

  it("Debian's skopeo cannot evaluate sigstoreSigned (why it is not the reference here)", async () => {
    await writeFile(sigPolicyFile, JSON.stringify(sigstoreSigned(sigTrusted.publicKeyPath)));
    const skopeo = await skopeoVerdict(`${ns}/sigstore:v1`, sigPolicyFile, attachmentsDir, await mkdtemp(join(work, 'out-')));
    expect(skopeo).toBe('Source image rejected: Debian-local change: sigstore disabled');
  });
});
