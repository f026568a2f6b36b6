/**
 * An operator's "do not upgrade me now" (decision 0118): OLM classic's OperatorCondition
 * `Upgradeable=False`, carried in OLM v1 by two annotations on the operator's ClusterExtension
 * (upstream's YAML unchanged: annotations are free-form). While the first is `False`, the
 * extension's upgrades are held (pkg/operator-controller/clusterextension/steps-upgradeable.ts)
 * and the cluster-upgrade gate is blocked, both with the second as the message.
 */

/** `False` holds upgrades; `True`, absent or anything else holds nothing. */
export const UPGRADEABLE_ANNOTATION = 'olm.operatorframework.io/upgradeable';
/** Why it may not be upgraded now (the OperatorCondition condition's `message`). */
export const UPGRADEABLE_MESSAGE_ANNOTATION = 'olm.operatorframework.io/upgradeable-message';

/** The message used when `Upgradeable=False` comes without one. */
const NO_MESSAGE = 'the operator reports Upgradeable=False';

/** An extension whose operator says it may not be upgraded now. */
export interface UpgradeHold {
  extension: string;
  /** The upgradeable-message annotation, or a default text when it is empty. */
  message: string;
}

/** The hold `annotations` declare, or undefined. The status is compared as Kubernetes condition statuses are: exactly `False`. */
export function upgradeHoldOf(extension: string, annotations: Readonly<Record<string, string>> | undefined): UpgradeHold | undefined {
  if (annotations?.[UPGRADEABLE_ANNOTATION] !== 'False') return undefined;
  const message = annotations[UPGRADEABLE_MESSAGE_ANNOTATION]?.trim() ?? '';
  return { extension, message: message === '' ? NO_MESSAGE : message };
}

/** How a hold reads in messages and Events: `Upgradeable=False: <message>`. */
export function formatUpgradeHold(h: UpgradeHold): string {
  return `Upgradeable=False: ${h.message}`;
}
