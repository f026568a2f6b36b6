import * as openpgp from 'openpgp';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseNormalized } from './reference.ts';
import { evaluatePolicy, type EvaluateDeps, type PolicyImage } from './signature-evaluate.ts';
import { parsePolicy, type Policy } from './signature-policy.ts';

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

function deps(sigs: Uint8Array[]): EvaluateDeps {
  return {
    readKey: async (path) => {
      if (path === '/trusted.gpg') return trusted.pub;
      if (path === '/armored.asc') return Buffer.from(openpgp.armor(openpgp.enums.armor.publicKey, trusted.pub));
      if (path === '/other.gpg') return other.pub;
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

  it('reject, default scope, and sigstoreSigned (refused, not skipped)', async () => {
    const elsewhere = { ref: parseNormalized('docker.io/library/busybox:1'), digest: DIGEST };
    expect(await evaluatePolicy(policy([signedBy('/trusted.gpg')]), elsewhere, deps([]))).toEqual({
      allowed: false,
      scope: 'default',
      requirement: 'reject',
      reason: 'Running image docker://busybox:1 is rejected by policy.',
    });
    expect(await evaluatePolicy(policy([{ type: 'sigstoreSigned', keyPath: '/c.pub' }]), image, deps([]))).toMatchObject({
      allowed: false,
      requirement: 'sigstoreSigned',
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
