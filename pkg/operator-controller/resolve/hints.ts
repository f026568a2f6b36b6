/**
 * What the selected catalogs do offer when a resolution finds nothing (issue #27): lines that
 * follow upstream's "no bundles found ..." to fix a typo'd package, a wrong channel, a version
 * outside the channel or not a successor of the installed one. Pure.
 */
import type { DeclarativeConfig } from '../../shared/fbc/types.ts';
import { goQuote } from '../../gocompat/gotext/index.ts';
import { formatSemver } from '../../shared/semver/index.ts';
import { bundleVersionRelease } from './bundle-version.ts';
import { isEmptyPartition, successorNames } from './candidates.ts';
import { compareVersionRelease, parseExplicitVersionRelease, parseLegacyVersionRelease, type VersionRelease } from './release.ts';
import type { ResolveInput } from './types.ts';

/** At most this many names or versions are listed in one hint. */
const MAX_LISTED = 8;

function listed(items: readonly string[]): string {
  const shown = items.slice(0, MAX_LISTED).join(', ');
  return items.length > MAX_LISTED ? `${shown} and ${items.length - MAX_LISTED} more` : shown;
}

/**
 * Optimal string alignment distance of `a` and `b` (Levenshtein plus the transposition of two
 * adjacent characters as one edit: "exmaple" is one edit from "example"), giving up (Infinity)
 * once every entry of a row exceeds `max`.
 */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return Infinity;
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      let v = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, (before[j - 2] ?? 0) + 1);
      row.push(v);
      best = Math.min(best, v);
    }
    if (best > max) return Infinity;
    before = prev;
    prev = row;
  }
  return prev[b.length] ?? Infinity;
}

/**
 * How many edits a name of `length` characters may be from a suggestion: 1 up to 4 characters,
 * then 2, and one more per 5 characters from 15 on (a long name collects more typos).
 */
function maxEdits(length: number): number {
  return length <= 4 ? 1 : Math.max(2, Math.floor(length / 5));
}

/** Package names close to `name`: a small edit away (scaled with its length), or containing it or contained in it. */
export function similarNames(name: string, names: Iterable<string>): string[] {
  const max = maxEdits(name.length);
  const scored: [string, number][] = [];
  for (const n of names) {
    if (n === name) continue;
    const d = distance(n, name, max);
    if (d !== Infinity) scored.push([n, d]);
    else if (name.length >= 3 && (n.includes(name) || name.includes(n))) scored.push([n, max + 1]);
  }
  return scored.sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1)).map(([n]) => n);
}

/** Catalogs with at most this many packages have them all named when none is close to a typo. */
const FEW_PACKAGES = 10;

/**
 * The versions of the bundles named in `members` (all when undefined), highest first, as text;
 * without the version of `except` (the installed one).
 */
function versionsOf(
  partitions: readonly DeclarativeConfig[],
  input: ResolveInput,
  members: ReadonlySet<string> | undefined,
  except?: VersionRelease,
): string[] {
  const seen = new Map<string, VersionRelease>();
  for (const fbc of partitions) {
    for (const bundle of fbc.bundles) {
      if (members !== undefined && !members.has(bundle.name)) continue;
      const vr = bundleVersionRelease(bundle, input);
      if (vr.ok && (except === undefined || compareVersionRelease(vr.value, except) !== 0)) seen.set(bundle.name, vr.value);
    }
  }
  return [...seen.values()].sort((a, b) => compareVersionRelease(b, a)).map((vr) => formatSemver(vr.version));
}

/** The partitions of the package the catalogs of `input` have (none: the package is in no selected catalog). */
function partitionsOf(input: ResolveInput): DeclarativeConfig[] {
  return input.catalogs.flatMap((c) => ('error' in c || c.package === null || isEmptyPartition(c.package) ? [] : [c.package]));
}

/** True when no selected catalog has the package: the hints then want the catalogs' package names. */
export function packageMissing(input: ResolveInput): boolean {
  return partitionsOf(input).length === 0;
}

/**
 * The hint lines for a failed resolution of `input` (empty when there is nothing useful to
 * add). `packageNames` are the names the selected catalogs carry, wanted only when
 * `packageMissing(input)`.
 */
export function resolutionHints(input: ResolveInput, packageNames: readonly string[] = []): string[] {
  const partitions = partitionsOf(input);
  const pkg = goQuote(input.packageName);
  if (partitions.length === 0) {
    const close = similarNames(input.packageName, packageNames);
    if (close.length > 0) return [`the selected catalogs have no package ${pkg}; packages with similar names: ${listed(close.map(goQuote))}`];
    const all = [...new Set(packageNames)].sort();
    if (all.length > 0 && all.length <= FEW_PACKAGES)
      return [`the selected catalogs have no package ${pkg}; their packages: ${all.map(goQuote).join(', ')}`];
    return [`the selected catalogs have no package ${pkg}`];
  }
  const lines: string[] = [];
  const allChannels = [...new Set(partitions.flatMap((p) => p.channels.map((c) => c.name)))].sort();
  const defaultChannel = partitions.flatMap((p) => p.packages.map((x) => x.defaultChannel ?? '')).find((c) => c !== '');
  const wanted = input.channels ?? [];
  const missing = wanted.filter((c) => !allChannels.includes(c));
  if (missing.length > 0) {
    lines.push(
      `package ${pkg} has no channel ${listed(missing.map(goQuote))}; its channels: ${listed(allChannels.map(goQuote))}` +
        (defaultChannel === undefined ? '' : ` (default ${goQuote(defaultChannel)})`),
    );
  }
  const selected = wanted.length === 0 ? undefined : new Set(wanted);
  const members =
    selected === undefined
      ? undefined
      : new Set(partitions.flatMap((p) => p.channels.filter((c) => selected.has(c.name)).flatMap((c) => c.entries.map((e) => e.name))));
  const where = selected === undefined ? '' : ` in channels ${listed(wanted.map(goQuote))}`;
  const versions = versionsOf(partitions, input, members);
  if ((input.versionRange ?? '') !== '' && versions.length > 0) lines.push(`versions${where}: ${listed(versions)}`);

  const installed = input.installed ?? undefined;
  if (installed !== undefined && input.upgradeConstraintPolicy !== 'SelfCertified') {
    const vr =
      installed.release === null || installed.release === undefined
        ? parseLegacyVersionRelease(installed.version)
        : parseExplicitVersionRelease(installed.version, installed.release);
    if (vr.ok) {
      // One pass over the edges: their versions, highest first (the installed one excluded).
      const edges = { name: installed.name, versionRelease: vr.value };
      const names = new Set(
        partitions.flatMap((p) => [
          ...successorNames(selected === undefined ? p.channels : p.channels.filter((c) => selected.has(c.name)), edges, new Map()),
        ]),
      );
      const successors = versionsOf(partitions, input, names, vr.value);
      const from = `the installed version ${goQuote(installed.version)}`;
      lines.push(successors.length > 0 ? `successors of ${from}${where}: ${listed(successors)}` : `no successor of ${from}${where}`);
      if (versions.length > 0) lines.push('upgradeConstraintPolicy: SelfCertified would allow any version of the channel, downgrades too');
    }
  }
  return lines;
}
