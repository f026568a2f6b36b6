/**
 * Requirements in words, for conditions, Events and the CLI:
 * `package "blue" in range ">=1.0.0"`, `API greens.example.com/v1 Green`,
 * `a bundle matching CEL rule "..."`, `all of (...)`, `any of (...)`, `none of (...)`.
 */
import type { Constraint, Gvk } from './types.ts';

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
