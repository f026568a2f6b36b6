/**
 * Where an image is pulled from, by containers-registries.conf(5) as containers/image applies
 * it: the `[[registry]]` table whose `prefix` is the longest match of the name applies (matched
 * up to `/`, `:` or `@`; `*.example.com` matches subdomains); its mirrors are tried in order
 * (kept to digest or tag references by `mirror-by-digest-only` / `pull-from-mirror`), then its
 * `location`. A source whose own covering table is `blocked` is never contacted (a blocked
 * registry with mirrors is still pulled from them); `insecure` belongs to the source. The
 * image's own name stays what is reported; digests are verified wherever the bytes come from.
 */
import { err, ok, type Result } from '../errors/index.ts';
import type { RegistriesConfFile, RegistryTable } from './registries-conf-file.ts';
import { formatReference, parseImageReference, type ImageReference } from './reference.ts';

/** The merged configuration of a main file and its drop-ins. */
export interface RegistriesConf {
  /** Sorted by prefix, one per prefix. */
  registries: readonly RegistryTable[];
  unqualifiedSearchRegistries: readonly string[];
  /** The files it was read from, in order (for messages). */
  files: readonly string[];
}

/** No configuration: every image is pulled from where its name says. */
export const EMPTY_REGISTRIES_CONF: RegistriesConf = { registries: [], unqualifiedSearchRegistries: [], files: [] };

/** One place to try, in order. */
export interface PullSource {
  /** The image as this source names it (the prefix rewritten to the source's location). */
  ref: ImageReference;
  /** Plain HTTP or unverified TLS allowed for this source. */
  insecure: boolean;
  /** False for the registry's own location (tried last). */
  mirror: boolean;
  /** Set when the table covering this source's name blocks it: it must not be contacted. */
  blocked?: { prefix: string; origin: string };
}

/** Merges files in reading order: later tables replace same-prefix ones, a later unqualified list the earlier. */
export function mergeRegistriesConf(files: readonly RegistriesConfFile[]): RegistriesConf {
  const byPrefix = new Map<string, RegistryTable>();
  let unqualified: readonly string[] = [];
  for (const f of files) {
    for (const r of f.registries) byPrefix.set(r.prefix, r);
    if (f.unqualifiedSearchRegistries !== undefined) unqualified = f.unqualifiedSearchRegistries;
  }
  const prefixes = [...byPrefix.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    registries: prefixes.map((p) => byPrefix.get(p) as RegistryTable),
    unqualifiedSearchRegistries: unqualified,
    files: files.map((f) => f.file),
  };
}

/**
 * Length of the part of `ref` that `prefix` matches, or -1: a plain prefix must be followed by
 * the end, `/`, `:` or `@` (as upstream); `*.domain` matches a host ending in `.domain`.
 */
function prefixMatchLength(ref: string, prefix: string): number {
  if (prefix.startsWith('*.')) {
    const suffix = prefix.slice(1);
    const at = ref.indexOf(suffix);
    if (at === -1 || ref.slice(0, at).includes('/')) return -1;
    const end = at + suffix.length;
    return end === ref.length || ':/@'.includes(ref.charAt(end)) ? end : -1;
  }
  if (!ref.startsWith(prefix)) return -1;
  if (ref.length === prefix.length) return prefix.length;
  return ':/@'.includes(ref.charAt(prefix.length)) ? prefix.length : -1;
}

/** The table with the longest prefix matching `name` (`domain/path`); the first in prefix order on a tie. */
export function findRegistry(conf: RegistriesConf, name: string): RegistryTable | undefined {
  let best: RegistryTable | undefined;
  for (const r of conf.registries) {
    if (prefixMatchLength(name, r.prefix) !== -1 && (best === undefined || r.prefix.length > best.prefix.length)) best = r;
  }
  return best;
}

/** The sources to try for `ref`, in order; fails when a location rewrite gives no valid reference. */
export function pullSources(ref: ImageReference, conf: RegistriesConf): Result<PullSource[]> {
  const table = findRegistry(conf, ref.name);
  if (table === undefined) return ok([withBlock(conf, { ref, insecure: false, mirror: false })]);
  const digested = ref.digest !== undefined;
  const mirrors = table.mirrors.filter((m) => {
    if (table.mirrorByDigestOnly) return digested;
    if (m.pullFromMirror === 'digest-only') return digested;
    if (m.pullFromMirror === 'tag-only') return !digested;
    return true;
  });
  const endpoints = [
    ...mirrors.map((m) => ({ location: m.location, insecure: m.insecure, mirror: true })),
    { location: table.location, insecure: table.insecure, mirror: false },
  ];
  const out: PullSource[] = [];
  for (const e of endpoints) {
    const rewritten = rewrite(ref, table.prefix, e.location);
    if (!rewritten.ok) return rewritten;
    out.push(withBlock(conf, { ref: rewritten.value, insecure: e.insecure, mirror: e.mirror }));
  }
  return ok(out);
}

function withBlock(conf: RegistriesConf, source: PullSource): PullSource {
  const covering = findRegistry(conf, source.ref.name);
  return covering?.blocked === true ? { ...source, blocked: { prefix: covering.prefix, origin: covering.origin } } : source;
}

/** `ref` with the part `prefix` matched replaced by `location` ('' keeps it: wildcard tables). */
function rewrite(ref: ImageReference, prefix: string, location: string): Result<ImageReference> {
  if (location === '') return ok(ref);
  const full = formatReference(ref);
  const matched = prefixMatchLength(full, prefix);
  if (matched === -1) return err(`invalid prefix '${prefix}' for reference '${full}'`);
  const target = location + full.slice(matched);
  try {
    return ok(parseImageReference(target));
  } catch (e) {
    return err(`rewriting reference: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** The message of a pull refused because `source` is blocked. */
export function blockedMessage(blocked: NonNullable<PullSource['blocked']>): string {
  const file = blocked.origin.replace(/:\d+$/, '');
  return `registry ${blocked.prefix} is blocked in ${file}`;
}
