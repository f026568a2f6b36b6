/**
 * Authentication and authorization of metrics scrapes, delegated to the API server as
 * controller-runtime's `filters.WithAuthenticationAndAuthorization`: a TokenReview of the bearer
 * token, then a SubjectAccessReview of its user for the non-resource URL and lower-cased method,
 * both with the component's own identity. Answers, as controller-runtime's:
 * - 401 `Unauthorized`: no bearer token, or one the API server refuses (controller-runtime
 *   answers that 500 `Authentication failed`; decision 0068);
 * - 403 `Authorization denied for user <name>`;
 * - 500 `Authentication failed` / `Authorization for user <name> failed`: a review failed
 *   (logged, never cached).
 * Decisions are cached with controller-runtime's lifetimes (token 1 min, allowed 5 min, denied
 * 30 s); concurrent requests share one review; tokens are kept only as SHA-256 digests.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { AccessSubject, NonResourceAccess, TokenReviewResult } from '../kube/index.ts';

/** The reviews, injected (pkg/shared/kube `reviewToken` and `canI` in production). */
interface MetricsAuthReviews {
  authenticate(token: string, signal: AbortSignal): Promise<TokenReviewResult>;
  authorize(subject: AccessSubject, access: NonResourceAccess, signal: AbortSignal): Promise<{ allowed: boolean; reason: string }>;
}

/** Construction options; the lifetimes default to controller-runtime's. */
interface MetricsAuthOptions extends MetricsAuthReviews {
  log: Logger;
  now?: () => number;
  tokenTtlMs?: number;
  allowTtlMs?: number;
  denyTtlMs?: number;
  /** Bound of one review (default 10 s, controller-runtime's TokenReview timeout). */
  reviewTimeoutMs?: number;
  /** Entries per cache (default 4096); the oldest go first. */
  maxEntries?: number;
}

/** The decision on one request. */
export type MetricsAccess = { status: 200; user: string } | { status: 401 | 403 | 500; message: string };

/** A bounded cache whose entries expire. */
class ExpiringCache<V> {
  readonly #entries = new Map<string, { value: V; expires: number }>();
  readonly #max: number;
  readonly #now: () => number;

  constructor(max: number, now: () => number) {
    this.#max = max;
    this.#now = now;
  }

  get(key: string): V | undefined {
    const e = this.#entries.get(key);
    if (e === undefined) return undefined;
    if (e.expires > this.#now()) return e.value;
    this.#entries.delete(key);
    return undefined;
  }

  set(key: string, value: V, ttlMs: number): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, expires: this.#now() + ttlMs });
    if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value as string);
  }
}

/**
 * The bearer token of an `Authorization` header, as Kubernetes' bearer-token authenticator
 * reads it: `Bearer <token>` (scheme case-insensitive), nothing after a second space; anything
 * else is no token.
 */
export function bearerToken(header: string | undefined): string | undefined {
  const parts = (header ?? '').trim().split(' ');
  if (parts.length < 2 || parts[0]?.toLowerCase() !== 'bearer') return undefined;
  const token = parts[1] ?? '';
  return token === '' ? undefined : token;
}

/** See the module comment. */
export class MetricsAuth {
  readonly #o: MetricsAuthOptions;
  readonly #tokens: ExpiringCache<TokenReviewResult>;
  readonly #decisions: ExpiringCache<boolean>;
  readonly #inFlight = new Map<string, Promise<unknown>>();

  constructor(options: MetricsAuthOptions) {
    this.#o = options;
    const now = options.now ?? Date.now;
    this.#tokens = new ExpiringCache(options.maxEntries ?? 4096, now);
    this.#decisions = new ExpiringCache(options.maxEntries ?? 4096, now);
  }

  /** Decides a request from its `Authorization` header, method and path. Never throws. */
  async check(authorization: string | undefined, method: string, path: string): Promise<MetricsAccess> {
    const token = bearerToken(authorization);
    if (token === undefined) return { status: 401, message: 'Unauthorized' };
    let identity: TokenReviewResult;
    try {
      identity = await this.#authenticate(token);
    } catch (err) {
      this.#o.log.error({ err, path }, 'metrics authentication failed');
      return { status: 500, message: 'Authentication failed' };
    }
    if (!identity.authenticated) {
      this.#o.log.debug({ reason: identity.error, path }, 'metrics request unauthenticated');
      return { status: 401, message: 'Unauthorized' };
    }
    const subject = identity.subject;
    const access: NonResourceAccess = { verb: method.toLowerCase(), path };
    let allowed: boolean;
    try {
      allowed = await this.#authorize(subject, access);
    } catch (err) {
      this.#o.log.error({ err, user: subject.user, path }, 'metrics authorization failed');
      return { status: 500, message: `Authorization for user ${subject.user} failed` };
    }
    if (!allowed) {
      this.#o.log.debug({ user: subject.user, verb: access.verb, path }, 'metrics request forbidden');
      return { status: 403, message: `Authorization denied for user ${subject.user}` };
    }
    return { status: 200, user: subject.user };
  }

  async #authenticate(token: string): Promise<TokenReviewResult> {
    const key = `t:${createHash('sha256').update(token).digest('hex')}`;
    const cached = this.#tokens.get(key);
    if (cached !== undefined) return cached;
    return this.#once(key, async () => {
      const result = await this.#o.authenticate(token, AbortSignal.timeout(this.#o.reviewTimeoutMs ?? 10_000));
      this.#tokens.set(key, result, this.#o.tokenTtlMs ?? 60_000);
      return result;
    });
  }

  async #authorize(subject: AccessSubject, access: NonResourceAccess): Promise<boolean> {
    const key = `d:${JSON.stringify([subject.user, subject.uid ?? '', [...(subject.groups ?? [])].sort(), subject.extra ?? {}, access.verb, access.path])}`;
    const cached = this.#decisions.get(key);
    if (cached !== undefined) return cached;
    return this.#once(key, async () => {
      const { allowed } = await this.#o.authorize(subject, access, AbortSignal.timeout(this.#o.reviewTimeoutMs ?? 10_000));
      this.#decisions.set(key, allowed, allowed ? (this.#o.allowTtlMs ?? 300_000) : (this.#o.denyTtlMs ?? 30_000));
      return allowed;
    });
  }

  // Joins a review already in flight for the same key.
  #once<T>(key: string, review: () => Promise<T>): Promise<T> {
    const running = this.#inFlight.get(key) as Promise<T> | undefined;
    if (running !== undefined) return running;
    const p = review().finally(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, p);
    return p;
  }
}
