/**
 * The parts of a CustomResourceDefinition the upgrade check reads, taken from the object as
 * the API server returns it (old) or as the bundle renders it (new).
 */
import type { KubeObject } from '../../shared/unstructured/index.ts';
import { normalizeSchema, type Schema } from './schema.ts';

/** One entry of `spec.versions`. */
export interface CrdVersion {
  name: string;
  served: boolean;
  /** `schema.openAPIV3Schema`, normalized; undefined when the version has none. */
  schema: Schema | undefined;
}

/** What the rules read of a CRD. */
export interface CrdView {
  scope: string;
  versions: CrdVersion[];
  /** `status.storedVersions`: versions objects may still be stored at in etcd. */
  storedVersions: string[];
  /** `spec.conversion.strategy` is `Webhook`. */
  webhookConversion: boolean;
}

function record(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Reads `crd`; missing or malformed parts read as empty. */
export function readCrd(crd: KubeObject): CrdView {
  const spec = record(crd['spec']);
  const versions: CrdVersion[] = [];
  for (const v of list(spec['versions'])) {
    const version = record(v);
    if (typeof version['name'] !== 'string') continue;
    const raw = record(version['schema'])['openAPIV3Schema'];
    versions.push({
      name: version['name'],
      served: version['served'] === true,
      schema: raw === undefined || raw === null ? undefined : normalizeSchema(raw),
    });
  }
  return {
    scope: typeof spec['scope'] === 'string' ? spec['scope'] : '',
    versions,
    storedVersions: list(record(crd['status'])['storedVersions']).filter((s): s is string => typeof s === 'string'),
    webhookConversion: record(spec['conversion'])['strategy'] === 'Webhook',
  };
}

/** True for an `apiextensions.k8s.io/v1` CustomResourceDefinition, the only kind the check reads. */
export function isCrdV1(obj: KubeObject): boolean {
  return obj.apiVersion === 'apiextensions.k8s.io/v1' && obj.kind === 'CustomResourceDefinition';
}
