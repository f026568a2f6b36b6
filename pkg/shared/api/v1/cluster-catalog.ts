/**
 * The ClusterCatalog kind: zod schemas and types for what catalogd and operator-controller
 * read from the object and the status catalogd writes.
 *
 * The API server validates these objects against config/crd (image reference rules, ranges,
 * the digest/poll exclusion), so the schemas check shape only. Schema defaults mirror the
 * CRD's, so a manifest read from a file parses to the same value the server would store.
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

/**
 * `spec.source.image`: a tag or digest image reference. `pollIntervalMinutes` (≥ 1) asks for a
 * periodic re-check of the tag; the CRD forbids it with a digest reference. Absent means never.
 */
const ImageSource = z.object({
  ref: z.string().min(1),
  pollIntervalMinutes: z.number().int().positive().optional(),
});

/**
 * `spec.source`. `Image` is the only source type, and the CRD requires `image` with it, so the
 * parsed form always has `image`.
 */
const CatalogSource = z.object({
  type: z.literal(CatalogSourceType.Image),
  image: ImageSource,
});

/**
 * `spec` of a ClusterCatalog. `priority` (int32, default 0) breaks ties between catalogs during
 * resolution, higher first.
 */
const ClusterCatalogSpec = z.object({
  source: CatalogSource,
  priority: z.number().int().default(0),
  availabilityMode: z.enum([AvailabilityMode.Available, AvailabilityMode.Unavailable]).default(AvailabilityMode.Available),
});

/**
 * `status.resolvedSource`: the content actually served, pinned by digest
 * (`<repository>@sha256:<hex>`; the CRD rejects tags here).
 */
const ResolvedCatalogSource = z.object({
  type: z.literal(CatalogSourceType.Image),
  image: z.object({ ref: z.string().min(1) }),
});

/**
 * `status.urls`: `base` is the http(s) URL of the catalog's content API
 * (`<scheme>://<host>/catalogs/<name>`); clients append `/api/v1/all` or `/api/v1/metas`.
 */
const ClusterCatalogUrls = z.object({
  base: z.string().min(1),
});

/**
 * `status` of a ClusterCatalog, written only by catalogd. Condition types and reasons are those
 * of `ClusterCatalogConditionType` and `ClusterCatalogReason`. `lastUnpacked` is an RFC 3339
 * timestamp in whole seconds.
 */
export const ClusterCatalogStatus = z.object({
  conditions: z.array(Condition).optional(),
  resolvedSource: ResolvedCatalogSource.optional(),
  urls: ClusterCatalogUrls.optional(),
  lastUnpacked: z.string().optional(),
});

/** `status` of a ClusterCatalog; see the `ClusterCatalogStatus` schema. */
export type ClusterCatalogStatus = z.infer<typeof ClusterCatalogStatus>;

/**
 * A ClusterCatalog as our code sees it. `apiVersion` and `kind` may be absent (list items from
 * some clients omit them) but must be right when present, so a manifest of another kind is
 * rejected.
 */
export const ClusterCatalog = z.object({
  apiVersion: z.literal(API_VERSION).optional(),
  kind: z.literal(CLUSTER_CATALOG.kind).optional(),
  metadata: ObjectMeta,
  spec: ClusterCatalogSpec,
  status: ClusterCatalogStatus.optional(),
});

/** A parsed ClusterCatalog; see the `ClusterCatalog` schema. */
export type ClusterCatalog = z.infer<typeof ClusterCatalog>;

/**
 * Parses a ClusterCatalog read from the API server or a file. Fails (never throws) with a
 * one-line message naming the object and every offending field path.
 */
export function parseClusterCatalog(input: unknown): Result<ClusterCatalog, string> {
  return parseObject(ClusterCatalog, CLUSTER_CATALOG.kind, input);
}
