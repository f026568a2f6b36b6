/**
 * What this process's last apply of each object of an extension left: the content digest of the
 * API server's answer (as a drift watch digests it, drift/targets.ts `fingerprint`), the verdict
 * of its status for the kinds drift/health.ts judges, and when.
 * In memory only: after a restart nothing is known, and every object is applied once more.
 */
import type { KubeObject } from '../../shared/kube/index.ts';
import { fingerprint, type DriftFingerprint } from './targets.ts';
import type { ObjectHealth } from './health.ts';

/** What the last apply of an object left: its content digest, its verdict if judged, and when (Date.now()). */
interface Applied {
  digest: string;
  health?: ObjectHealth;
  at: number;
}

/** Per extension, per object (type, name, namespace as stored): what its last apply left. */
export class AppliedDigests {
  readonly #byExtension = new Map<string, Map<string, Applied>>();

  /** `answer` is the API server's answer to an apply of one object of `extension`. */
  note(extension: string, answer: KubeObject): void {
    const applied = this.#byExtension.get(extension) ?? new Map<string, Applied>();
    this.#byExtension.set(extension, applied);
    const { digest, health } = fingerprint(answer);
    applied.set(appliedKey(answer), { digest, ...(health === undefined ? {} : { health }), at: Date.now() });
  }

  /** What the last apply of `obj` (named as stored: a namespaced object names its namespace) left. */
  get(extension: string, obj: Readonly<KubeObject>): Readonly<Applied> | undefined {
    return this.#byExtension.get(extension)?.get(appliedKey(obj));
  }

  /** The verdict of the apply answer of `obj` (named as stored), if this process applied it within `withinMs`. */
  verdict(extension: string, obj: Readonly<KubeObject>, withinMs: number): ObjectHealth | undefined {
    const applied = this.get(extension, obj);
    return applied !== undefined && Date.now() - applied.at < withinMs ? applied.health : undefined;
  }

  /** Forgets the objects the extension's release (`objects`) no longer has. */
  keepOnly(extension: string, objects: readonly KubeObject[]): void {
    const applied = this.#byExtension.get(extension);
    if (applied === undefined) return;
    const kept = new Set(objects.map(namedKey));
    for (const key of applied.keys()) if (!kept.has(key.slice(0, key.lastIndexOf('|') + 1))) applied.delete(key);
  }

  /**
   * A first list's check of what the last applies left: the first of `expected` (cache keys) that
   * `cache` holds and that changed since this process applied it (between the apply and the list,
   * which no watch event reports), unless operator-controller's apply wrote it last.
   */
  firstChanged(
    extension: string,
    expected: Iterable<string>,
    cache: { get(key: string): Readonly<DriftFingerprint> | undefined },
  ): Readonly<DriftFingerprint> | undefined {
    for (const key of expected) {
      const cached = cache.get(key);
      const last = cached === undefined ? undefined : this.get(extension, cached);
      if (cached !== undefined && last !== undefined && last.digest !== cached.digest && cached.ownWrite !== true) return cached;
    }
    return undefined;
  }

  forget(extension: string): void {
    this.#byExtension.delete(extension);
  }
}

/** The first part of an appliedKey: type and name (a release's object may not name its namespace). */
function namedKey(obj: Readonly<KubeObject>): string {
  return `${obj.apiVersion}|${obj.kind}|${obj.metadata.name ?? ''}|`;
}

/** Type, name, then the namespace as stored (none for cluster-scoped kinds). */
function appliedKey(obj: Readonly<KubeObject>): string {
  return `${namedKey(obj)}${obj.metadata.namespace ?? ''}`;
}
