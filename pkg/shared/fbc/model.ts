/**
 * Conversion of a DeclarativeConfig into the model (operator-registry `ConvertToModel`, "phase
 * A"). Upstream stops at the first error; here every error is collected in upstream's order and
 * the offending object left out (a bundle stays in its channels, marked invalid so the model
 * checks do not report it twice): the first error is exactly upstream's.
 */
import { compareUtf8, goList, goQuote } from '../../gocompat/gotext/index.ts';
import { imageReferenceError } from './image-ref.ts';
import { dns1123LabelErrors } from '../k8sname/index.ts';
import { type Release, type SemVersion, parseRelease, parseSemver, ZERO_VERSION } from '../semver/index.ts';
import { type PackageProperty, parseProperties } from './properties.ts';
import type { Bundle, DeclarativeConfig } from './types.ts';
import { convertDeprecations } from './model-deprecations.ts';
import type { ModelChannel, ModelPackage } from './model-types.ts';

/** The model plus every conversion error, in upstream's check order. */
interface ConvertResult {
  packages: Map<string, ModelPackage>;
  errors: string[];
}

/** Converts a config to the model, collecting all conversion errors. */
export function convertToModel(cfg: DeclarativeConfig): ConvertResult {
  const errors: string[] = [];
  const packages = new Map<string, ModelPackage>();
  const defaultChannels = new Map<string, string>();
  for (const p of cfg.packages) {
    if (p.name === '') {
      errors.push('config contains package with no name');
      continue;
    }
    if (packages.has(p.name)) {
      errors.push(`duplicate package ${goQuote(p.name)}`);
      continue;
    }
    const dns = dns1123LabelErrors(p.name);
    if (dns.length > 0) errors.push(`invalid package name ${goQuote(p.name)}: ${goList(dns)}`);
    packages.set(p.name, { name: p.name, defaultChannel: undefined, channels: new Map(), deprecation: undefined });
    defaultChannels.set(p.name, p.defaultChannel);
  }

  // Upstream keeps only the last channel's entry names per package (a map overwrite).
  const channelDefinedEntries = new Map<string, Set<string>>();
  for (const c of cfg.channels) {
    const pkg = packages.get(c.package);
    if (pkg === undefined) {
      errors.push(`unknown package ${goQuote(c.package)} for channel ${goQuote(c.name)}`);
      continue;
    }
    if (c.name === '') {
      errors.push(`package ${goQuote(c.package)} contains channel with no name`);
      continue;
    }
    if (pkg.channels.has(c.name)) {
      errors.push(`package ${goQuote(c.package)} has duplicate channel ${goQuote(c.name)}`);
      continue;
    }
    const ch: ModelChannel = { pkg, name: c.name, bundles: new Map(), deprecation: undefined };
    const names = new Set<string>();
    for (const e of c.entries) {
      if (ch.bundles.has(e.name)) {
        errors.push(`invalid package ${goQuote(c.package)}, channel ${goQuote(c.name)}: duplicate entry ${goQuote(e.name)}`);
        continue;
      }
      names.add(e.name);
      ch.bundles.set(e.name, {
        pkg,
        channel: ch,
        name: e.name,
        replaces: e.replaces ?? '',
        skips: e.skips ?? [],
        skipRange: e.skipRange ?? '',
        image: '',
        properties: [],
        parsed: { packages: [], bundleObjects: 0 },
        version: ZERO_VERSION,
        release: [],
        deprecation: undefined,
        invalid: false,
      });
    }
    channelDefinedEntries.set(c.package, names);
    pkg.channels.set(c.name, ch);
    if (defaultChannels.get(c.package) === c.name) pkg.defaultChannel = ch;
  }

  const packageBundles = new Map<string, Set<string>>();
  for (const b of cfg.bundles) {
    if (b.package === '') {
      errors.push(`package name must be set for bundle ${goQuote(b.name)}`);
      continue;
    }
    const pkg = packages.get(b.package);
    if (pkg === undefined) {
      errors.push(`unknown package ${goQuote(b.package)} for bundle ${goQuote(b.name)}`);
      continue;
    }
    const seen = packageBundles.get(b.package) ?? new Set<string>();
    packageBundles.set(b.package, seen);
    if (seen.has(b.name)) {
      errors.push(`package ${goQuote(b.package)} has duplicate bundle ${goQuote(b.name)}`);
      continue;
    }
    seen.add(b.name);
    channelDefinedEntries.get(b.package)?.delete(b.name);
    attachBundle(pkg, b, errors);
  }

  for (const [pkg, entries] of [...channelDefinedEntries].sort((a, b) => compareUtf8(a[0], b[0]))) {
    if (entries.size === 0) continue;
    errors.push(`no olm.bundle blobs found in package ${goQuote(pkg)} for olm.channel entries ${goList([...entries].sort(compareUtf8))}`);
  }

  // A default channel that names no channel becomes an empty channel, so the model check
  // reports "channel must contain at least one bundle" for it.
  for (const pkg of packages.values()) {
    const name = defaultChannels.get(pkg.name) ?? '';
    if (name === '' || pkg.defaultChannel !== undefined) continue;
    const ch: ModelChannel = { pkg, name, bundles: new Map(), deprecation: undefined };
    pkg.defaultChannel = ch;
    pkg.channels.set(name, ch);
  }

  convertDeprecations(cfg, packages, packageBundles, errors);
  return { packages, errors };
}

