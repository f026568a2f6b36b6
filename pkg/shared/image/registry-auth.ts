/**
 * Registry authentication: anonymous, basic, and the Docker token flow. A request first carries
 * what the registry asked for last time; on a `401` Bearer challenge a token is requested from
 * its realm (with basic credentials when configured) and the request sent once more. Tokens are
 * cached per registry, service, scope and user until shortly before they expire.
 */
import { z } from 'zod';
import { findChallenge, parseAuthChallenges, type AuthChallenge } from './auth-challenge.ts';
import { credentialsFor, type DockerConfig, type RegistryCredentials } from './docker-config.ts';
import type { HttpRequest, HttpResponse, HttpTransport } from './http-transport.ts';
import type { ImageReference } from './reference.ts';
import { readLimited, registryErrorFrom } from './registry-error.ts';
import { rethrowNamingTimeout } from './timeout.ts';

/** Repository actions a request needs. */
export type RepositoryActions = 'pull' | 'pull,push';

/** Where credentials come from: a fixed config or a provider read at each request. */
type CredentialsSource = DockerConfig | (() => DockerConfig | undefined) | undefined;

/** Token endpoint response (Docker token spec); `access_token` is the OAuth2 spelling. */
const TokenResponse = z.object({
  token: z.string().optional(),
  access_token: z.string().optional(),
  expires_in: z.number().optional(),
  issued_at: z.string().optional(),
});

const TOKEN_RESPONSE_LIMIT = 1024 * 1024;
const DEFAULT_TOKEN_LIFETIME_S = 60;
const EXPIRY_MARGIN_MS = 10_000;
const TOKEN_CACHE_PRUNE_AT = 256;

interface CachedToken {
  token: string;
  expiresAt: number;
}

type SchemeHint = { kind: 'basic' } | { kind: 'bearer'; challenge: AuthChallenge };

/** Adds credentials to registry requests; one instance per image client. */
export class RegistryAuth {
  readonly #transport: HttpTransport;
  readonly #credentials: CredentialsSource;
  readonly #now: () => number;
  readonly #hints = new Map<string, SchemeHint>();
  readonly #tokens = new Map<string, CachedToken>();
  readonly #inflight = new Map<string, Promise<CachedToken>>();

  constructor(transport: HttpTransport, credentials: CredentialsSource, now: () => number = Date.now) {
    this.#transport = transport;
    this.#credentials = credentials;
    this.#now = now;
  }

