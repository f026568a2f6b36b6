/**
 * The ClusterExtension kind: zod schemas and types of what operator-controller reads and the
 * status it writes. The API server validates against config/crd, so the schemas check shape
 * only; their defaults mirror the CRD's, so a file parses to what the server would store.
 */
import { z } from 'zod';
import { Condition } from './conditions.ts';
import { API_VERSION, CLUSTER_EXTENSION } from './constants.ts';
import { LabelSelector, ObjectMeta } from './object-meta.ts';
import { parseObject } from './parse.ts';
import type { Result } from '../../errors/index.ts';

/** Values of `spec.source.sourceType`. */
const SourceType = {
  Catalog: 'Catalog',
} as const;

/** Values of `spec.source.catalog.upgradeConstraintPolicy`. */
export const UpgradeConstraintPolicy = {
  /** Upgrade only along the catalog's upgrade edges (the default). */
  CatalogProvided: 'CatalogProvided',
  /** Any bundle in the version range is allowed, including downgrades. */
  SelfCertified: 'SelfCertified',
} as const;

/** One of CatalogProvided, SelfCertified. */
export type UpgradeConstraintPolicy = (typeof UpgradeConstraintPolicy)[keyof typeof UpgradeConstraintPolicy];

/** Values of `spec.install.preflight.crdUpgradeSafety.enforcement`. */
export const CrdUpgradeSafetyEnforcement = {
  /** Skip the CRD upgrade-safety check. */
  None: 'None',
  /** Block an install or upgrade whose CRD changes are unsafe (the behaviour when unset). */
  Strict: 'Strict',
} as const;

/** One of None, Strict. */
export type CrdUpgradeSafetyEnforcement = (typeof CrdUpgradeSafetyEnforcement)[keyof typeof CrdUpgradeSafetyEnforcement];

/** Values of `spec.config.configType`. */
const ConfigType = {
  Inline: 'Inline',
} as const;

/**
 * `spec.source.catalog`: which bundle to pick. `version` is a Masterminds semver constraint;
 * absent or empty `version`, `channels` or `selector` filter nothing.
 */
export const CatalogFilter = z.object({
  packageName: z.string().min(1),
  version: z.string().optional(),
  channels: z.array(z.string()).optional(),
  selector: LabelSelector.optional(),
  upgradeConstraintPolicy: z
    .enum([UpgradeConstraintPolicy.CatalogProvided, UpgradeConstraintPolicy.SelfCertified])
    .default(UpgradeConstraintPolicy.CatalogProvided),
});

/** `spec.source`: `Catalog` is the only type, and the CRD requires `catalog` with it. */
const ClusterExtensionSource = z.object({
  sourceType: z.literal(SourceType.Catalog),
  catalog: CatalogFilter,
});

/** `spec.serviceAccount`: the ServiceAccount in `spec.namespace` used for the extension's objects (optional). */
const ServiceAccountReference = z.object({
  name: z.string().min(1),
});

/** `spec.install`; an absent `install` or `preflight` means Strict enforcement. */
const ClusterExtensionInstallConfig = z.object({
  preflight: z
    .object({
      crdUpgradeSafety: z.object({
        enforcement: z.enum([CrdUpgradeSafetyEnforcement.None, CrdUpgradeSafetyEnforcement.Strict]),
      }),
    })
    .optional(),
});

/**
 * `spec.config`: `inline` is any JSON object (registry+v1: `watchNamespace`, `deploymentConfig`),
 * checked against the resolved bundle's configuration schema at reconcile time.
 */
const ClusterExtensionConfig = z.object({
  configType: z.literal(ConfigType.Inline),
  inline: z.record(z.string(), z.unknown()),
});

/** `spec`; without `serviceAccount`, installed as the default install identity (decision 0073). */
export const ClusterExtensionSpec = z.object({
  namespace: z.string().min(1),
  serviceAccount: ServiceAccountReference.optional(),
  source: ClusterExtensionSource,
  install: ClusterExtensionInstallConfig.optional(),
  config: ClusterExtensionConfig.optional(),
  /** Boxcutter runtime only: minutes after which a revision not rolled out is reported failed. */
  progressDeadlineMinutes: z.number().int().optional(),
});

/** `spec` of a ClusterExtension; see the `ClusterExtensionSpec` schema. */
export type ClusterExtensionSpec = z.infer<typeof ClusterExtensionSpec>;

/**
 * `status.install.bundle`. `release` is set only with release support enabled and a release in
 * the catalog (else a release travels in `version`'s build metadata, e.g. `1.0.0+2`).
 */
export const BundleMetadata = z.object({
  name: z.string().min(1),
  version: z.string().min(1),
  release: z.string().optional(),
});

/** `status.install.bundle`; see the `BundleMetadata` schema. */
export type BundleMetadata = z.infer<typeof BundleMetadata>;

/** `status.install`: present exactly while a bundle is installed. */
const ClusterExtensionInstallStatus = z.object({
  bundle: BundleMetadata,
});

/** `status` of a ClusterExtension, written only by operator-controller. */
export const ClusterExtensionStatus = z.object({
  conditions: z.array(Condition).optional(),
  install: ClusterExtensionInstallStatus.optional(),
  /** Boxcutter runtime: the ClusterObjectSets not archived, the installed one first, then those rolling out with their conditions. */
  activeRevisions: z.array(z.object({ name: z.string(), conditions: z.array(Condition).optional() })).optional(),
});

/** `status` of a ClusterExtension; see the `ClusterExtensionStatus` schema. */
export type ClusterExtensionStatus = z.infer<typeof ClusterExtensionStatus>;

/**
 * A ClusterExtension as our code sees it. `apiVersion` and `kind` may be absent but must be
 * right when present. `spec` is required although the CRD accepts an object without one: such
 * an object cannot be acted on, and parsing it fails with a clear error.
 */
export const ClusterExtension = z.object({
  apiVersion: z.literal(API_VERSION).optional(),
  kind: z.literal(CLUSTER_EXTENSION.kind).optional(),
  metadata: ObjectMeta,
  spec: ClusterExtensionSpec,
  status: ClusterExtensionStatus.optional(),
});

/** A parsed ClusterExtension; see the `ClusterExtension` schema. */
export type ClusterExtension = z.infer<typeof ClusterExtension>;

/** Parses a ClusterExtension; fails (never throws) with one line naming every bad field path. */
export function parseClusterExtension(input: unknown): Result<ClusterExtension, string> {
  return parseObject(ClusterExtension, CLUSTER_EXTENSION.kind, input);
}
