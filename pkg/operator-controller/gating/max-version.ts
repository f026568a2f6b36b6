/**
 * `olm.maxOpenShiftVersion`: parsing a property value (a version string or number, read as
 * upstream reads it) and checking one bundle's properties against a cluster version
 * (compatible when the maximum is above the effective current version). Every error text is
 * upstream's, so that users comparing our conditions with cluster-olm-operator's see the same.
 */
import { err, type Result } from '../../shared/errors/index.ts';
import { goTypeName } from '../../gocompat/gotext/index.ts';
import { goUnmarshalSyntaxError } from '../../gocompat/goyaml/index.ts';
import { compareSemver, formatSemver, parseTolerant, type SemVersion } from '../../shared/semver/index.ts';
import { effectiveCurrentVersion, type ClusterMinor } from './version.ts';

/** The property type a bundle declares its last supported cluster minor with. */
const MAX_OPENSHIFT_VERSION_PROPERTY = 'olm.maxOpenShiftVersion';

const NUMBER_FORM = /^([1-9][0-9]*)\.(0|[1-9][0-9]*)$/;

/**
 * Parses the raw JSON text of an `olm.maxOpenShiftVersion` value into `X.Y.0`. A JSON number
 * is judged by its text (`4.10` stays 4.10; `4.19e1`, `5.00`, `4` are refused); a string must
 * hold exactly one `.` and no leading `v` and then goes through blang's tolerant parse.
 * Errors, verbatim: Go's JSON syntax error, `invalid semver format "<raw>": expected <major>.<minor>`,
 * `invalid type <Go type> for olm.maxOpenshiftVersion: <raw>`, `invalid version format`,
 * `short version cannot contain PreRelease/Build meta data`, or blang's strict-parse errors.
 */
export function parseMaxOpenShiftVersion(raw: string): Result<SemVersion, string> {
  const syntax = goUnmarshalSyntaxError(raw);
  if (syntax !== undefined) return err(syntax);
  const value: unknown = JSON.parse(raw);
  let text: string;
  if (typeof value === 'number') {
    // Go decodes into interface{} (float64) but upstream matches the raw bytes, unchanged.
    if (!NUMBER_FORM.test(raw)) return err(`invalid semver format ${JSON.stringify(raw)}: expected <major>.<minor>`);
    text = raw;
  } else if (typeof value === 'string') {
    text = value;
  } else {
    return err(`invalid type ${goTypeName(value)} for olm.maxOpenshiftVersion: ${raw}`);
  }
  if (text.startsWith('v') || text.split('.').length !== 2) return err('invalid version format');
  return parseTolerant(text);
}

/** What one bundle's properties say about the next cluster upgrade. */
type BundleGate =
  { kind: 'no-limit' } | { kind: 'compatible'; max: SemVersion } | { kind: 'incompatible'; max: SemVersion } | { kind: 'error'; errors: string[] };

/**
 * Checks a bundle's `olm.properties` (the parsed array) against the cluster's current minor:
 * compatible when the declared maximum is above the effective current version (4.23 counts as
 * 5.0). No property: no limit. A second property is the error
 * `more than one olm.maxOpenShiftVersion found in bundle`; a value that does not parse is
 * `error converting to semver for version <raw>: <err>` (upstream reports that case with the
 * "more than one" text by mistake; we report the parse error). Values are re-serialized with
 * JSON.stringify, so a JSON number keeps the spelling JavaScript gives it.
 */
export function checkBundleProperties(properties: readonly unknown[], current: ClusterMinor): BundleGate {
  const values = properties.filter(isMaxVersionProperty).map((p) => JSON.stringify(p.value) ?? 'null');
  if (values.length === 0) return { kind: 'no-limit' };
  if (values.length > 1) return { kind: 'error', errors: [`more than one ${MAX_OPENSHIFT_VERSION_PROPERTY} found in bundle`] };
  const raw = values[0] as string;
  const max = parseMaxOpenShiftVersion(raw);
  if (!max.ok) return { kind: 'error', errors: [`error converting to semver for version ${raw}: ${max.error}`] };
  const compatible = compareSemver(max.value, effectiveCurrentVersion(current)) > 0;
  return compatible ? { kind: 'compatible', max: max.value } : { kind: 'incompatible', max: max.value };
}

/** `X.Y` of a parsed maximum (its patch is always 0). */
export function formatMaxVersion(max: SemVersion): string {
  return formatSemver(max).replace(/\.0$/, '');
}

function isMaxVersionProperty(p: unknown): p is { type: string; value: unknown } {
  return typeof p === 'object' && p !== null && (p as { type?: unknown }).type === MAX_OPENSHIFT_VERSION_PROPERTY;
}
