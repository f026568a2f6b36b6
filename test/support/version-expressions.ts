/**
 * The admission table of `spec.source.catalog.version`, with the regex's quirks: what the
 * ClusterExtension CRD's version rule accepts and refuses. Checked against the rule's regex in a
 * unit test, on a real API server in the CRD suite, and by the resolver's range parser for the
 * accepted ones.
 */

/** Version expressions the CRD's rule accepts. */
export const ADMITTED_VERSION_EXPRESSIONS: readonly string[] = [
  '1.2.3',
  '1.2.3-alpha.1+metadata',
  '1.2.3-alpha-beta',
  '>=1.2.3',
  '=>1.2.3',
  '>= 1.2.3',
  '>=v1.2.3',
  '>= v1.2.3',
  '<=1.2.3',
  '=<1.2.3',
  '=1.2.3',
  '!=1.2.3',
  '<1.2.3',
  '>1.2.3',
  '~1.2.2',
  '~>1.2.3',
  '^1.2.3',
  'v1.2.3',
  '1.x',
  '1.X',
  '1.*',
  '1.2.x',
  '1.2.X',
  '1.2.*',
  '>=1.2.3 <2.3.4',
  '>=1.2.3,<2.3.4',
  '>=1.2.3, <2.3.4',
  '<1.2.3||>2.3.4',
  '<1.2.3|| >2.3.4',
  '<1.2.3 ||>2.3.4',
  '<1.2.3 || >2.3.4',
  '>1.0.0,<1.2.3 || >2.1.0',
  '<1.2.3-abc >2.3.4-def',
  '<1.2.3-abc+def >2.3.4-ghi+jkl',
  // quirks
  '1.x.x',
  '*',
  'x',
  '>=1.0.0 <2.*',
  '|',
];

/** Version expressions the CRD's rule refuses with "invalid version expression". */
export const REFUSED_VERSION_EXPRESSIONS: readonly string[] = [
  'invalid-semver',
  '1.2.3.4',
  '1.2.3-beta!',
  '1.2.3.alpha',
  '1..2.3',
  '1.2.3-pre+bad_metadata',
  '1.2.-3',
  '.1.2.3',
  '<<1.2.3',
  '>>1.2.3',
  '>~1.2.3',
  '==1.2.3',
  '=!1.2.3',
  '!1.2.3',
  '1.Y',
  '>1.2.3 && <2.3.4',
  '>1.2.3;<2.3.4',
  '01.2.3',
  '1.02.3',
  '1.2.03',
  '1.2.3 - 2.3.4',
  // quirks
  '1.*.*',
  '>=1.0.0 <2.0.*',
  '>=1.0.0 <*',
];
