/**
 * The cluster-upgrade verdict over all installed extensions, and the conditions it becomes
 * (decision 0046): `InstalledOLMOperatorsUpgradeable` on the OLM `cluster`
 * object, and library-go's union of the `*Upgradeable` conditions into the `olm`
 * ClusterOperator's `Upgradeable`; and one bundle's `olm.maxOpenShiftVersion` (read as upstream
 * reads it) against the cluster version. Types, reasons, messages and errors are upstream's.
 */
import { compareUtf8, goQuote, goTypeName } from '../../gocompat/gotext/index.ts';
import { goUnmarshalSyntaxError } from '../../gocompat/goyaml/index.ts';
import { err, type Result } from '../../shared/errors/index.ts';
import { compareSemver, formatSemver, parseTolerant, type SemVersion } from '../../shared/semver/index.ts';
import { effectiveCurrentVersion, formatMinor, nextMinorVersion, type ClusterMinor } from './version.ts';

/** The condition type on the OLM `cluster` object. */
const UPGRADEABLE_CONDITION_TYPE = 'InstalledOLMOperatorsUpgradeable';
/** Reasons of that condition. */
const GateReason = {
  IncompatibleOperatorsInstalled: 'IncompatibleOperatorsInstalled',
  FailureGettingExtensionMetadata: 'FailureGettingExtensionMetadata',
} as const;

/** An extension's latest deployed revision, as the gate sees it. */
export interface DeployedExtension {
  /** ClusterExtension name. */
  extension: string;
  /** The installed bundle's name. */
  bundle: string;
  /** The bundle's `olm.properties` (parsed array). */
  properties: readonly unknown[];
}

/** One extension that must be upgraded before the cluster may move on. */
interface Blocker {
  extension: string;
  bundle: string;
  /** The declared maximum, `X.Y`. */
  maxVersion: string;
}

/** The verdict for the upgrade from `current` to `next`. */
export interface GateVerdict {
  /** `X.Y` of the current cluster version. */
  current: string;
  /** `X.Y` the next upgrade reaches. */
  next: string;
  /** True only when nothing blocks and no metadata error leaves it undecided. */
  upgradeable: boolean;
  /** Sorted by extension name. */
  blockers: Blocker[];
  /** Metadata errors, one per extension, upstream's texts, in extension-name order. */
  errors: string[];
  /** Declared maximum per extension name (`X.Y`), for extensions that declare a valid one. */
  maxVersions: Record<string, string>;
}

/**
 * Evaluates every deployed extension against the current cluster minor. Extensions whose
 * metadata cannot be read are reported as errors (`error(s) with cluster extension <ce>:
 * error in bundle <b>: <errors>`), never as blockers; `extra` errors (e.g. a release store
 * failure, `error returning the last deployed release for <name>`) are appended as given.
 */
export function evaluateGate(
  current: ClusterMinor,
  extensions: readonly DeployedExtension[],
  extra: readonly string[] = [],
  check: BundleCheck = checkBundleProperties,
): GateVerdict {
  const blockers: Blocker[] = [];
  const errors: string[] = [];
  const maxVersions: Record<string, string> = {};
  // A verdict runs per install change over every extension: one pass, and only what it
  // reports (blockers, metadata errors: few) is sorted by extension name.
  const failed: Array<{ e: DeployedExtension; errors: readonly string[] }> = [];
  for (const e of extensions) {
    const gate = check(e.properties, current);
    if (gate.kind === 'no-limit') continue;
    if (gate.kind === 'error') {
      failed.push({ e, errors: gate.errors });
      continue;
    }
    maxVersions[e.extension] = gate.maxVersion;
    if (gate.kind === 'incompatible') blockers.push({ extension: e.extension, bundle: e.bundle, maxVersion: gate.maxVersion });
  }
  blockers.sort((a, b) => compareUtf8(a.extension, b.extension));
  failed.sort((a, b) => compareUtf8(a.e.extension, b.e.extension));
  for (const { e, errors: found } of failed)
    errors.push(`error(s) with cluster extension ${e.extension}: error in bundle ${e.bundle}: ${found.join('\n')}`);
  errors.push(...extra);
  return {
    current: formatMinor(current),
    next: formatMinor(nextMinorVersion(current)),
    upgradeable: blockers.length === 0 && errors.length === 0,
    blockers,
    errors,
    maxVersions,
  };
}