// Checks one olm.bundle blob and copies its data onto every channel entry of that name.
function attachBundle(pkg: ModelPackage, b: Bundle, errors: string[]): void {
  const before = errors.length;
  let pkgProp: PackageProperty | undefined;
  const props = parseProperties(b.properties);
  if (!props.ok) {
    errors.push(`parse properties for bundle ${goQuote(b.name)}: ${props.error}`);
  } else if (props.value.packages.length !== 1) {
    errors.push(
      `package ${goQuote(b.package)} bundle ${goQuote(b.name)} must have exactly 1 "olm.package" property, found ${props.value.packages.length}`,
    );
  } else {
    pkgProp = props.value.packages[0] as PackageProperty;
    if (b.package !== pkgProp.packageName) {
      errors.push(`package ${goQuote(b.package)} does not match "olm.package" property ${goQuote(pkgProp.packageName)}`);
    }
  }
  const imageError = (what: string, image: string): void => {
    if (image === '') return;
    const cause = imageReferenceError(image);
    if (cause !== undefined)
      errors.push(`package ${goQuote(b.package)} bundle ${goQuote(b.name)} ${what}: invalid image pull spec ${goQuote(image)}: ${cause}`);
  };
  imageError('image', b.image);
  (b.relatedImages ?? []).forEach((r, i) => imageError(`relatedImages[${i}].image`, r.image));

  let version: SemVersion = ZERO_VERSION;
  let release: Release = [];
  if (pkgProp !== undefined) {
    const v = parseSemver(pkgProp.version);
    if (v.ok) version = v.value;
    else errors.push(`error parsing bundle ${goQuote(b.name)} version ${goQuote(pkgProp.version)}: ${v.error}`);
    const r = parseRelease(pkgProp.release);
    if (r.ok) release = r.value ?? [];
    else errors.push(`error parsing bundle ${goQuote(b.name)} release version ${goQuote(pkgProp.release)}: ${r.error}`);
  }

  const invalid = errors.length > before;
  let found = false;
  for (const ch of pkg.channels.values()) {
    const mb = ch.bundles.get(b.name);
    if (mb === undefined) continue;
    found = true;
    mb.invalid = invalid;
    if (invalid) continue;
    mb.image = b.image;
    mb.properties = b.properties;
    if (props.ok) mb.parsed = props.value;
    mb.version = version;
    mb.release = release;
  }
  if (!found) errors.push(`package ${goQuote(b.package)}, bundle ${goQuote(b.name)} not found in any channel entries`);
}
