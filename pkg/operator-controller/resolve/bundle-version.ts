/**
 * A bundle's (version, release), read from its first `olm.package` property as upstream reads
 * them (an explicit `release` field, else the legacy reading of the version string), with
 * upstream's error texts.
 */
import { err, type Result } from '../../shared/errors/index.ts';
import type { Bundle, JsonValue } from '../../shared/fbc/types.ts';
import { goQuote } from '../../gocompat/gotext/index.ts';
import { parseExplicitVersionRelease, parseLegacyVersionRelease, type ReleaseOptions, type VersionRelease } from './release.ts';

/** The property type that carries a bundle's package name, version and release. */
const PACKAGE_PROPERTY = 'olm.package';

interface PackageValue {
  version: string;
  /** Undefined when the JSON has no (non-null) `release` key. */
  release: string | undefined;
}

type PackageField = 'packageName' | 'version' | 'release';

// JSON field names of upstream's package property, as spelled and case-folded.
const PACKAGE_FIELDS: ReadonlyMap<string, PackageField> = new Map([
  ['packageName', 'packageName'],
  ['version', 'version'],
  ['release', 'release'],
]);
const FOLDED_PACKAGE_FIELDS: ReadonlyMap<string, PackageField> = new Map([
  ['packagename', 'packageName'],
  ['version', 'version'],
  ['release', 'release'],
]);

function jsonKind(v: JsonValue): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'object' ? 'object' : typeof v;
}

// Decodes the property value the way Go's encoding/json fills `{packageName, version,
// release string}`: keys match case-insensitively, the last matching key wins, null leaves
// a field unset, and the first type mismatch is the error.
function decodePackageValue(value: JsonValue): Result<PackageValue, string> {
  const out: PackageValue = { version: '', release: undefined };
  if (value === null) return { ok: true, value: out };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return err(`json: cannot unmarshal ${jsonKind(value)} into Go value of type property.Package`);
  }
  let typeError: string | undefined;
  for (const key of Object.keys(value)) {
    const v = value[key] ?? null;
    const field = PACKAGE_FIELDS.get(key) ?? FOLDED_PACKAGE_FIELDS.get(key.toLowerCase());
    if (field === undefined) continue;
    if (v === null) {
      if (field === 'release') out.release = undefined;
      continue;
    }
    if (typeof v !== 'string') {
      typeError ??= `json: cannot unmarshal ${jsonKind(v)} into Go struct field Package.${field} of type string`;
      continue;
    }
    if (field === 'version') out.version = v;
    if (field === 'release') out.release = v;
  }
  return typeError === undefined ? { ok: true, value: out } : err(typeError);
}

/**
 * The bundle's (version, release). Gate off (default): the legacy reading of `version`
 * (BUILD becomes the release when valid); a `release` key is ignored. Gate on and a
 * `release` key present: the explicit reading. Errors:
 * `no package property found in bundle "<name>"`, `error unmarshalling package property: ...`,
 * or the version/release parse error.
 */
export function bundleVersionRelease(bundle: Bundle, options: ReleaseOptions = {}): Result<VersionRelease, string> {
  const prop = bundle.properties.find((p) => p.type === PACKAGE_PROPERTY);
  if (prop === undefined) return err(`no package property found in bundle ${goQuote(bundle.name)}`);
  const decoded = decodePackageValue(prop.value);
  if (!decoded.ok) return err(`error unmarshalling package property: ${decoded.error}`);
  const { version, release } = decoded.value;
  if (options.bundleReleaseSupport === true && release !== undefined) {
    return parseExplicitVersionRelease(version, release);
  }
  return parseLegacyVersionRelease(version);
}
