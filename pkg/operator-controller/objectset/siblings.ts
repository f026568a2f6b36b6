/**
 * The other active revisions of a revision's extension (issue 74, decision 0151): what the
 * rollout may take objects over from (ownership.ts `SiblingIsController`) and, once the
 * revision completed, archives (the older ones). Read from the ClusterObjectSet informer's
 * copies, as upstream reads its cache, or listed from the API server without them; by the
 * owner-name label when the extension is proven (none otherwise), and with the same controller
 * owner reference (a label is not proof).
 *
 * A copy proves no write: each archive is a merge patch on the resourceVersion the copy holds
 * (a copy behind the revision's conflicts and the reconcile is retried). Archived is final (the
 * CRD's rule), so a sibling this process archived is left out while the copy is still at the
 * resourceVersion the archive was made on (the pattern of the StepReconciler's `cached`): a
 * reconcile right after the archive does not archive it again on a copy that would conflict.
 */
import { CLUSTER_OBJECT_SET, LifecycleState, OWNER_NAME_LABEL, type ClusterObjectSet } from '../../shared/api/index.ts';
import type { KubeClient, KubeObject } from '../../shared/kube/index.ts';
import { sameExtensionController } from './authority.ts';

/** The informer's copies of the ClusterObjectSets labelled with `owner`'s name (a labelIndex of it). */
type CachedObjectSets = (owner: string) => readonly Readonly<KubeObject>[];

/** See the module comment. */
export class Siblings {
  readonly #client: Pick<KubeClient, 'listAll'>;
  readonly #cached: CachedObjectSets | undefined;
  /** By extension, then revision name: the resourceVersion this process archived the revision on. */
  readonly #archivedOn = new Map<string, Map<string, string>>();

  constructor(client: Pick<KubeClient, 'listAll'>, cached?: CachedObjectSets) {
    this.#client = client;
    this.#cached = cached;
  }

  /** The other active revisions of `owner`'s (the proven extension of `cos`; none: no siblings). */
  async of(owner: string | undefined, cos: ClusterObjectSet, signal: AbortSignal): Promise<ClusterObjectSet[]> {
    if (owner === undefined) return [];
    const all = this.#cached === undefined ? await this.#listed(owner, signal) : this.#copies(owner);
    const archived = this.#archivedOn.get(owner);
    if (archived !== undefined) {
      // What no copy is at any more is not waited for.
      for (const [name, on] of archived) if (!all.some((r) => r.metadata.name === name && r.metadata.resourceVersion === on)) archived.delete(name);
      if (archived.size === 0) this.#archivedOn.delete(owner);
    }
    return all.filter(
      (r) =>
        r.metadata.name !== cos.metadata.name &&
        r.spec.lifecycleState !== LifecycleState.Archived &&
        r.metadata.deletionTimestamp === undefined &&
        archived?.get(r.metadata.name) !== r.metadata.resourceVersion &&
        sameExtensionController(cos, r),
    );
  }

  /** `sibling` of `owner`'s, as `of` returned it, was archived by this process (on its resourceVersion). */
  archived(owner: string, sibling: ClusterObjectSet): void {
    const on = sibling.metadata.resourceVersion;
    if (on === undefined) return;
    const names = this.#archivedOn.get(owner) ?? new Map<string, string>();
    names.set(sibling.metadata.name, on);
    this.#archivedOn.set(owner, names);
  }

  #copies(owner: string): ClusterObjectSet[] {
    return (this.#cached?.(owner) ?? []) as unknown as ClusterObjectSet[];
  }

  async #listed(owner: string, signal: AbortSignal): Promise<ClusterObjectSet[]> {
    const { items } = await this.#client.listAll<ClusterObjectSet & { apiVersion: string; kind: string }>(
      { apiVersion: CLUSTER_OBJECT_SET.apiVersion, kind: CLUSTER_OBJECT_SET.kind },
      { labelSelector: `${OWNER_NAME_LABEL}=${owner}`, signal },
    );
    return items;
  }
}
