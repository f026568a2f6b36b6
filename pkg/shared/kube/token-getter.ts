/**
 * ServiceAccount tokens from the TokenRequest API, cached per ServiceAccount as upstream v1.10's
 * token getter (decision 0003): lifetime 1 h, refreshed below 10% remaining. Expired entries are
 * reaped at most once per tenth of the lifetime (a scan per request cost seconds of CPU with
 * 1,000 ServiceAccounts); `get` never hands one out.
 */
import { isNotFound } from './api-error.ts';
import type { KubeClient } from './client.ts';

/** What a TokenGetter calls of a client: TokenRequest, a subresource POST. */
export type TokenRequestClient = Pick<KubeClient, 'createSubresource'>;

/** Construction options of a TokenGetter. */
interface TokenGetterOptions {
  /** Client with the controller's own identity (needs `serviceaccounts/token: create`). */
  client: TokenRequestClient;
  /** Requested token lifetime (default 3600 s; the API server's minimum is 600 s). */
  expirationSeconds?: number;
  /** Clock in epoch milliseconds (tests). */
  now?: () => number;
}

/** The ServiceAccount does not exist; message as upstream's ServiceAccountNotFoundError. */
export class ServiceAccountNotFoundError extends Error {
  readonly namespace: string;
  readonly serviceAccount: string;

  constructor(namespace: string, serviceAccount: string, cause: unknown) {
    super(`service account "${serviceAccount}" not found in namespace "${namespace}": unable to authenticate with the Kubernetes cluster.`, {
      cause,
    });
    this.name = 'ServiceAccountNotFoundError';
    this.namespace = namespace;
    this.serviceAccount = serviceAccount;
  }
}

interface CachedToken {
  token: string;
  expiresAt: number;
}

interface TokenRequestResponse {
  status?: { token?: string; expirationTimestamp?: string };
}

/** Hands out bearer tokens for ServiceAccounts; safe for concurrent use. */
export class TokenGetter {
  readonly #client: TokenRequestClient;
  readonly #lifetimeMs: number;
  readonly #now: () => number;
  readonly #cache = new Map<string, CachedToken>();
  readonly #inflight = new Map<string, Promise<CachedToken>>();
  #requests = 0;
  /** When the next call reaps (epoch ms). */
  #nextReap = 0;

  constructor(options: TokenGetterOptions) {
    this.#client = options.client;
    this.#lifetimeMs = (options.expirationSeconds ?? 3600) * 1000;
    this.#now = options.now ?? Date.now;
    if (!(this.#lifetimeMs >= 1000)) throw new Error('token expirationSeconds must be at least 1');
  }

  /** How many tokens are cached, expired ones not yet reaped included (observability and tests). */
  get cachedCount(): number {
    return this.#cache.size;
  }

  /** How many TokenRequests were made (observability and tests). */
  get requestCount(): number {
    return this.#requests;
  }

  /**
   * A token for `serviceAccount` in `namespace`, from the cache unless less than 10% of the
   * requested lifetime remains. Throws ServiceAccountNotFoundError on 404, the ApiError otherwise.
   */
  async get(namespace: string, serviceAccount: string, signal?: AbortSignal): Promise<string> {
    this.#reap();
    const key = `${namespace}/${serviceAccount}`;
    const cached = this.#cache.get(key);
    if (cached !== undefined && cached.expiresAt - this.#now() >= this.#lifetimeMs / 10) return cached.token;
    let pending = this.#inflight.get(key);
    if (pending === undefined) {
      pending = this.#request(namespace, serviceAccount, signal).finally(() => this.#inflight.delete(key));
      this.#inflight.set(key, pending);
    }
    const fresh = await pending;
    this.#cache.set(key, fresh);
    return fresh.token;
  }

  /** Forgets the cached token (after the API server rejected it with 401). */
  evict(namespace: string, serviceAccount: string): void {
    this.#cache.delete(`${namespace}/${serviceAccount}`);
  }

  async #request(namespace: string, serviceAccount: string, signal?: AbortSignal): Promise<CachedToken> {
    const body = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: this.#lifetimeMs / 1000 } };
    const requestedAt = this.#now();
    let res: TokenRequestResponse;
    try {
      this.#requests++;
      res = await this.#client.createSubresource<TokenRequestResponse>(
        { apiVersion: 'v1', kind: 'ServiceAccount', namespace, name: serviceAccount },
        'token',
        body,
        // A TokenRequest stores nothing: sent again on a stale keep-alive socket, as a GET is.
        { idempotent: true, ...(signal === undefined ? {} : { signal }) },
      );
    } catch (err) {
      if (isNotFound(err)) throw new ServiceAccountNotFoundError(namespace, serviceAccount, err);
      throw err;
    }
    const token = res.status?.token;
    if (typeof token !== 'string' || token === '') {
      throw new Error(`the TokenRequest for service account "${serviceAccount}" in namespace "${namespace}" returned no token`);
    }
    // The server may shorten the lifetime; trust its expiry, else assume the requested one.
    const stamp = Date.parse(res.status?.expirationTimestamp ?? '');
    return { token, expiresAt: Number.isFinite(stamp) ? stamp : requestedAt + this.#lifetimeMs };
  }

  #reap(): void {
    const now = this.#now();
    if (now < this.#nextReap) return;
    this.#nextReap = now + this.#lifetimeMs / 10;
    for (const [key, entry] of this.#cache) if (entry.expiresAt <= now) this.#cache.delete(key);
  }
}
