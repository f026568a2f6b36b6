/**
 * The pure half of resuming `olmv1 install` (write.ts): what to do with an object that
 * already exists where install would create one. Only an object carrying both install labels
 * for the same extension name is install's own, left by an earlier run; anything else is
 * someone else's and stays refused.
 */
import type { KubeObject } from '../../shared/kube/index.ts';
import { INSTALLED_BY_LABEL, INSTALLED_FOR_LABEL } from './objects.ts';

/**
 * What install does with `live`, found where it would create `want`:
 * - `foreign`: not labelled as install's for this extension (or being deleted): refused as before;
 * - `keep`: its own, and already what this run writes: used as it is;
 * - `update`: its own, with other content: replaced by `object` (the live object with this run's
 *   fields and labels, at the live resourceVersion, its other labels and annotations kept);
 * - `differs`: its own, but it cannot be made what this run writes (a ClusterExtension with
 *   another spec: changing it is `olmv1 update`'s; a binding with another, immutable roleRef).
 */
type Adoption = { action: 'foreign' } | { action: 'keep' } | { action: 'update'; object: KubeObject } | { action: 'differs' };

/** Whether `o` carries both labels `olmv1 install` writes for the ClusterExtension `extension`. */
function isInstalledFor(o: KubeObject, extension: string): boolean {
  const labels = o.metadata.labels ?? {};
  return labels[INSTALLED_BY_LABEL] === 'olmv1' && labels[INSTALLED_FOR_LABEL] === extension;
}

/** The fields compared and written: everything but the envelope, metadata and status. */
function content(o: KubeObject): Record<string, unknown> {
  const { apiVersion: _a, kind: _k, metadata: _m, status: _s, ...rest } = o;
  return rest;
}

/**
 * Whether `live` holds everything of `want`: equal scalars, objects whose keys of `want` are
 * covered, arrays of the same length covered element by element. Fields only `live` has (what
 * the API server defaults) do not count.
 */
function covers(want: unknown, live: unknown): boolean {
  if (Array.isArray(want)) return Array.isArray(live) && live.length === want.length && want.every((w, i) => covers(w, live[i]));
  if (typeof want === 'object' && want !== null) {
    if (typeof live !== 'object' || live === null || Array.isArray(live)) return false;
    const l = live as Record<string, unknown>;
    return Object.entries(want).every(([k, v]) => covers(v, l[k]));
  }
  return want === live;
}

/** The decision for `live`, found where install would create `want` for the ClusterExtension `extension`. */
export function adoption(want: KubeObject, live: KubeObject, extension: string): Adoption {
  if (!isInstalledFor(live, extension) || live.metadata.deletionTimestamp !== undefined) return { action: 'foreign' };
  const annotations = want.metadata.annotations ?? {};
  const same =
    covers(content(want), content(live)) &&
    covers(want.metadata.labels ?? {}, live.metadata.labels ?? {}) &&
    covers(annotations, live.metadata.annotations ?? {});
  if (same) return { action: 'keep' };
  if (want.kind === 'ClusterExtension') return { action: 'differs' };
  if (want.kind.endsWith('RoleBinding') && !covers(want['roleRef'], live['roleRef'])) return { action: 'differs' };
  const object: KubeObject = {
    ...live,
    ...content(want),
    metadata: {
      ...live.metadata,
      labels: { ...live.metadata.labels, ...want.metadata.labels },
      ...(Object.keys(annotations).length === 0 ? {} : { annotations: { ...live.metadata.annotations, ...annotations } }),
    },
  };
  return { action: 'update', object };
}
