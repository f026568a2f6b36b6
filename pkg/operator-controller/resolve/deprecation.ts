/**
 * The four deprecation conditions of a ClusterExtension (Deprecated, PackageDeprecated,
 * ChannelDeprecated, BundleDeprecated, as upstream sets them), computed from the deprecation
 * object a resolution returned.
 */
import { ClusterExtensionConditionType, ClusterExtensionReason, ConditionStatus } from '../../shared/api/index.ts';
import type { Deprecation, DeprecationEntry } from '../../shared/fbc/types.ts';

/** One computed condition, without the bookkeeping fields the controller adds. */
export interface DeprecationCondition {
  readonly type: ClusterExtensionConditionType;
  readonly status: ConditionStatus;
  readonly reason: ClusterExtensionReason;
  readonly message: string;
}

/** Message of every deprecation condition when there is no catalog data. */
const DEPRECATION_UNKNOWN_MESSAGE = 'deprecation status unknown: catalog data unavailable';
/** BundleDeprecated message when nothing is installed. */
const NO_BUNDLE_INSTALLED_MESSAGE = 'no bundle installed yet';

function condition(type: ClusterExtensionConditionType, messages: readonly string[], notDeprecatedMessage: string): DeprecationCondition {
  if (messages.length > 0) {
    return { type, status: ConditionStatus.True, reason: ClusterExtensionReason.Deprecated, message: messages.join('\n') };
  }
  return { type, status: ConditionStatus.False, reason: ClusterExtensionReason.NotDeprecated, message: notDeprecatedMessage };
}

function messagesOf(entries: readonly DeprecationEntry[]): string[] {
  return entries.map((e) => e.message).filter((m) => m !== '');
}

/**
 * Computes, in this order, `Deprecated`, `PackageDeprecated`, `ChannelDeprecated` and
 * `BundleDeprecated`.
 *
 * - `installedBundleName` is `""` when nothing is installed: BundleDeprecated is then
 *   Unknown/`Absent` "no bundle installed yet" whatever else holds.
 * - `hasCatalogData` false (resolution failed or was skipped): the other three are
 *   Unknown/`DeprecationStatusUnknown`, and so is BundleDeprecated when something is installed.
 * - Otherwise package entries, channel entries (those named in `channels`, or all when
 *   `channels` is empty) and bundle entries naming the installed bundle contribute their
 *   non-empty messages; a condition is True with its messages joined by newlines, else
 *   False/`NotDeprecated`. The roll-up joins package, channel and bundle messages in order.
 */
export function deprecationConditions(
  installedBundleName: string,
  deprecation: Deprecation | null | undefined,
  hasCatalogData: boolean,
  channels: readonly string[] = [],
): [DeprecationCondition, DeprecationCondition, DeprecationCondition, DeprecationCondition] {
  const T = ClusterExtensionConditionType;
  const absent: DeprecationCondition = {
    type: T.BundleDeprecated,
    status: ConditionStatus.Unknown,
    reason: ClusterExtensionReason.Absent,
    message: NO_BUNDLE_INSTALLED_MESSAGE,
  };
  if (!hasCatalogData) {
    const unknown = (type: ClusterExtensionConditionType): DeprecationCondition => ({
      type,
      status: ConditionStatus.Unknown,
      reason: ClusterExtensionReason.DeprecationStatusUnknown,
      message: DEPRECATION_UNKNOWN_MESSAGE,
    });
    return [
      unknown(T.Deprecated),
      unknown(T.PackageDeprecated),
      unknown(T.ChannelDeprecated),
      installedBundleName === '' ? absent : unknown(T.BundleDeprecated),
    ];
  }

  const channelSet = new Set(channels);
  const entries = deprecation?.entries ?? [];
  const pkg = messagesOf(entries.filter((e) => e.reference.schema === 'olm.package'));
  const chan = messagesOf(
    entries.filter((e) => e.reference.schema === 'olm.channel' && (channelSet.size === 0 || channelSet.has(e.reference.name ?? ''))),
  );
  const bundle = messagesOf(
    entries.filter((e) => e.reference.schema === 'olm.bundle' && installedBundleName !== '' && e.reference.name === installedBundleName),
  );
  return [
    condition(T.Deprecated, [...pkg, ...chan, ...bundle], 'not deprecated'),
    condition(T.PackageDeprecated, pkg, 'package not deprecated'),
    condition(T.ChannelDeprecated, chan, 'channel not deprecated'),
    installedBundleName === '' ? absent : condition(T.BundleDeprecated, bundle, 'bundle not deprecated'),
  ];
}
