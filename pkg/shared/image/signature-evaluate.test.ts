import { generateKeyPairSync, sign as cryptoSign } from 'node:crypto';
import * as openpgp from 'openpgp';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseNormalized } from './reference.ts';
import { evaluatePolicy, type EvaluateDeps, type PolicyImage } from './signature-evaluate.ts';
import { parsePolicy, type Policy } from './signature-policy.ts';
import { SIGSTORE_SIGNATURE_ANNOTATION, SIGSTORE_SIGNATURE_MIME_TYPE, type SigstoreAttachment } from './signature-sigstore.ts';

const DIGEST = `sha256:${'c'.repeat(64)}`;
const image: PolicyImage = { ref: parseNormalized('quay.io/ns/app:v1'), digest: DIGEST };

let trusted: { pub: Uint8Array; priv: openpgp.PrivateKey };
let other: { pub: Uint8Array; priv: openpgp.PrivateKey };

async function key(name: string): Promise<{ pub: Uint8Array; priv: openpgp.PrivateKey }> {
  const { privateKey, publicKey } = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name }], format: 'object' });
  return { pub: publicKey.write(), priv: privateKey };
}

async function sign(priv: openpgp.PrivateKey, payload: unknown): Promise<Uint8Array> {
  const message = await openpgp.createMessage({ binary: Buffer.from(JSON.stringify(payload)) });
  return (await openpgp.sign({ message, signingKeys: priv, format: 'binary' })) as Uint8Array;
}

function claims(digest = DIGEST, reference = 'quay.io/ns/app:v1'): unknown {
  return {
    critical: { type: 'atomic container signature', image: { 'docker-manifest-digest': digest }, identity: { 'docker-reference': reference } },
    optional: { creator: 'test' },
  };
}

