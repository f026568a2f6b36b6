/**
 * Which CRDs need their stored objects migrated (pure): a CRD whose `status.storedVersions`
 * names a version besides its storage version still has objects in etcd written in an older
 * version. Rewriting each object (a no-op update, which the API server stores in the storage
 * version) and then trimming `storedVersions` to the storage version is what
 * kube-storage-version-migrator does; migrate.ts runs it.
 */
import type { KubeObject } from '../unstructured/index.ts';

/** A CRD whose stored objects must be rewritten. */
export interface MigrationPlan {
  /** The CRD's name (`<plural>.<group>`). */
  crd: string;
  group: string;
  kind: string;
  /** The version the API server writes. */
  storageVersion: string;
  /** Versions in `status.storedVersions` other than the storage version. */
  stale: string[];
}

interface CrdShape {
  spec?: {
    group?: unknown;
    names?: { kind?: unknown; plural?: unknown };
    versions?: Array<{ name?: unknown; storage?: unknown }>;
  };
  status?: { storedVersions?: unknown };
}

/**
 * What a CRD needs: a plan when objects may be stored in a version other than its storage
 * version, `undefined` when `storedVersions` is only the storage version (or empty: nothing
 * stored yet). A CRD without exactly one storage version, or not named `<plural>.<group>`, is
 * reported as a problem (a string): nothing is rewritten for it.
 */
export function storageMigrationPlan(crd: KubeObject): MigrationPlan | string | undefined {
  const name = crd.metadata?.name ?? '';
  const { spec, status } = crd as CrdShape;
  const group = typeof spec?.group === 'string' ? spec.group : '';
  const kind = typeof spec?.names?.kind === 'string' ? spec.names.kind : '';
  const plural = typeof spec?.names?.plural === 'string' ? spec.names.plural : '';
  if (name === '' || name !== `${plural}.${group}` || kind === '') return `CRD ${JSON.stringify(name)} is not named <plural>.<group> of its own spec`;
  const storage = (spec?.versions ?? []).filter((v) => v.storage === true && typeof v.name === 'string').map((v) => v.name as string);
  if (storage.length !== 1) return `CRD ${name} has ${storage.length} storage versions`;
  const storageVersion = storage[0] as string;
  const stored = Array.isArray(status?.storedVersions) ? status.storedVersions.filter((v): v is string => typeof v === 'string') : [];
  const stale = stored.filter((v) => v !== storageVersion);
  if (stale.length === 0) return undefined;
  return { crd: name, group, kind, storageVersion, stale };
}
