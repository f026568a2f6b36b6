/**
 * The dependency model of a bundle (OLM's `olm.package.required`, `olm.gvk.required` and
 * `olm.constraint` properties) once parsed, and what it is checked against. Data only.
 */
import type { Property } from '../../shared/fbc/types.ts';
import type { CelRule } from './cel.ts';

/** A group/version/kind, as `olm.gvk` and `olm.gvk.required` write it. */
export interface Gvk {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** One predicate over a candidate (an installed bundle, or the APIs the cluster serves). */
export type Predicate =
  | { readonly kind: 'package'; readonly packageName: string; readonly versionRange: string; readonly contains: (version: string) => boolean }
  | { readonly kind: 'gvk'; readonly gvk: Gvk }
  | { readonly kind: 'cel'; readonly rule: CelRule }
  | { readonly kind: 'all' | 'any' | 'not'; readonly constraints: readonly Constraint[] };

/** A predicate and the message its author wrote for when nothing satisfies it. */
export interface Constraint {
  readonly predicate: Predicate;
  readonly failureMessage?: string | undefined;
}

/** One declared requirement of a bundle: the property it came from and its constraint. */
export interface Requirement {
  /** `olm.package.required`, `olm.gvk.required` or `olm.constraint`. */
  readonly property: string;
  /** Position of the property among the bundle's properties (0-based), for messages. */
  readonly index: number;
  readonly constraint: Constraint;
}

/**
 * Something on the cluster a requirement can be met by, as OLM classic tests its entries:
 * a set of properties. An installed extension's are its bundle's (`olm.package` with the
 * package name and version, one `olm.gvk` per API it provides, anything else its author
 * added); the APIs the cluster serves are one candidate with one `olm.gvk` each.
 */
export interface Candidate {
  /** Who this is, for messages: `ClusterExtension "x"`, `the cluster's served APIs`. */
  readonly source: string;
  readonly properties: readonly Property[];
}

/** A requirement nothing meets. */
export interface Unmet {
  readonly requirement: Requirement;
  /** The author's `failureMessage`, when there is one (the outermost given). */
  readonly failureMessage: string | undefined;
  /** What is required, in words: `package "blue" in range ">=1.0.0"`, `API greens.example.com/v1 Green`, ... */
  readonly description: string;
}

/** The outcome of checking a bundle's requirements: all met, or the first unmet one. */
export type Verdict = { readonly satisfied: true } | { readonly satisfied: false; readonly unmet: Unmet };
