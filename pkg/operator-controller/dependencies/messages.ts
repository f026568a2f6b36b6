/**
 * The texts of unmet and malformed dependencies (decision 0104: upstream has none, it refuses
 * such bundles). They name the bundle, the author's failureMessage first, what is required
 * and which property said so, and what the selected catalogs offer that would meet it.
 */
import type { Provider } from './providers.ts';
import type { Unmet } from './types.ts';

/** `bundle "<b>" has an unmet dependency: <unmetText>, met by no installed ClusterExtension and no API the cluster serves`. */
export function unmetDependency(bundleName: string, unmet: Unmet): string {
  return `bundle ${JSON.stringify(bundleName)} has an unmet dependency: ${unmetText(unmet)}, met by no installed ClusterExtension and no API the cluster serves`;
}

/** `<failureMessage> (<property>: <description>)`, or `<description> (<property>)` without a failureMessage. */
function unmetText(unmet: Unmet): string {
  return unmet.failureMessage === undefined
    ? `${unmet.description} (${unmet.requirement.property})`
    : `${unmet.failureMessage} (${unmet.requirement.property}: ${unmet.description})`;
}

/** `invalid dependency declaration: bundle "<b>": property <type> #<i>: <detail>`. */
export function invalidDependency(error: string): string {
  return `invalid dependency declaration: ${error}`;
}

/**
 * What to append to an unmet dependency's text: `; the selected catalogs offer it: package
 * "etcd" (bundle "etcd.v3.2.0", catalog "operators"), ...; install one with a ClusterExtension`,
 * or `; no selected catalog offers it`.
 */
export function providersNote(providers: readonly Provider[]): string {
  if (providers.length === 0) return '; no selected catalog offers it';
  const parts = providers.map(
    (p) => `package ${JSON.stringify(p.packageName)} (bundle ${JSON.stringify(p.bundle)}, catalog ${JSON.stringify(p.catalog)})`,
  );
  return `; the selected catalogs offer it: ${parts.join(', ')}; install one with a ClusterExtension`;
}

/** `upgrade to bundle "<b>" held: it would leave ClusterExtension "<y>" with an unmet dependency: <unmetText>`. */
export function upgradeBreaksDependent(bundleName: string, dependent: string, unmet: Unmet): string {
  return `upgrade to bundle ${JSON.stringify(bundleName)} held: it would leave ClusterExtension ${JSON.stringify(dependent)} with an unmet dependency: ${unmetText(unmet)}`;
}
