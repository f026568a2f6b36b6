import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  beginSignIn,
  discover,
  oidcSignIn,
  pkceChallenge,
  verifyIdToken,
  type FetchJson,
  type OidcProvider,
  type PendingSignIn,
} from './oidc-sign-in.ts';

const ISSUER = 'https://issuer.test:4444/';
const provider: OidcProvider = {
  issuer: ISSUER,
  authorizationEndpoint: 'https://issuer.test:4444/oauth2/auth',
  tokenEndpoint: 'https://issuer.test:4444/oauth2/token',
  jwksUri: 'https://issuer.test:4444/.well-known/jwks.json',
};
const client = { clientId: 'olmv1-console', redirectUri: 'https://console.test/oidc/callback' };
const NOW = 1_800_000_000_000;

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwks = {
  keys: [
    { ...rsa.publicKey.export({ format: 'jwk' }), kid: 'r1', use: 'sig' },
    { ...ec.publicKey.export({ format: 'jwk' }), kid: 'e1', use: 'sig' },
  ],
};

function jwt(claims: Record<string, unknown>, o: { key?: KeyObject; kid?: string; alg?: string } = {}): string {
  const alg = o.alg ?? 'RS256';
  const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const input = `${enc({ alg, kid: o.kid ?? 'r1', typ: 'JWT' })}.${enc(claims)}`;
  const key = o.key ?? rsa.privateKey;
  const sig = sign('sha256', Buffer.from(input), alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : key);
  return `${input}.${sig.toString('base64url')}`;
}

const good = {
  iss: ISSUER,
  aud: 'olmv1-console',
  exp: NOW / 1000 + 3600,
  iat: NOW / 1000,
  nonce: 'n1',
  email: 'admin@example.test',
  groups: ['olmv1-admins'],
};
const want = { issuer: ISSUER, audience: 'olmv1-console', nonce: 'n1', now: NOW };

describe('verifyIdToken', () => {
  it('accepts a token signed by a key of the JWKS (RS256 and ES256)', () => {
    expect(verifyIdToken(jwt(good), jwks, want)).toMatchObject({ ok: true, claims: { email: 'admin@example.test' } });
    expect(verifyIdToken(jwt(good, { alg: 'ES256', kid: 'e1', key: ec.privateKey }), jwks, want).ok).toBe(true);
  });

  it.each([
    ['another key', jwt(good, { key: other.privateKey }), 'bad signature'],
    ['an unknown kid', jwt(good, { kid: 'x' }), 'no key x'],
    [
      'alg none',
      `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(good)).toString('base64url')}.`,
      'unsupported algorithm none',
    ],
    ['another issuer', jwt({ ...good, iss: 'https://evil.test/' }), 'issuer https://evil.test/'],
    ['another audience', jwt({ ...good, aud: ['kubectl'] }), 'audience does not include'],
    ['an expired token', jwt({ ...good, exp: NOW / 1000 - 120 }), 'expired'],
    ['another nonce', jwt({ ...good, nonce: 'n2' }), 'nonce does not match'],
    ['no nonce', jwt({ ...good, nonce: undefined }), 'nonce does not match'],
    [
      'a tampered payload',
      jwt(good).replace(/\.[^.]+\./, `.${Buffer.from(JSON.stringify({ ...good, email: 'x' })).toString('base64url')}.`),
      'bad signature',
    ],
  ])('refuses %s', (_, token, message) => {
    const v = verifyIdToken(token, jwks, want);
    expect(v.ok).toBe(false);
    expect(v.ok ? '' : v.message).toContain(message);
  });
});

describe('beginSignIn', () => {
  it('sends the browser with state, nonce and an S256 challenge, keeping the verifier', () => {
    let n = 0;
    const { url, pending } = beginSignIn(provider, client, () => `r${++n}`, NOW);
    const q = new URL(url).searchParams;
    expect(pending).toEqual({ state: 'r1', nonce: 'r2', verifier: 'r3', createdAt: NOW });
    expect(Object.fromEntries(q)).toMatchObject({
      response_type: 'code',
      client_id: 'olmv1-console',
      state: 'r1',
      nonce: 'r2',
      code_challenge_method: 'S256',
      code_challenge: pkceChallenge('r3'),
    });
    expect(url).not.toContain('r3');
    // BASE64URL(SHA256(verifier)) without padding, as `openssl dgst -sha256 -binary | base64` computes it.
    expect(pkceChallenge('dBjftJeZ4CVP-mJ92K1Ql5KiMfxqj5x9O7iBqTq8xEo')).toBe('fsGD68hRyV0q3qGamn3Pz3UDFnfnORPAffNRjnaSm9U');
  });
});