function policy(reqs: unknown[]): Policy {
  const r = parsePolicy(JSON.stringify({ default: [{ type: 'reject' }], transports: { docker: { 'quay.io/ns': reqs } } }), 'p.json');
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

function deps(sigs: Uint8Array[], attachments: SigstoreAttachment[] = []): EvaluateDeps {
  return {
    sigstoreAttachments: async () => attachments,
    readKey: async (path) => {
      if (path === '/trusted.gpg') return trusted.pub;
      if (path === '/armored.asc') return Buffer.from(openpgp.armor(openpgp.enums.armor.publicKey, trusted.pub));
      if (path === '/other.gpg') return other.pub;
      if (path === '/cosign.pub') return Buffer.from(pem(ecKeys));
      throw new Error(`open ${path}: no such file or directory`);
    },
    signatures: async () => sigs,
  };
}

const signedBy = (keyPath: string, extra: object = {}) => ({ type: 'signedBy', keyType: 'GPGKeys', keyPath, ...extra });

beforeAll(async () => {
  [trusted, other] = await Promise.all([key('trusted'), key('other')]);
});

describe('evaluatePolicy', () => {
  it('accepts a signature by the trusted key over this digest and identity (binary or armored key)', async () => {
    const sig = await sign(trusted.priv, claims());
    expect(await evaluatePolicy(policy([signedBy('/trusted.gpg')]), image, deps([sig]))).toEqual({ allowed: true, scope: 'docker:quay.io/ns' });
    expect((await evaluatePolicy(policy([signedBy('/armored.asc')]), image, deps([sig]))).allowed).toBe(true);
  });

  it('refuses with containers/image texts', async () => {
    const p = policy([signedBy('/trusted.gpg')]);
    const reason = async (sigs: Uint8Array[], pol = p) => {
      const d = await evaluatePolicy(pol, image, deps(sigs));
      return d.allowed ? 'allowed' : d.reason;
    };
    expect(await reason([])).toBe('A signature was required, but no signature exists');
    expect(await reason([await sign(other.priv, claims())])).toMatch(/^Key not found for key ID [0-9a-f]{16} in signature$/);
    expect(await reason([await sign(trusted.priv, claims(`sha256:${'d'.repeat(64)}`))])).toBe(
      `Signature for digest sha256:${'d'.repeat(64)} does not match`,
    );
    expect(await reason([await sign(trusted.priv, claims(DIGEST, 'quay.io/ns/evil:v1'))])).toBe(
      'Signature for identity quay.io/ns/evil:v1 is not accepted',
    );
    expect(await reason([await sign(trusted.priv, { critical: {} })])).toMatch(/^Invalid signature: /);
    expect(await reason([Buffer.from('garbage')])).not.toBe('allowed');
    expect(await reason([await sign(other.priv, claims()), await sign(trusted.priv, claims(DIGEST, 'quay.io/ns/evil:v1'))])).toMatch(
      /^None of the signatures were accepted, reasons: Key not found .*; Signature for identity quay.io\/ns\/evil:v1 is not accepted$/,
    );
    expect(await reason([], policy([signedBy('/missing.gpg')]))).toBe('A signature was required, but no signature exists');
    expect(await reason([await sign(trusted.priv, claims())], policy([signedBy('/missing.gpg')]))).toMatch(/no such file/);
  });

  it('one good signature among bad ones is enough; every requirement of the scope must accept', async () => {
    const good = await sign(trusted.priv, claims());
    const bad = await sign(other.priv, claims());
    expect((await evaluatePolicy(policy([signedBy('/trusted.gpg')]), image, deps([bad, good]))).allowed).toBe(true);
    const both = await evaluatePolicy(policy([signedBy('/trusted.gpg'), signedBy('/other.gpg')]), image, deps([good]));
    expect(both).toMatchObject({ allowed: false, requirement: 'signedBy (GPGKeys, keyPath /other.gpg, signedIdentity matchRepoDigestOrExact)' });
    expect((await evaluatePolicy(policy([signedBy('/trusted.gpg'), signedBy('/other.gpg')]), image, deps([good, bad]))).allowed).toBe(true);
  });

  it('honours signedIdentity: a signature for another tag passes matchRepository only', async () => {
    const sig = await sign(trusted.priv, claims(DIGEST, 'quay.io/ns/app:v2'));
    expect((await evaluatePolicy(policy([signedBy('/trusted.gpg')]), image, deps([sig]))).allowed).toBe(false);
    expect(
      (await evaluatePolicy(policy([signedBy('/trusted.gpg', { signedIdentity: { type: 'matchRepository' } })]), image, deps([sig]))).allowed,
    ).toBe(true);
  });

  it('reject, default scope, and X509 signedBy refused', async () => {
    const elsewhere = { ref: parseNormalized('docker.io/library/busybox:1'), digest: DIGEST };
    expect(await evaluatePolicy(policy([signedBy('/trusted.gpg')]), elsewhere, deps([]))).toEqual({
      allowed: false,
      scope: 'default',
      requirement: 'reject',
      reason: 'Running image docker://busybox:1 is rejected by policy.',
    });
    expect(await evaluatePolicy(policy([signedBy('/trusted.gpg', { keyType: 'X509Certificates' })]), image, deps([]))).toMatchObject({
      allowed: false,
    });
  });

  it('a signature store that fails refuses with its error', async () => {
    const failing: EvaluateDeps = {
      ...deps([]),
      signatures: () => Promise.reject(new Error('reading signature from https://s/x: status 500 (boom)')),
    };
    expect(await evaluatePolicy(policy([signedBy('/trusted.gpg')]), image, failing)).toMatchObject({
      allowed: false,
      reason: 'reading signature from https://s/x: status 500 (boom)',
    });
  });
});

const ecKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const otherEc = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const edKeys = generateKeyPairSync('ed25519');
const rsaKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = (k: { publicKey: { export(o: object): string | Buffer } }): string => k.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const b64 = (s: string): string => Buffer.from(s).toString('base64');

function cosignPayload(digest = DIGEST, reference = 'quay.io/ns/app:v1'): Buffer {
  return Buffer.from(
    JSON.stringify({
      critical: {
        identity: { 'docker-reference': reference },
        image: { 'docker-manifest-digest': digest },
        type: 'cosign container image signature',
      },
      optional: null,
    }),
  );
}

function attachment(
  keys: { privateKey: Parameters<typeof cryptoSign>[2] },
  payload = cosignPayload(),
  algorithm: string | null = 'sha256',
): SigstoreAttachment {
  const signature = cryptoSign(algorithm, payload, keys.privateKey).toString('base64');
  return { mimeType: SIGSTORE_SIGNATURE_MIME_TYPE, payload, annotations: { [SIGSTORE_SIGNATURE_ANNOTATION]: signature } };
}

describe('sigstoreSigned', () => {
  const sigstore = (extra: object) => ({ type: 'sigstoreSigned', ...extra });
  const reason = async (reqs: unknown[], attachments: SigstoreAttachment[], simple: Uint8Array[] = []) => {
    const d = await evaluatePolicy(policy(reqs), image, deps(simple, attachments));
    return d.allowed ? 'allowed' : d.reason;
  };

  it('accepts a signature over this digest and identity by a trusted key (ECDSA, Ed25519, RSA; keyPath, keyData, keyDatas)', async () => {
    expect(await reason([sigstore({ keyPath: '/cosign.pub' })], [attachment(ecKeys)])).toBe('allowed');
    expect(await reason([sigstore({ keyData: b64(pem(edKeys)) })], [attachment(edKeys, cosignPayload(), null)])).toBe('allowed');
    expect(await reason([sigstore({ keyData: b64(pem(rsaKeys)) })], [attachment(rsaKeys)])).toBe('allowed');
    expect(await reason([sigstore({ keyDatas: [b64(pem(otherEc)), b64(pem(ecKeys))] })], [attachment(ecKeys)])).toBe('allowed');
    const d = await evaluatePolicy(policy([sigstore({ keyPath: '/cosign.pub' })]), image, deps([], [attachment(otherEc)]));
    expect(d).toMatchObject({ allowed: false, requirement: 'sigstoreSigned (keyPath /cosign.pub, signedIdentity matchRepoDigestOrExact)' });
  });

  it('refuses with containers/image texts', async () => {
    const req = [sigstore({ keyPath: '/cosign.pub' })];
    expect(await reason(req, [])).toBe('A signature was required, but no signature exists');
    expect(await reason(req, [], [Buffer.from('simple')])).toBe(
      'A signature was required, but no signature exists (1 non-sigstore signatures, 0 sigstore non-signature attachments)',
    );
    expect(await reason(req, [{ mimeType: 'application/vnd.in-toto+json', payload: Buffer.from('{}'), annotations: {} }])).toBe(
      'A signature was required, but no signature exists (0 non-sigstore signatures, 1 sigstore non-signature attachments)',
    );
    expect(await reason(req, [attachment(otherEc)])).toBe(
      'cryptographic signature verification failed: invalid signature when validating ASN.1 encoded signature',
    );
    expect(await reason([sigstore({ keyData: b64(pem(rsaKeys)) })], [attachment(otherEc)])).toBe(
      'cryptographic signature verification failed: crypto/rsa: verification error',
    );
    expect(await reason(req, [attachment(ecKeys, cosignPayload(`sha256:${'d'.repeat(64)}`))])).toBe(
      `Signature for digest sha256:${'d'.repeat(64)} does not match`,
    );
    expect(await reason(req, [attachment(ecKeys, cosignPayload(DIGEST, 'quay.io/ns/evil:v1'))])).toBe(
      'Signature for identity "quay.io/ns/evil:v1" is not accepted',
    );
    expect(await reason(req, [{ ...attachment(ecKeys), annotations: {} }])).toBe(`missing ${SIGSTORE_SIGNATURE_ANNOTATION} annotation`);
    expect(await reason(req, [attachment(ecKeys, Buffer.from('{"critical":{},"optional":null}'))])).toBe('Key "type" missing in a JSON object');
    const wrongType = Buffer.from(cosignPayload().toString().replace('cosign container image signature', 'atomic container signature'));
    expect(await reason(req, [attachment(ecKeys, wrongType)])).toBe('Unrecognized signature type atomic container signature');
    expect(await reason(req, [attachment(otherEc), attachment(ecKeys, cosignPayload(DIGEST, 'quay.io/ns/evil:v1'))])).toMatch(
      /^None of the signatures were accepted, reasons: cryptographic .*; Signature for identity "quay.io\/ns\/evil:v1" is not accepted$/,
    );
    expect(await reason([sigstore({ keyData: b64('not a key') })], [attachment(ecKeys)])).toMatch(/^parsing public key: /);
  });

  it('certificate roots and Rekor are refused, never skipped', async () => {
    expect(await reason([sigstore({ pki: { caRootsPath: '/r.pem', subjectEmail: 'a@b' } })], [attachment(ecKeys)])).toBe(
      'sigstoreSigned with pki is not supported by this implementation',
    );
    expect(await reason([sigstore({ keyPath: '/cosign.pub', rekorPublicKeyPath: '/rekor.pub' })], [attachment(ecKeys)])).toBe(
      'sigstoreSigned with a Rekor public key is not supported by this implementation',
    );
  });

  it('an attachment store that fails refuses with its error', async () => {
    const failing: EvaluateDeps = { ...deps([]), sigstoreAttachments: () => Promise.reject(new Error('error reading manifest sha256-x.sig')) };
    expect(await evaluatePolicy(policy([sigstore({ keyPath: '/cosign.pub' })]), image, failing)).toMatchObject({
      allowed: false,
      reason: 'error reading manifest sha256-x.sig',
    });
  });
});
