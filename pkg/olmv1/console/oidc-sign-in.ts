/**
 * OpenID Connect sign-in for the in-cluster console (pure but for the injected HTTP port;
 * decision 0144): the authorization code flow with PKCE (S256), its state and nonce checked, the
 * ID token verified against the issuer's JWKS (signature, issuer, audience, expiry) with
 * node:crypto. The ID token is the credential the session keeps and every API request is made
 * with: the API server's JWT authenticator accepts it for the same issuer and audience, so RBAC
 * decides. The session ends when the token expires; the user signs in again.
 */
import { createHash, createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import { same } from './security.ts';
import type { SignIn, SignInRefused, SignedIn } from './sessions.ts';

/** The issuer's endpoints, from its discovery document. */
export interface OidcProvider {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string;
  endSessionEndpoint?: string;
}

/** The console as an OAuth 2.0 client of the issuer, and how claims name the user. */
interface OidcClient {
  clientId: string;
  /** A confidential client's secret (client_secret_post); a public client has none. */
  clientSecret?: string;
  /** The console's callback, e.g. `https://console.example/oidc/callback`. */
  redirectUri: string;
  /** The claim that names the user, as the API server's claimMappings.username does (default `email`). */
  usernameClaim?: string;
  /** The claim that lists the user's groups (default `groups`). */
  groupsClaim?: string;
}

/** HTTP as this module needs it: a JSON answer and its status. Rejects only when the issuer cannot be reached. */
export type FetchJson = (
  url: string,
  init: { method: 'GET' } | { method: 'POST'; form: Record<string, string> },
  signal: AbortSignal,
) => Promise<{ status: number; body: unknown }>;

/** What the console keeps on the server between sending the browser to the issuer and its return. */
export interface PendingSignIn {
  state: string;
  nonce: string;
  /** The PKCE code verifier: never leaves the server until the token request. */
  verifier: string;
  createdAt: number;
}

/** What the callback brings: the query's code, state or error, and the pending sign-in found for it. */
export interface OidcCallback {
  code: string | null;
  state: string | null;
  error: string | null;
  errorDescription?: string | null;
  pending: PendingSignIn | undefined;
}

/** The browser's return must come within this time of its departure. */
const PENDING_TTL_MS = 10 * 60_000;
/** Clock skew allowed on exp, iat and nbf. */
const SKEW_S = 60;

/** The PKCE S256 challenge of a verifier (RFC 7636). */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/** Starts a sign-in: where to send the browser, and what to keep until it returns. */
export function beginSignIn(p: OidcProvider, c: OidcClient, random: () => string, now: number): { url: string; pending: PendingSignIn } {
  const pending: PendingSignIn = { state: random(), nonce: random(), verifier: random(), createdAt: now };
  const url = new URL(p.authorizationEndpoint);
  const q = url.searchParams;
  q.set('response_type', 'code');
  q.set('client_id', c.clientId);
  q.set('redirect_uri', c.redirectUri);
  q.set('scope', 'openid email profile');
  q.set('state', pending.state);
  q.set('nonce', pending.nonce);
  q.set('code_challenge', pkceChallenge(pending.verifier));
  q.set('code_challenge_method', 'S256');
  return { url: url.href, pending };
}

/** Reads the issuer's discovery document; a refusal or a document for another issuer is an Error (a misconfiguration). */
export async function discover(issuer: string, fetchJson: FetchJson, signal: AbortSignal): Promise<OidcProvider> {
  const at = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  const { status, body } = await fetchJson(at, { method: 'GET' }, signal);
  const d = record(body);
  if (status !== 200 || d === undefined) throw new Error(`OIDC discovery at ${at} answered ${status}`);
  if (d.issuer !== issuer) throw new Error(`OIDC discovery at ${at} names issuer ${String(d.issuer)}, not ${issuer}`);
  const need = (k: string): string => {
    const v = d[k];
    if (typeof v !== 'string') throw new Error(`OIDC discovery at ${at} lacks ${k}`);
    return v;
  };
  const end = d.end_session_endpoint;
  return {
    issuer,
    authorizationEndpoint: need('authorization_endpoint'),
    tokenEndpoint: need('token_endpoint'),
    jwksUri: need('jwks_uri'),
    ...(typeof end === 'string' ? { endSessionEndpoint: end } : {}),
  };
}

/** The OIDC sign-in method: the callback's code exchanged and its ID token verified, or the refusal to show. */
export function oidcSignIn(p: OidcProvider, c: OidcClient, ports: { fetchJson: FetchJson; now(): number }): SignIn<OidcCallback> {
  return {
    method: 'oidc',
    async signIn(cb, signal) {
      const refused = (message: string, status: SignInRefused['status'] = 401) => ({ ok: false as const, error: { status, message } });
      if (cb.error !== null) return refused(`the issuer refused the sign-in: ${cb.error}${cb.errorDescription ? ` (${cb.errorDescription})` : ''}`);
      const pending = cb.pending;
      if (pending === undefined || cb.state === null || !same(cb.state, pending.state))
        return refused('sign-in state does not match: start again', 400);
      if (ports.now() - pending.createdAt > PENDING_TTL_MS) return refused('the sign-in took too long: start again', 400);
      if (cb.code === null) return refused('the issuer sent no authorization code', 400);
      const form: Record<string, string> = {
        grant_type: 'authorization_code',
        code: cb.code,
        redirect_uri: c.redirectUri,
        client_id: c.clientId,
        code_verifier: pending.verifier,
      };
      if (c.clientSecret !== undefined) form.client_secret = c.clientSecret;
      const token = await ports.fetchJson(p.tokenEndpoint, { method: 'POST', form }, signal);
      const t = record(token.body);
      if (token.status !== 200 || typeof t?.id_token !== 'string')
        return refused(`the issuer refused the code: ${String(t?.error_description ?? t?.error ?? token.status)}`);
      const jwks = await ports.fetchJson(p.jwksUri, { method: 'GET' }, signal);
      if (jwks.status !== 200) throw new Error(`the issuer's JWKS at ${p.jwksUri} answered ${jwks.status}`);
      const v = verifyIdToken(t.id_token, jwks.body, { issuer: p.issuer, audience: c.clientId, nonce: pending.nonce, now: ports.now() });
      if (!v.ok) return refused(`the ID token is not valid: ${v.message}`);
      const username = v.claims[c.usernameClaim ?? 'email'];
      if (typeof username !== 'string' || username === '') return refused(`the ID token has no ${c.usernameClaim ?? 'email'} claim`, 403);
      const g = v.claims[c.groupsClaim ?? 'groups'];
      const groups = Array.isArray(g) ? g.filter((x): x is string => typeof x === 'string') : [];
      const value: SignedIn = { user: { username, groups }, token: t.id_token, expiresAt: Number(v.claims.exp) * 1000 };
      return { ok: true, value };
    },
  };
}

type Verified = { ok: true; claims: Record<string, unknown> } | { ok: false; message: string };

/** Verifies an ID token: RS256 or ES256 signature by a key of the JWKS, then iss, aud (and azp), exp, iat, nbf and nonce. */
export function verifyIdToken(jwt: string, jwks: unknown, want: { issuer: string; audience: string; nonce: string; now: number }): Verified {
  const parts = jwt.split('.');
  if (parts.length !== 3) return { ok: false, message: 'not a JWT' };
  const [h, b, s] = parts as [string, string, string];
  const header = record(parseJson(h));
  const claims = record(parseJson(b));
  if (header === undefined || claims === undefined) return { ok: false, message: 'not a JWT' };
  const alg = header.alg;
  if (alg !== 'RS256' && alg !== 'ES256') return { ok: false, message: `unsupported algorithm ${String(alg)}` };
  const keys = (record(jwks)?.keys as unknown[] | undefined) ?? [];
  const jwk = keys
    .map(record)
    .find((k) => k !== undefined && (header.kid === undefined || k.kid === header.kid) && (k.use === undefined || k.use === 'sig'));
  if (jwk === undefined) return { ok: false, message: `no key ${String(header.kid)} in the issuer's JWKS` };
  let good: boolean;
  try {
    const key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
    good = verify('sha256', Buffer.from(`${h}.${b}`), alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : key, Buffer.from(s, 'base64url'));
  } catch {
    good = false;
  }
  if (!good) return { ok: false, message: 'bad signature' };
  const now = Math.floor(want.now / 1000);
  const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (claims.iss !== want.issuer) return { ok: false, message: `issuer ${String(claims.iss)} is not ${want.issuer}` };
  if (!aud.includes(want.audience)) return { ok: false, message: `audience does not include ${want.audience}` };
  if (aud.length > 1 && claims.azp !== undefined && claims.azp !== want.audience) return { ok: false, message: 'issued to another party' };
  if (typeof claims.exp !== 'number' || claims.exp + SKEW_S <= now) return { ok: false, message: 'expired' };
  if (typeof claims.nbf === 'number' && claims.nbf - SKEW_S > now) return { ok: false, message: 'not valid yet' };
  if (typeof claims.iat === 'number' && claims.iat - SKEW_S > now) return { ok: false, message: 'issued in the future' };
  if (typeof claims.nonce !== 'string' || !same(claims.nonce, want.nonce)) return { ok: false, message: 'nonce does not match' };
  return { ok: true, claims };
}

function parseJson(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

function record(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
