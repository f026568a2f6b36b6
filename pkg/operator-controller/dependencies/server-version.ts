/**
 * The API server's version, for CSVs' minKubeVersion (decision 0104): kept for a time to live,
 * so a reconcile costs no `/version` request; a failed request is not kept.
 */
export class ServerVersionCache {
  readonly #ask: (signal?: AbortSignal) => Promise<string>;
  readonly #ttlMs: number;
  readonly #now: () => number;
  #known: { version: string; at: number } | undefined;

  /**
   * @param ask reads the version from the API server (its `gitVersion`); throws on failure.
   * @param options `ttlMs` how long an answer is kept (default ten minutes); `now` the clock.
   */
  constructor(ask: (signal?: AbortSignal) => Promise<string>, options: { ttlMs?: number; now?: () => number } = {}) {
    this.#ask = ask;
    this.#ttlMs = options.ttlMs ?? 600_000;
    this.#now = options.now ?? Date.now;
  }

  /** The kept version while it is younger than the time to live, else a fresh answer. */
  async get(signal?: AbortSignal): Promise<string> {
    const known = this.#known;
    if (known !== undefined && this.#now() - known.at < this.#ttlMs) return known.version;
    const version = await this.#ask(signal);
    this.#known = { version, at: this.#now() };
    return version;
  }
}

/** The one reader of the API server's `/version` (its `gitVersion`), through a connection's transport. */
export function readServerVersion(
  transport: { request<T>(method: 'GET', path: '/version', options: { signal?: AbortSignal }): Promise<T> },
  signal?: AbortSignal,
): Promise<string> {
  return transport.request<{ gitVersion?: string }>('GET', '/version', signal === undefined ? {} : { signal }).then((v) => v.gitVersion ?? '');
}
