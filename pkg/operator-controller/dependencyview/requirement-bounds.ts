/**
 * Where the candidates that can satisfy a requirement are: a predicate naming a package can only
 * be met by an installed bundle of that package, one naming an API only by a bundle providing it
 * (or the served APIs). This lets the installed-extension index hand a dependency check only the
 * extensions its requirements could be met by, instead of every installed one.
 */
import type { Gvk, Predicate, Requirement } from '../dependencies/index.ts';

/** Packages and APIs (`group/version/kind`) a satisfying candidate must have one of. */
export interface Bound {
  readonly packages: readonly string[];
  readonly gvks: readonly string[];
}

export const gvkKey = (g: Gvk): string => `${g.group}/${g.version}/${g.kind}`;

/** The bound of `predicate`, or undefined when any candidate could satisfy it (CEL, `not`). */
function predicateBound(predicate: Predicate): Bound | undefined {
  switch (predicate.kind) {
    case 'package':
      return { packages: [predicate.packageName], gvks: [] };
    case 'gvk':
      return { packages: [], gvks: [gvkKey(predicate.gvk)] };
    case 'all':
      // A candidate must satisfy every part: any one part's bound is one for the whole.
      return predicate.constraints.map((c) => predicateBound(c.predicate)).find((b) => b !== undefined);
    case 'any':
      return unionBound(predicate.constraints.map((c) => c.predicate));
    case 'cel':
    case 'not':
      return undefined;
  }
}

/** The union of `requirements`' bounds, or undefined when one of them is unbounded. */
export function requirementsBound(requirements: readonly Requirement[]): Bound | undefined {
  return unionBound(requirements.map((r) => r.constraint.predicate));
}

/** The union of the bounds of `predicates`, or undefined when one of them is unbounded. */
function unionBound(predicates: readonly Predicate[]): Bound | undefined {
  const packages: string[] = [];
  const gvks: string[] = [];
  for (const p of predicates) {
    const b = predicateBound(p);
    if (b === undefined) return undefined;
    packages.push(...b.packages);
    gvks.push(...b.gvks);
  }
  return { packages, gvks };
}
