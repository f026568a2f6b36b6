/**
 * The stored-object verdict kept while an upgrade waits (decision 0129). A refused upgrade is
 * retried, and each retry used to list every stored object again (5,001 objects: 21 pages a
 * retry, hundreds of lists a minute). Here a verdict is kept per reader (the extension's
 * ServiceAccount) and CRD, under a digest of what decides it (the new CRD, the installed one,
 * the versions scanned), together with one watch of the CRD's objects from the scan's
 * resourceVersion. While nothing changes a retry costs no request. The watch tells the rest:
 *
 * - An object that passes and is not among the failing ones, when every failing one is known
 *   (all were kept by name), changes nothing but the count (added, deleted): the verdict is
 *   updated in place, no list, no reconcile.
 * - Any other change (a failing object fixed, changed or deleted, a new failure, or one that
 *   cannot be told) drops the verdict and queues each extension that read it (`onChange`), so a
 *   fixed object lets a waiting upgrade go promptly.
 * - A watch that cannot go on (refused, too old, the server ending it three times without a
 *   word) drops the verdict without queueing anything: the next retry scans again, as before.
 *
 * A new bundle's CRD or a changed installed CRD is another digest: scanned again. Memory is
 * bounded: at most `maxEntries` verdicts (each a few failing objects with three errors) and as
 * many watches, the least recently used dropped first; an incomplete scan is never kept.
 */
import { createHash } from 'node:crypto';
import type { KubeObject, TypeRef, WatchEvent } from '../../shared/unstructured/index.ts';
import { readCrd } from './crd.ts';
import type { Schema } from './schema.ts';
import type { CrdViolation } from './violation.ts';
import { coverableVersions } from './stored-coverable.ts';
import { storedObjectsVerdict, storedVerdictOf, type StoredVerdict } from './stored-decide.ts';
import {
  DEFAULT_SCAN_LIMITS,
  nameOf,
  objectVerdict,
  scanStoredObjects,
  type ScanLimits,
  type ScanResult,
  type StoredObjectLister,
} from './stored-scan.ts';

/** What the cache watches with (KubeClient's `watchEvents`); without it nothing is kept. */
interface StoredObjectWatcher {
  watchEvents?(
    type: TypeRef,
    options: { resourceVersion: string; allowWatchBookmarks: boolean; signal: AbortSignal },
    onEvent: (event: WatchEvent) => void,
  ): Promise<void>;
}

/** Who asks: the extension (queued on a change) and the identity its client reads as. */
interface StoredReader {
  readonly extension: string;
  /** `namespace/name` of the ServiceAccount; verdicts are not shared between identities. */
  readonly identity: string;
  readonly client: StoredObjectLister & StoredObjectWatcher;
}

interface StoredCacheOptions {
  /** Queues a reconcile of `extension`: a verdict it read no longer holds. */
  readonly onChange: (extension: string) => void;
  /** Ends every watch (the leader's lifetime). */
  readonly signal: AbortSignal;
  /** Verdicts (and watches) kept at most; default 64. */
  readonly maxEntries?: number;
  readonly limits?: ScanLimits;
}

/** Server-ended watches in a row with no event at all before the verdict is given up. */
const QUIET_WATCHES = 3;

interface Entry {
  readonly digest: string;
  verdict: StoredVerdict;
  readonly extensions: Set<string>;
  readonly stop: AbortController;
  /** The watched version's schemas; undefined when several versions were scanned (every change then counts). */
  readonly schemas: { readonly now: Schema; readonly before: Schema | undefined } | undefined;
}

/** See the module comment. */
export class StoredVerdictCache {
  readonly #entries = new Map<string, Entry>();
  readonly #o: StoredCacheOptions;
  readonly #max: number;
  readonly #limits: ScanLimits;

  constructor(options: StoredCacheOptions) {
    this.#o = options;
    this.#max = Math.max(1, options.maxEntries ?? 64);
    this.#limits = options.limits ?? DEFAULT_SCAN_LIMITS;
    options.signal.addEventListener('abort', () => this.close(), { once: true });
  }

  /** Verdicts kept (each with its watch). */
  get size(): number {
    return this.#entries.size;
  }

