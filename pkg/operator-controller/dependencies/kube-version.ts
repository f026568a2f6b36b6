/**
 * A CSV's `spec.minKubeVersion`, as catalogs carry it in the bundle's `olm.csv.metadata`
 * property, against the API server's version (`/version` `gitVersion`): OLM classic refuses to
 * install a bundle on an older cluster, naming both versions. Both are read tolerantly (a
 * leading `v`, missing minor or patch); build metadata (`+k3s1`) and pre-release parts of the
 * server's version do not count, as OLM compares major.minor.patch. The server's version is
 * asked once and kept for a time to live, so a reconcile costs no `/version` request.
 */
import type { Bundle } from '../../shared/fbc/types.ts';
import { compareSemver, parseTolerant } from '../../shared/semver/index.ts';

function minKubeVersionOf(bundle: Pick<Bundle, 'properties'>): string | undefined {
  for (const p of bundle.properties) {
    if (p.type !== 'olm.csv.metadata' || p.value === null || typeof p.value !== 'object' || Array.isArray(p.value)) continue;
    const v = p.value['minKubeVersion'];
    if (typeof v === 'string' && v.trim() !== '') return v.trim();
  }
  return undefined;
}

function core(version: string): string {
  return version.trim().replace(/^v/, '').split(/[+-]/)[0] ?? '';
}

/**
 * OLM classic's `CSV version requirement not met: minKubeVersion (<min>) > server version
 * (<server>)` when the bundle needs a newer cluster, else undefined. A minKubeVersion that
 * does not read as a version is reported the same way OLM does not: as unmet, with the reason.
 */
export function kubeVersionUnmet(bundle: Pick<Bundle, 'name' | 'properties'>, serverVersion: string): string | undefined {
  const min = minKubeVersionOf(bundle);
  if (min === undefined) return undefined;
  const want = parseTolerant(core(min));
  if (!want.ok) return `bundle ${JSON.stringify(bundle.name)}: minKubeVersion ${JSON.stringify(min)} is not a version: ${want.error}`;
  const have = parseTolerant(core(serverVersion));
  if (!have.ok || compareSemver(want.value, have.value) <= 0) return undefined;
  return `bundle ${JSON.stringify(bundle.name)}: CSV version requirement not met: minKubeVersion (${min}) > server version (${core(serverVersion)})`;
}

/** The API server's version, kept for a time to live (decision 0104); a failed request is not kept. */
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
