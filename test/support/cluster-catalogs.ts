/**
 * ClusterCatalog objects as catalogd's informer holds them, for unit tests of what reads them
 * (catalog selection, catalog events): Serving condition, resolved digest and base URL.
 */
import type { KubeObject } from '../../pkg/shared/kube/index.ts';

/** How a test's catalog differs from a serving one. */
export interface CatalogFixture {
  labels?: Record<string, string>;
  /** Set only when given. */
  priority?: number;
  /** Set only when given. */
  availabilityMode?: 'Available' | 'Unavailable';
  /** The Serving condition's status; 'absent' leaves it out. Default 'True'. */
  serving?: 'True' | 'False' | 'absent';
  /** The digest of `status.resolvedSource` (default {@link CATALOG_DIGEST}). */
  digest?: string;
  /** False leaves `status.resolvedSource` out. */
  resolved?: boolean;
  /** False leaves `status.urls` out. */
  urls?: boolean;
  /** Set only when given. */
  lastUnpacked?: string;
  /** `spec.source.image.ref` (default `registry.example/<name>:latest`). */
  ref?: string;
}

export const CATALOG_DIGEST = `sha256:${'a'.repeat(64)}`;

/** The `status.urls.base` of catalog `name`. */
export const catalogBaseUrl = (name: string): string => `https://catalogd-service.olmv1-system.svc/catalogs/${name}`;

/** The resolved image reference of catalog `name` at `digest`. */
export const catalogDigestRef = (name: string, digest = CATALOG_DIGEST): string => `registry.example/${name}@${digest}`;

/** ClusterCatalog `name`, serving its content at a resolved digest unless `o` says otherwise. */
export function clusterCatalogObject(name: string, o: CatalogFixture = {}): KubeObject {
  const serving = o.serving ?? 'True';
  const condition = {
    type: 'Serving',
    status: serving,
    reason: serving === 'True' ? 'Available' : 'Unavailable',
    message: '',
    lastTransitionTime: '2024-01-01T00:00:00Z',
  };
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name, labels: { 'olm.operatorframework.io/metadata.name': name, ...o.labels } },
    spec: {
      source: { type: 'Image', image: { ref: o.ref ?? `registry.example/${name}:latest` } },
      ...(o.priority === undefined ? {} : { priority: o.priority }),
      ...(o.availabilityMode === undefined ? {} : { availabilityMode: o.availabilityMode }),
    },
    status: {
      conditions: serving === 'absent' ? [] : [condition],
      ...(o.resolved === false ? {} : { resolvedSource: { type: 'Image', image: { ref: catalogDigestRef(name, o.digest) } } }),
      ...(o.urls === false ? {} : { urls: { base: catalogBaseUrl(name) } }),
      ...(o.lastUnpacked === undefined ? {} : { lastUnpacked: o.lastUnpacked }),
    },
  };
}