  #credentialsFor(ref: Pick<ImageReference, 'domain' | 'path'>): RegistryCredentials | undefined {
    const config = typeof this.#credentials === 'function' ? this.#credentials() : this.#credentials;
    return credentialsFor(config, ref);
  }

  /**
   * Sends `req` for repository `ref` with the needed `actions`, answering one auth challenge.
   * Resolves with the final response whatever its status (a second 401 is returned as is).
   *
   * @throws Error when the token endpoint fails: `error fetching token from <realm>: ...`.
   */
  async send(ref: Pick<ImageReference, 'domain' | 'path'>, actions: RepositoryActions, req: HttpRequest): Promise<HttpResponse> {
    const creds = this.#credentialsFor(ref);
    const scope = `repository:${ref.path}:${actions}`;
    const hint = this.#hints.get(ref.domain);
    let authorization: string | undefined;
    if (hint?.kind === 'bearer') {
      // Proactive: ask only for this request's scope, not the one an earlier challenge named.
      authorization = `Bearer ${(await this.#token(ref.domain, hint.challenge, [scope], creds, false, req.skipTlsVerify)).token}`;
    } else if (hint?.kind === 'basic' && creds !== undefined) {
      authorization = basicHeader(creds);
    }
    const res = await this.#transport.request(withAuthorization(req, authorization));
    if (res.status !== 401) return res;

    const challenges = parseAuthChallenges(res.headersDistinct['www-authenticate']);
    const bearer = findChallenge(challenges, 'bearer');
    const basic = findChallenge(challenges, 'basic');
    let retryAuthorization: string | undefined;
    if (bearer !== undefined && bearer.params['realm'] !== undefined) {
      this.#hints.set(ref.domain, { kind: 'bearer', challenge: bearer });
      res.body.resume();
      const scopes = [bearer.params['scope'], scope].filter((s): s is string => s !== undefined && s !== '');
      const token = await this.#token(ref.domain, bearer, [...new Set(scopes)], creds, true, req.skipTlsVerify);
      retryAuthorization = `Bearer ${token.token}`;
    } else if (basic !== undefined && creds !== undefined && hint?.kind !== 'basic') {
      this.#hints.set(ref.domain, { kind: 'basic' });
      res.body.resume();
      retryAuthorization = basicHeader(creds);
    } else {
      return res;
    }
    return this.#transport.request(withAuthorization(req, retryAuthorization));
  }

  async #token(
    domain: string,
    challenge: AuthChallenge,
    scopes: readonly string[],
    creds: RegistryCredentials | undefined,
    forceFresh: boolean,
    insecure: boolean | undefined,
  ): Promise<CachedToken> {
    const key = [domain, challenge.params['realm'], challenge.params['service'] ?? '', scopes.join(' '), creds?.username ?? ''].join('|');
    const cached = this.#tokens.get(key);
    if (!forceFresh && cached !== undefined && cached.expiresAt > this.#now()) return cached;
    const pending = this.#inflight.get(key);
    if (pending !== undefined) return pending;
    const p = this.#fetchToken(domain, challenge, scopes, creds, insecure === true).finally(() => this.#inflight.delete(key));
    this.#inflight.set(key, p);
    const token = await p;
    if (this.#tokens.size >= TOKEN_CACHE_PRUNE_AT) this.#pruneExpired();
    this.#tokens.set(key, token);
    return token;
  }

  #pruneExpired(): void {
    const now = this.#now();
    for (const [key, token] of this.#tokens) {
      if (token.expiresAt <= now) this.#tokens.delete(key);
    }
  }

  async #fetchToken(
    domain: string,
    challenge: AuthChallenge,
    scopes: readonly string[],
    creds: RegistryCredentials | undefined,
    insecure: boolean,
  ): Promise<CachedToken> {
    const realm = challenge.params['realm'] ?? '';
    let url: URL;
    try {
      url = new URL(realm);
    } catch (err) {
      throw new Error(`error fetching token: invalid realm ${JSON.stringify(realm)} in challenge from ${domain}`, { cause: err });
    }
    const where = `error fetching token from ${url.origin}${url.pathname}`;
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`${where}: unsupported realm scheme ${url.protocol}`);
    if (url.protocol === 'http:' && creds !== undefined && !insecure && !this.#transport.isInsecure(domain)) {
      throw new Error(`${where}: refusing to send credentials for ${domain} to a plain-HTTP realm`);
    }
    const service = challenge.params['service'];
    if (service !== undefined) url.searchParams.set('service', service);
    for (const s of scopes) url.searchParams.append('scope', s);
    if (creds !== undefined) url.searchParams.set('account', creds.username);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (creds !== undefined) headers['authorization'] = basicHeader(creds);
    let body: Buffer;
    try {
      // An insecure source's token endpoint is reached without TLS verification, as upstream's
      // one client does; never moved to plain HTTP, where the credentials would travel in clear.
      const res = await this.#transport.request({ method: 'GET', url, headers, ...(insecure ? { skipTlsVerify: true } : {}) });
      if (res.status !== 200) throw await registryErrorFrom(res, where);
      body = await readLimited(res.body, TOKEN_RESPONSE_LIMIT, 'token response');
    } catch (err) {
      rethrowNamingTimeout(err, `a token for ${domain}`);
    }
    let parsed: z.infer<typeof TokenResponse>;
    try {
      parsed = TokenResponse.parse(JSON.parse(body.toString('utf8')));
    } catch (err) {
      throw new Error(`${where}: invalid token response`, { cause: err });
    }
    const token = parsed.token ?? parsed.access_token;
    if (token === undefined || token === '') throw new Error(`${where}: response has no token`);
    const issued = parsed.issued_at !== undefined ? Date.parse(parsed.issued_at) : Number.NaN;
    const start = Number.isFinite(issued) ? Math.min(issued, this.#now()) : this.#now();
    const lifetimeMs = (parsed.expires_in ?? DEFAULT_TOKEN_LIFETIME_S) * 1000;
    return { token, expiresAt: start + lifetimeMs - EXPIRY_MARGIN_MS };
  }
}

function basicHeader(creds: RegistryCredentials): string {
  return `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}`;
}

function withAuthorization(req: HttpRequest, authorization: string | undefined): HttpRequest {
  if (authorization === undefined) return req;
  return { ...req, headers: { ...req.headers, authorization } };
}
