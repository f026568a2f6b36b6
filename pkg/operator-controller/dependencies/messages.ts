/**
 * The texts of unmet and malformed dependencies (decision 0104: upstream has none, it refuses
 * such bundles). They name the bundle, the author's failureMessage first, what is required
 * and which property said so, and what the selected catalogs offer that would meet it; and
 * requirements in words (`package "blue" in range ">=1.0.0"`, `API greens.example.com/v1 Green`, ...).
 */
import type { Provider } from './providers.ts';
import type { Constraint, Gvk, Unmet } from './types.ts';

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

/** `group/version Kind`, or `version Kind` for the core group. */
function formatGvk(g: Gvk): string {
  return g.group === '' ? `${g.version} ${g.kind}` : `${g.group}/${g.version} ${g.kind}`;
}

const MAX_PARTS = 8;

/** One line describing what `c` requires; long compounds are cut after a few parts. */
export function describeConstraint(c: Constraint): string {
  const p = c.predicate;
  switch (p.kind) {
    case 'package':
      return `package ${JSON.stringify(p.packageName)} in range ${JSON.stringify(p.versionRange)}`;
    case 'gvk':
      return `API ${formatGvk(p.gvk)}`;
    case 'cel':
      return `a bundle matching CEL rule ${JSON.stringify(p.rule.rule)}`;
    default: {
      const parts = p.constraints.slice(0, MAX_PARTS).map(describeConstraint);
      if (p.constraints.length > MAX_PARTS) parts.push(`${p.constraints.length - MAX_PARTS} more`);
      const word = p.kind === 'not' ? 'none' : p.kind;
      return `${word} of (${parts.join('; ')})`;
    }
  }
}