  /** `storedObjectsVerdict`, answered from the kept verdict while it holds. */
  async verdict(
    reader: StoredReader,
    installed: KubeObject,
    proposed: KubeObject,
    violations: readonly CrdViolation[],
    signal: AbortSignal,
  ): Promise<StoredVerdict> {
    const versions = coverableVersions(installed, proposed, violations);
    // Nothing to list: the verdict is immediate.
    if (versions === undefined) return storedObjectsVerdict(reader.client, installed, proposed, violations, signal, this.#limits);
    const key = `${reader.identity}\n${proposed.metadata.name ?? ''}`;
    const digest = digestOf(installed, proposed, versions);
    const kept = this.#entries.get(key);
    if (kept?.digest === digest) {
      this.#entries.delete(key);
      this.#entries.set(key, kept);
      kept.extensions.add(reader.extension);
      return kept.verdict;
    }
    if (kept !== undefined) this.#drop(key, kept);
    const scan = await scanStoredObjects(reader.client, proposed, versions, signal, this.#limits, Date.now, installed);
    const verdict = storedVerdictOf(scan);
    const watch = reader.client.watchEvents?.bind(reader.client);
    if (scan.resourceVersion === undefined || watch === undefined || this.#o.signal.aborted) return verdict;
    const first = versions[0] ?? '';
    const schemaOf = (crd: KubeObject): Schema | undefined => readCrd(crd).versions.find((v) => v.name === first)?.schema;
    const now = schemaOf(proposed);
    const entry: Entry = {
      digest,
      verdict,
      extensions: new Set([reader.extension]),
      stop: new AbortController(),
      schemas: versions.length === 1 && now !== undefined ? { now, before: schemaOf(installed) } : undefined,
    };
    const current = this.#entries.get(key);
    if (current !== undefined) this.#drop(key, current);
    this.#entries.set(key, entry);
    for (const [k, e] of this.#entries) {
      if (this.#entries.size <= this.#max) break;
      this.#drop(k, e);
    }
    void this.#watch(key, entry, watch, typeOf(proposed, first), scan.resourceVersion);
    return verdict;
  }

  /** `extension` is gone: its verdicts are dropped unless another extension reads them too. */
  forget(extension: string): void {
    for (const [key, entry] of this.#entries) {
      entry.extensions.delete(extension);
      if (entry.extensions.size === 0) this.#drop(key, entry);
    }
  }

  /** Drops every verdict and ends every watch. */
  close(): void {
    for (const [key, entry] of this.#entries) this.#drop(key, entry);
  }

  #drop(key: string, entry: Entry): void {
    entry.stop.abort();
    if (this.#entries.get(key) === entry) this.#entries.delete(key);
  }

  async #watch(key: string, entry: Entry, watch: NonNullable<StoredObjectWatcher['watchEvents']>, type: TypeRef, from: string): Promise<void> {
    let resourceVersion = from;
    let quiet = 0;
    const signal = entry.stop.signal;
    while (!signal.aborted && quiet < QUIET_WATCHES) {
      let heard = false;
      try {
        await watch(type, { resourceVersion, allowWatchBookmarks: true, signal }, (event) => {
          heard = true;
          resourceVersion = event.object.metadata.resourceVersion ?? resourceVersion;
          if (event.type !== 'BOOKMARK' && !signal.aborted) this.#changed(key, entry, event);
        });
      } catch {
        // Refused, too old, the connection lost: nothing can be told from here on.
        break;
      }
      quiet = heard ? 0 : quiet + 1;
    }
    this.#drop(key, entry);
  }

  /** One stored object changed: the verdict updated in place when it cannot be affected, else dropped and its readers queued. */
  #changed(key: string, entry: Entry, event: WatchEvent): void {
    const updated = unaffected(entry, event, this.#limits);
    if (updated !== undefined) {
      entry.verdict = storedVerdictOf(updated);
      return;
    }
    this.#drop(key, entry);
    for (const extension of entry.extensions) this.#o.onChange(extension);
  }
}

/**
 * The scan after `event`, when the event cannot change which objects fail: the object passes
 * (and is not known failing), every failing object is known by name, and the count stays
 * within the scan's bound. Undefined otherwise.
 */
function unaffected(entry: Entry, event: WatchEvent, limits: ScanLimits): ScanResult | undefined {
  const scan = entry.verdict.scan;
  if (scan === undefined || entry.schemas === undefined || scan.failingCount > scan.failing.length) return undefined;
  const name = nameOf(event.object);
  if (scan.failing.some((f) => f.object === name)) return undefined;
  if (event.type !== 'DELETED' && objectVerdict(event.object, entry.schemas.now, entry.schemas.before, limits.validation) !== undefined)
    return undefined;
  const checked = scan.checked + (event.type === 'ADDED' ? 1 : event.type === 'DELETED' ? -1 : 0);
  return checked > limits.maxObjects ? undefined : { ...scan, checked };
}

function typeOf(crd: KubeObject, version: string): TypeRef {
  const spec = (crd['spec'] ?? {}) as { group?: string; names?: { kind?: string } };
  return { apiVersion: `${spec.group ?? ''}/${version}`, kind: spec.names?.kind ?? '' };
}

/** What decides a verdict: both CRDs' specs and the versions scanned. */
function digestOf(installed: KubeObject, proposed: KubeObject, versions: readonly string[]): string {
  return createHash('sha256')
    .update(JSON.stringify([installed['spec'] ?? null, proposed['spec'] ?? null, versions]))
    .digest('hex');
}