describe('oidcSignIn', () => {
  const pending: PendingSignIn = { state: 's1', nonce: 'n1', verifier: 'v1', createdAt: NOW };
  function fake(idToken: string): { fetchJson: FetchJson; forms: Record<string, string>[] } {
    const forms: Record<string, string>[] = [];
    const fetchJson: FetchJson = async (url, init) => {
      if (init.method === 'POST') {
        forms.push(init.form);
        return init.form.code === 'c1'
          ? { status: 200, body: { id_token: idToken, access_token: 'a' } }
          : { status: 400, body: { error: 'invalid_grant' } };
      }
      return url === provider.jwksUri ? { status: 200, body: jwks } : { status: 404, body: {} };
    };
    return { fetchJson, forms };
  }
  const signal = new AbortController().signal;

  it('exchanges the code with the verifier and opens a session with the ID token as the credential', async () => {
    const f = fake(jwt(good));
    const r = await oidcSignIn(provider, client, { fetchJson: f.fetchJson, now: () => NOW }).signIn(
      { code: 'c1', state: 's1', error: null, pending },
      signal,
    );
    expect(r).toEqual({
      ok: true,
      value: { user: { username: 'admin@example.test', groups: ['olmv1-admins'] }, token: jwt(good), expiresAt: good.exp * 1000 },
    });
    expect(f.forms).toEqual([
      { grant_type: 'authorization_code', code: 'c1', redirect_uri: client.redirectUri, client_id: 'olmv1-console', code_verifier: 'v1' },
    ]);
  });

  it.each([
    ['another state', { code: 'c1', state: 's2', error: null, pending }, 400, 'state does not match'],
    ['no pending sign-in', { code: 'c1', state: 's1', error: null, pending: undefined }, 400, 'state does not match'],
    [
      'a stale pending sign-in',
      { code: 'c1', state: 's1', error: null, pending: { ...pending, createdAt: NOW - 11 * 60_000 } },
      400,
      'took too long',
    ],
    ['the issuer refusing', { code: null, state: 's1', error: 'access_denied', pending }, 401, 'access_denied'],
    ['a refused code', { code: 'c2', state: 's1', error: null, pending }, 401, 'invalid_grant'],
  ])('refuses %s as a value', async (_, cb, status, message) => {
    const f = fake(jwt(good));
    const r = await oidcSignIn(provider, client, { fetchJson: f.fetchJson, now: () => NOW }).signIn(cb, signal);
    expect(r).toMatchObject({ ok: false, error: { status } });
    expect(r.ok ? '' : r.error.message).toContain(message);
  });

  it('refuses an ID token for another nonce (a replayed token)', async () => {
    const f = fake(jwt({ ...good, nonce: 'old' }));
    const r = await oidcSignIn(provider, client, { fetchJson: f.fetchJson, now: () => NOW }).signIn(
      { code: 'c1', state: 's1', error: null, pending },
      signal,
    );
    expect(r.ok ? '' : r.error.message).toContain('nonce does not match');
  });
});

describe('discover', () => {
  const signal = new AbortController().signal;
  it('reads the endpoints and refuses a document for another issuer', async () => {
    const doc = {
      issuer: ISSUER,
      authorization_endpoint: provider.authorizationEndpoint,
      token_endpoint: provider.tokenEndpoint,
      jwks_uri: provider.jwksUri,
    };
    const at: string[] = [];
    const ok: FetchJson = async (url) => (at.push(url), { status: 200, body: doc });
    await expect(discover(ISSUER, ok, signal)).resolves.toEqual(provider);
    expect(at).toEqual(['https://issuer.test:4444/.well-known/openid-configuration']);
    const wrong: FetchJson = async () => ({ status: 200, body: { ...doc, issuer: 'https://evil.test/' } });
    await expect(discover(ISSUER, wrong, signal)).rejects.toThrow('names issuer https://evil.test/');
  });
});
