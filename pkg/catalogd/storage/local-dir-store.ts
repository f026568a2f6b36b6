/**
 * catalogd's content store: per catalog, versions keyed by image digest (`<catalog>/<digest>/`:
 * catalog.jsonl, .gz, index.json) and `<catalog>/current.json` naming the served one; versions
 * are written in `.tmp-<catalog>-<random>/`. Switching is atomic (a rename): readers see the old
 * or the new version, never a mix or a 404; a failed store leaves the served version untouched;
 * content on disk is served again right after a restart. Superseded versions are removed after
 * a grace period, temp directories at start-up and by `gc`. Stores of one catalog are serialised.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Meta } from '../../shared/fbc/types.ts';
import { REQUIRED_CONTENT_FILES, writeCatalogContent } from './content-writer.ts';
import type { CatalogLayers } from './catalog-layers.ts';
import { type IngestFn, ingestInProcess } from './ingest.ts';
import { StoredVersion, type VersionInfo } from './stored-version.ts';

/** Where a new version's content comes from: an unpacked FBC directory, an image's layers, or documents. */
export type ContentSource = { fbcDir: string } | { layers: CatalogLayers } | { metas: AsyncIterable<Meta> | Iterable<Meta> };

interface LocalDirStoreOptions {
  root: string;
  ingest: IngestFn;
  logger: Logger;
  /** How long a superseded version stays on disk for requests already being served. */
  retireGraceMs?: number;
}

const CURRENT = 'current.json';
const TMP_PREFIX = '.tmp-';

export class LocalDirStore {
  readonly #root: string;
  readonly #ingest: IngestFn;
  readonly #log: Logger;
  readonly #graceMs: number;
  readonly #served = new Map<string, StoredVersion>();
  readonly #locks = new Map<string, Promise<unknown>>();
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(opts: LocalDirStoreOptions) {
    this.#root = opts.root;
    this.#ingest = opts.ingest;
    this.#log = opts.logger;
    this.#graceMs = opts.retireGraceMs ?? 60_000;
  }