/** A status condition as both OpenShift kinds carry it (lastTransitionTime is the writer's). */
export interface GateCondition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
}

/** The `InstalledOLMOperatorsUpgradeable` condition for a verdict, as upstream writes it. */
export function olmUpgradeableCondition(v: GateVerdict): GateCondition {
  const type = UPGRADEABLE_CONDITION_TYPE;
  const err = v.errors.join('\n');
  if (v.blockers.length > 0) {
    const list = v.blockers.map((b) => `bundle ${goQuote(b.bundle)} for ClusterExtension ${goQuote(b.extension)}`).sort(compareUtf8);
    let message = `Found ClusterExtensions that require upgrades prior to upgrading cluster to version ${v.next}: ${list.join(',')}.`;
    if (err !== '') message += `\n Additionally the following errors were encountered while getting extension metadata: ${err}`;
    return { type, status: 'False', reason: GateReason.IncompatibleOperatorsInstalled, message };
  }
  if (err !== '') return { type, status: 'False', reason: GateReason.FailureGettingExtensionMetadata, message: err };
  return { type, status: 'True', reason: '', message: '' };
}

/**
 * library-go's union of an operator's `*Upgradeable` conditions into the ClusterOperator's
 * `Upgradeable`: False when any is False, with reason `<type minus Upgradeable>_<reason>`
 * (sorted, joined by `::`) and every message line prefixed `<type>: `; otherwise True with
 * reason `AsExpected`.
 */
export function clusterOperatorUpgradeable(conditions: readonly GateCondition[]): GateCondition {
  const relevant = conditions.filter((c) => c.type.endsWith('Upgradeable'));
  const bad = relevant.filter((c) => c.status === 'False');
  if (bad.length === 0) return { type: 'Upgradeable', status: 'True', reason: 'AsExpected', message: unionMessage(relevant) };
  const reason = bad
    .map((c) => {
      const prefix = c.type.slice(0, -'Upgradeable'.length);
      return c.reason === '' ? prefix : `${prefix}_${c.reason}`;
    })
    .sort(compareUtf8)
    .join('::');
  return { type: 'Upgradeable', status: 'False', reason, message: unionMessage(bad) };
}

function unionMessage(conditions: readonly GateCondition[]): string {
  const lines: string[] = [];
  for (const c of conditions) {
    if (c.message === '') continue;
    for (const line of c.message.split('\n')) lines.push(`${c.type}: ${line}`);
  }
  return lines.join('\n');
}

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
  | { kind: 'no-limit' }
  | { kind: 'compatible' | 'incompatible'; /** The declared maximum, `X.Y`. */ maxVersion: string }
  | { kind: 'error'; errors: string[] };

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
  return { kind: compatible ? 'compatible' : 'incompatible', maxVersion: formatMaxVersion(max.value) };
}

/** How evaluateGate judges one bundle: checkBundleProperties, or a memo of it. */
type BundleCheck = (properties: readonly unknown[], current: ClusterMinor) => BundleGate;

/**
 * checkBundleProperties, remembered per properties array (a deployed release's, kept while its
 * extension's install is unchanged) and cluster minor: a verdict runs per install change, and
 * parsing every bundle's maximum again each time cost ~2 us per extension.
 */
export function memoizedBundleCheck(): BundleCheck {
  const seen = new WeakMap<readonly unknown[], { current: ClusterMinor; gate: BundleGate }>();
  return (properties, current) => {
    const hit = seen.get(properties);
    if (hit !== undefined && hit.current.major === current.major && hit.current.minor === current.minor) return hit.gate;
    const gate = checkBundleProperties(properties, current);
    seen.set(properties, { current, gate });
    return gate;
  };
}

/** `X.Y` of a parsed maximum (its patch is always 0). */
function formatMaxVersion(max: SemVersion): string {
  return formatSemver(max).replace(/\.0$/, '');
}

function isMaxVersionProperty(p: unknown): p is { type: string; value: unknown } {
  return typeof p === 'object' && p !== null && (p as { type?: unknown }).type === MAX_OPENSHIFT_VERSION_PROPERTY;
}
