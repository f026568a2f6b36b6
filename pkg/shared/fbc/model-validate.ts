/**
 * Model validation (operator-registry `Model.Validate`, "phase B"): package, channel and bundle
 * checks gathered into a tree rooted at `invalid index`, visited in name order (upstream's Go map
 * order is random) so output is deterministic.
 */
import { ValidationNode } from './error-tree.ts';
import { compareUtf8, goQuote } from '../../gocompat/gotext/index.ts';
import type { ModelBundle, ModelChannel, ModelDeprecation, ModelPackage } from './model-types.ts';
import { formatRelease, formatSemver, parseBlangRange } from '../semver/index.ts';

function byName<T extends { name: string }>(items: Iterable<T>): T[] {
  return [...items].sort((a, b) => compareUtf8(a.name, b.name));
}

function deprecationError(d: ModelDeprecation | undefined): string | undefined {
  return d !== undefined && d.message === '' ? 'invalid deprecation: message must be set' : undefined;
}

/** Validates the model; returns the error tree, or undefined when everything is valid. */
export function validateModel(packages: ReadonlyMap<string, ModelPackage>): ValidationNode | undefined {
  const root = new ValidationNode('invalid index');
  for (const pkg of byName(packages.values())) root.add(validatePackage(pkg));
  return root.orUndefined();
}

function validatePackage(pkg: ModelPackage): ValidationNode {
  const node = new ValidationNode(`invalid package ${goQuote(pkg.name)}`);
  if (pkg.name === '') node.add('package name must not be empty');
  if (pkg.defaultChannel === undefined) node.add('default channel must be set');
  if (pkg.channels.size === 0) node.add('package must contain at least one channel');
  for (const ch of byName(pkg.channels.values())) node.add(validateChannel(ch));
  node.add(duplicateVersions(pkg));
  node.add(deprecationError(pkg.deprecation));
  return node;
}

/** `Bundle.VersionString()`: the version, plus `-<release>` when there is a release. */
function bundleVersionString(b: ModelBundle): string {
  const v = formatSemver(b.version);
  return b.release.length > 0 ? `${v}-${formatRelease(b.release)}` : v;
}

function duplicateVersions(pkg: ModelPackage): string | undefined {
  const byVersion = new Map<string, Set<string>>();
  for (const ch of pkg.channels.values()) {
    for (const b of ch.bundles.values()) {
      if (b.invalid) continue;
      const v = bundleVersionString(b);
      const names = byVersion.get(v) ?? new Set<string>();
      names.add(b.name);
      byVersion.set(v, names);
    }
  }
  const groups: string[] = [];
  for (const v of [...byVersion.keys()].sort(compareUtf8)) {
    const names = [...(byVersion.get(v) ?? [])].sort(compareUtf8);
    if (names.length > 1) groups.push(`{${v}: [${names.join(', ')}]}`);
  }
  return groups.length > 0 ? `duplicate versions found in bundles: [${groups.join(' ')}]` : undefined;
}

function validateChannel(ch: ModelChannel): ValidationNode {
  const node = new ValidationNode(`invalid channel ${goQuote(ch.name)}`);
  if (ch.name === '') node.add('channel name must not be empty');
  if (ch.bundles.size === 0) node.add('channel must contain at least one bundle');
  else node.add(replacesChainError(ch));
  for (const b of byName(ch.bundles.values())) {
    if (!b.invalid) node.add(validateBundle(b));
  }
  node.add(deprecationError(ch.deprecation));
  return node;
}

/**
 * The replaces-chain rules: exactly one head (an entry nothing replaces or skips); following
 * `replaces` from the head (stopping at a skipped name or a name that is not an entry) must
 * not revisit an entry; every entry is on that chain or skipped by some entry.
 */
function replacesChainError(ch: ModelChannel): string | undefined {
  const incoming = new Set<string>();
  const skipped = new Set<string>();
  for (const b of ch.bundles.values()) {
    if (b.replaces !== '') incoming.add(b.replaces);
    for (const s of b.skips) {
      incoming.add(s);
      skipped.add(s);
    }
  }
  const heads = [...ch.bundles.values()].filter((b) => !incoming.has(b.name));
  if (heads.length === 0) return 'no channel head found in graph';
  if (heads.length > 1)
    return `multiple channel heads found in graph: ${heads
      .map((h) => h.name)
      .sort(compareUtf8)
      .join(', ')}`;

  const head = heads[0] as ModelBundle;
  const chain = new Set<string>([head.name]);
  const pathFrom = new Map<string, string[]>();
  let cur: ModelBundle | undefined = head;
  while (cur !== undefined) {
    if (!pathFrom.has(cur.name)) pathFrom.set(cur.name, [cur.name]);
    if (skipped.has(cur.replaces)) break;
    for (const path of pathFrom.values()) path.push(cur.replaces);
    if (chain.has(cur.replaces)) {
      return `detected cycle in replaces chain of upgrade graph: ${(pathFrom.get(cur.replaces) ?? []).join(' -> ')}`;
    }
    chain.add(cur.replaces);
    cur = ch.bundles.get(cur.replaces);
  }
  const stranded = [...ch.bundles.keys()].filter((n) => !chain.has(n) && !skipped.has(n)).sort(compareUtf8);
  return stranded.length > 0 ? `channel contains one or more stranded bundles: ${stranded.join(', ')}` : undefined;
}

function validateBundle(b: ModelBundle): ValidationNode {
  const node = new ValidationNode(`invalid bundle ${goQuote(b.name)}`);
  if (b.name === '') node.add('name must be set');
  const normalized = b.release.length > 0 ? `${b.pkg.name}-v${bundleVersionString(b)}` : b.name;
  if (b.name !== normalized) node.add(`name ${goQuote(b.name)} does not match normalized name ${goQuote(normalized)}`);
  // Bundles reaching this point had their properties parsed during conversion.
  const props = b.parsed;
  b.skips.forEach((s, i) => {
    if (s === '') node.add(`skip[${i}] is empty`);
  });
  if (b.skipRange !== '') {
    const r = parseBlangRange(b.skipRange);
    if (!r.ok) node.add(`invalid skipRange ${goQuote(b.skipRange)}: ${r.error}`);
  }
  if (props.packages.length !== 1) node.add('must be exactly one property with type "olm.package"');
  if (b.image === '' && props.bundleObjects === 0) node.add('bundle image must be set');
  node.add(deprecationError(b.deprecation));
  if (b.version.build.length > 0 && b.release.length > 0) node.add('cannot use build metadata in version with a release version');
  return node;
}