  /** Creates the root, removes leftovers of interrupted writes and loads every servable catalog. */
  async open(): Promise<void> {
    await mkdir(this.#root, { recursive: true });
    for (const entry of await readdir(this.#root, { withFileTypes: true })) {
      const path = join(this.#root, entry.name);
      if (entry.name.startsWith(TMP_PREFIX) || !entry.isDirectory()) {
        await rm(path, { recursive: true, force: true });
        continue;
      }
      const version = await this.#loadCurrent(entry.name);
      if (version === undefined) {
        await rm(path, { recursive: true, force: true });
        continue;
      }
      this.#served.set(entry.name, version);
      await this.#removeOtherVersions(entry.name, version.dirName);
    }
  }

  /** The version served for `catalog`, if any. */
  get(catalog: string): StoredVersion | undefined {
    return this.#served.get(catalog);
  }

  /** Names of all catalogs with served content. */
  catalogs(): string[] {
    return [...this.#served.keys()].sort();
  }

  /** True when `catalog` is served, and (if given) at `digest`. */
  contentExists(catalog: string, digest?: string): boolean {
    const v = this.#served.get(catalog);
    return v !== undefined && (digest === undefined || v.info.digest === digest);
  }

  /** Tells the ingest that a store of an FBC directory is likely soon (call when a pull starts). */
  prepareIngest(): void {
    this.#ingest.prepare?.();
  }

  /**
   * Writes a new version of `catalog` from `source` and switches to it (the same digest is
   * rewritten only with `force`). Errors leave the served version untouched, thrown with the
   * ingest error as `cause`; a `signal` aborting before the switch cancels the ingest, removes
   * what it wrote and throws its reason.
   */
  store(
    catalog: string,
    info: VersionInfo,
    source: ContentSource,
    options: { force?: boolean; signal?: AbortSignal | undefined } = {},
  ): Promise<StoredVersion> {
    const { force = false, signal } = options;
    return this.#serialised(catalog, async () => {
      const existing = this.#served.get(catalog);
      if (!force && existing?.info.digest === info.digest) return existing;
      signal?.throwIfAborted();
      const tmp = join(this.#root, `${TMP_PREFIX}${catalog}-${randomBytes(6).toString('hex')}`);
      await mkdir(tmp, { recursive: true, mode: 0o700 });
      try {
        if ('fbcDir' in source) await this.#ingest(source.fbcDir, tmp, signal);
        else if ('layers' in source) await (this.#ingest.layers ?? ingestInProcess.layers)(source.layers, tmp, signal);
        else await writeCatalogContent(tmp, source.metas);
        // Content for a cancelled reconcile (a changed spec, a deleted catalog) is not served.
        signal?.throwIfAborted();
        const dirName = versionDirName(info.digest);
        const catalogDir = join(this.#root, catalog);
        await mkdir(catalogDir, { recursive: true });
        const target = join(catalogDir, dirName);
        let oldDir = existing?.dir;
        if (existing?.dirName === dirName) {
          // Same digest rewritten (force): move the served copy aside; open reads keep their fds.
          oldDir = join(this.#root, `${TMP_PREFIX}${catalog}-old-${randomBytes(4).toString('hex')}`);
          await rename(target, oldDir);
        }
        await rm(target, { recursive: true, force: true });
        await rename(tmp, target);
        const next = await StoredVersion.load(catalog, target, dirName, info);
        const currentTmp = join(catalogDir, `${CURRENT}.${randomBytes(4).toString('hex')}`);
        await writeFile(currentTmp, `${JSON.stringify(info)}\n`);
        await rename(currentTmp, join(catalogDir, CURRENT));
        this.#served.set(catalog, next);
        if (existing !== undefined && oldDir !== undefined) this.#retire(catalog, existing, oldDir);
        return next;
      } catch (err) {
        await rm(tmp, { recursive: true, force: true });
        throw err;
      }
    });
  }

  /** Stops serving `catalog` and removes all of its content. */
  delete(catalog: string): Promise<void> {
    return this.#serialised(catalog, async () => {
      const existing = this.#served.get(catalog);
      this.#served.delete(catalog);
      await existing?.close();
      await rm(join(this.#root, catalog), { recursive: true, force: true });
    });
  }

  /** Removes the content of every catalog not in `keep`, and temp directories of writes not running. */
  async gc(keep: ReadonlySet<string>): Promise<string[]> {
    const removed: string[] = [];
    for (const entry of await readdir(this.#root, { withFileTypes: true })) {
      if (entry.name.startsWith(TMP_PREFIX)) {
        const catalog = entry.name.slice(TMP_PREFIX.length).replace(/-[^-]*$/, '');
        if (this.#locks.has(catalog)) continue;
        await rm(join(this.#root, entry.name), { recursive: true, force: true });
        removed.push(entry.name);
      } else if (!keep.has(entry.name)) {
        await this.delete(entry.name);
        removed.push(entry.name);
      }
    }
    return removed;
  }

  /** Closes open file handles and cancels pending retirements (for shutdown and tests). */
  async close(): Promise<void> {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    await Promise.all([...this.#served.values()].map((v) => v.close()));
  }

  async #loadCurrent(catalog: string): Promise<StoredVersion | undefined> {
    const catalogDir = join(this.#root, catalog);
    try {
      const info = JSON.parse(await readFile(join(catalogDir, CURRENT), 'utf8')) as VersionInfo;
      if (typeof info.digest !== 'string' || typeof info.ref !== 'string') return undefined;
      const dirName = versionDirName(info.digest);
      const dir = join(catalogDir, dirName);
      for (const f of REQUIRED_CONTENT_FILES) await stat(join(dir, f));
      return await StoredVersion.load(catalog, dir, dirName, info);
    } catch (err) {
      this.#log.warn({ catalog, err }, 'discarding unreadable stored catalog');
      return undefined;
    }
  }

  async #removeOtherVersions(catalog: string, keepDir: string): Promise<void> {
    const catalogDir = join(this.#root, catalog);
    for (const entry of await readdir(catalogDir)) {
      if (entry === keepDir || entry === CURRENT) continue;
      await rm(join(catalogDir, entry), { recursive: true, force: true });
    }
  }

  /** Closes `old` and removes `oldDir` (its content) once requests in flight have had time to finish. */
  #retire(catalog: string, old: StoredVersion, oldDir: string): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      void this.#serialised(catalog, async () => {
        await old.close();
        if (this.#served.get(catalog)?.dir === oldDir) return;
        await rm(oldDir, { recursive: true, force: true });
      }).catch((err: unknown) => this.#log.warn({ catalog, err }, 'removing superseded catalog content failed'));
    }, this.#graceMs);
    timer.unref();
    this.#timers.add(timer);
  }

  #serialised<T>(catalog: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.#locks.get(catalog) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.#locks.set(catalog, tail);
    void tail.then(() => {
      if (this.#locks.get(catalog) === tail) this.#locks.delete(catalog);
    });
    return next;
  }
}

/** Directory name of a version: the digest with its algorithm separator made path-safe. */
function versionDirName(digest: string): string {
  if (!/^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/.test(digest)) {
    throw new Error(`invalid content digest ${JSON.stringify(digest)}`);
  }
  return digest.replace(':', '-');
}
