/**
 * The ClusterCatalog kind: zod schemas and types of what catalogd and operator-controller read
 * and the status catalogd writes. The API server validates against config/crd, so the schemas
 * check shape only; their defaults mirror the CRD's.
 */
import { z } from 'zod';
import { Condition } from './conditions.ts';
import { API_VERSION, CLUSTER_CATALOG } from './constants.ts';
import { ObjectMeta } from './object-meta.ts';
import { parseObject } from './parse.ts';
import type { Result } from '../../errors/index.ts';

/** Values of `spec.source.type` and `status.resolvedSource.type`. */
export const CatalogSourceType = {
  Image: 'Image',
} as const;

/** Values of `spec.availabilityMode`. */
export const AvailabilityMode = {
  /** The catalog is served and takes part in resolution (the default). */
  Available: 'Available',
  /** The catalog is not served and is left out of resolution. */
  Unavailable: 'Unavailable',
} as const;

/** One of Available, Unavailable. */
export type AvailabilityMode = (typeof AvailabilityMode)[keyof typeof AvailabilityMode];

/** `spec.source.image`: a tag or digest; `pollIntervalMinutes` re-checks a tag periodically. */
const ImageSource = z.object({
  ref: z.string().min(1),
  pollIntervalMinutes: z.number().int().positive().optional(),
});

/** `spec.source`: `Image` is the only type, and the CRD requires `image` with it. */
const CatalogSource = z.object({
  type: z.literal(CatalogSourceType.Image),
  image: ImageSource,
});

/** `spec` of a ClusterCatalog; `priority` breaks ties in resolution, higher first. */
const ClusterCatalogSpec = z.object({
  source: CatalogSource,
  priority: z.number().int().default(0),
  availabilityMode: z.enum([AvailabilityMode.Available, AvailabilityMode.Unavailable]).default(AvailabilityMode.Available),
});

/** `status.resolvedSource`: the content served, pinned by digest (`<repository>@sha256:<hex>`). */
const ResolvedCatalogSource = z.object({
  type: z.literal(CatalogSourceType.Image),
  image: z.object({ ref: z.string().min(1) }),
});

/** `status.urls`: `base` is the catalog's content API (`<scheme>://<host>/catalogs/<name>`). */
const ClusterCatalogUrls = z.object({
  base: z.string().min(1),
});

/** `status` of a ClusterCatalog, written only by catalogd; `lastUnpacked` is RFC 3339. */
export const ClusterCatalogStatus = z.object({
  conditions: z.array(Condition).optional(),
  resolvedSource: ResolvedCatalogSource.optional(),
  urls: ClusterCatalogUrls.optional(),
  lastUnpacked: z.string().optional(),
});

/** `status` of a ClusterCatalog; see the `ClusterCatalogStatus` schema. */
export type ClusterCatalogStatus = z.infer<typeof ClusterCatalogStatus>;

/** A ClusterCatalog; `apiVersion` and `kind` may be absent but must be right when present. */
export const ClusterCatalog = z.object({
  apiVersion: z.literal(API_VERSION).optional(),
  kind: z.literal(CLUSTER_CATALOG.kind).optional(),
  metadata: ObjectMeta,
  spec: ClusterCatalogSpec,
  status: ClusterCatalogStatus.optional(),
});

/** A parsed ClusterCatalog; see the `ClusterCatalog` schema. */
export type ClusterCatalog = z.infer<typeof ClusterCatalog>;

/** Parses a ClusterCatalog; fails (never throws) with one line naming every bad field path. */
export function parseClusterCatalog(input: unknown): Result<ClusterCatalog, string> {
  return parseObject(ClusterCatalog, CLUSTER_CATALOG.kind, input);
}
