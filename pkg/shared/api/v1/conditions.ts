/**
 * The closed vocabulary of status conditions: the `metav1.Condition` shape and each kind's
 * condition types and reasons. Users match on them as on upstream's: API contracts.
 */
import { z } from 'zod';

/** Values of a condition's `status`. */
export const ConditionStatus = {
  True: 'True',
  False: 'False',
  Unknown: 'Unknown',
} as const;

/** One of `True`, `False`, `Unknown`. */
export type ConditionStatus = (typeof ConditionStatus)[keyof typeof ConditionStatus];

/**
 * A status condition (`metav1.Condition`). `type` and `reason` are plain strings: other writers
 * may add conditions. `lastTransitionTime` is RFC 3339 in whole seconds; our controllers always
 * set `observedGeneration`; `message` may be empty, at most 32768 characters.
 */
export const Condition = z.object({
  type: z.string().min(1),
  status: z.enum([ConditionStatus.True, ConditionStatus.False, ConditionStatus.Unknown]),
  reason: z.string().min(1),
  message: z.string(),
  lastTransitionTime: z.string().min(1),
  observedGeneration: z.number().int().nonnegative().optional(),
});

/** A status condition; see the `Condition` schema. */
export type Condition = z.infer<typeof Condition>;

/** Condition types of a ClusterExtension. */
export const ClusterExtensionConditionType = {
  /** Whether a bundle is installed; its reason says why not. */
  Installed: 'Installed',
  /** Whether the extension is moving towards (or has reached) its desired state. */
  Progressing: 'Progressing',
  /** Roll-up of the three deprecation conditions below. */
  Deprecated: 'Deprecated',
  /** The package is deprecated in the catalog. */
  PackageDeprecated: 'PackageDeprecated',
  /** A channel the extension follows is deprecated. */
  ChannelDeprecated: 'ChannelDeprecated',
  /** The installed bundle is deprecated. */
  BundleDeprecated: 'BundleDeprecated',
} as const;

/** A ClusterExtension condition type. */
export type ClusterExtensionConditionType = (typeof ClusterExtensionConditionType)[keyof typeof ClusterExtensionConditionType];

/** Condition reasons used on a ClusterExtension. */
export const ClusterExtensionReason = {
  /** Installed True: a bundle is installed; Progressing True: desired state reached. */
  Succeeded: 'Succeeded',
  /** Installed False or Unknown: nothing installed, or the installed state could not be read. */
  Failed: 'Failed',
  /** Progressing False: a terminal error without a more specific reason; no retry. */
  Blocked: 'Blocked',
  /** Progressing True: a transient error; the controller retries with backoff. */
  Retrying: 'Retrying',
  /** Progressing False: `spec.config` does not fit the bundle's configuration schema; no retry. */
  InvalidConfiguration: 'InvalidConfiguration',
  /** Installed False (revision-based runtime) or BundleDeprecated Unknown: nothing installed yet. */
  Absent: 'Absent',
  /** Progressing True (revision-based runtime): a new revision is rolling out. */
  RollingOut: 'RollingOut',
  /** Progressing False (revision-based runtime): a revision did not roll out in time. */
  ProgressDeadlineExceeded: 'ProgressDeadlineExceeded',
  /** Deprecation condition True. */
  Deprecated: 'Deprecated',
  /** Deprecation condition False. */
  NotDeprecated: 'NotDeprecated',
  /** Deprecation condition Unknown: no catalog data to decide from. */
  DeprecationStatusUnknown: 'DeprecationStatusUnknown',
} as const;

/** A ClusterExtension condition reason. */
export type ClusterExtensionReason = (typeof ClusterExtensionReason)[keyof typeof ClusterExtensionReason];

/** Our ClusterExtension condition for update policies other than `Automatic` (decision 0096). */
export const UpgradeConditionType = {
  /** True while the catalogs offer an upgrade that the update policy holds until approved. */
  UpgradeAvailable: 'UpgradeAvailable',
} as const;

/** Reasons of the UpgradeAvailable condition. */
export const UpgradeReason = {
  /** True: an upgrade is available and waits for approval; the message says why and how to approve. */
  ApprovalRequired: 'ApprovalRequired',
  /** False: the installed bundle is what the resolution picks (or an approved upgrade is being applied). */
  UpToDate: 'UpToDate',
} as const;

/**
 * Our ClusterExtension condition for workload health (not upstream's): whether the release's
 * Deployments, StatefulSets and DaemonSets are available and its CRDs established.
 */
export const HealthConditionType = {
  /** True: every workload available and every CRD established; False names those that are not. */
  Healthy: 'Healthy',
} as const;

/** Reasons of the Healthy condition. */
export const HealthReason = {
  /** True: every judged object of the release is available (or the release has none). */
  Healthy: 'Healthy',
  /** False: the message names the objects that are not available, the first few and a count. */
  Unhealthy: 'Unhealthy',
  /** Unknown: the release's objects have not been listed yet (watches starting, or not permitted). */
  NotObserved: 'NotObserved',
} as const;

/** Condition types of a ClusterCatalog. */
export const ClusterCatalogConditionType = {
  /** Whether catalogd serves the catalog's content. */
  Serving: 'Serving',
  /** Whether catalogd is moving towards (or has reached) the desired content. */
  Progressing: 'Progressing',
} as const;

/** A ClusterCatalog condition type. */
export type ClusterCatalogConditionType = (typeof ClusterCatalogConditionType)[keyof typeof ClusterCatalogConditionType];

/** Condition reasons used on a ClusterCatalog. */
export const ClusterCatalogReason = {
  /** Serving True: content from the resolved source is served. */
  Available: 'Available',
  /** Serving False: no content is served (for example during deletion). */
  Unavailable: 'Unavailable',
  /** Serving False: `spec.availabilityMode` is Unavailable. */
  UserSpecifiedUnavailable: 'UserSpecifiedUnavailable',
  /** Progressing True: content unpacked and stored, or the Unavailable mode applied. */
  Succeeded: 'Succeeded',
  /** Progressing True: a transient error; catalogd retries with backoff. */
  Retrying: 'Retrying',
  /** Progressing False: a terminal error; no retry until the object changes. */
  Blocked: 'Blocked',
} as const;

/** A ClusterCatalog condition reason. */
export type ClusterCatalogReason = (typeof ClusterCatalogReason)[keyof typeof ClusterCatalogReason];

/** The condition of `type` in `conditions`, or undefined when there is none. */
export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  if (conditions === undefined) return undefined;
  for (const c of conditions) {
    if (c.type === type) return c;
  }
  return undefined;
}
