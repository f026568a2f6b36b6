/**
 * One containers-registries.conf file (version 2, and version 1's lists in a main file) decoded
 * with containers/image's consistency checks: a file that fails them makes every pull fail, as
 * upstream, rather than be half applied. Only what decides where an image is pulled from is
 * kept (`[[registry]]` tables and their mirrors); the short-name settings are checked and
 * dropped (references here are always fully qualified); unknown keys are ignored, as upstream.
 */
import { err, ok, type Result } from '../errors/index.ts';
import { isTable, parseToml, type TomlDocument, type TomlTable, type TomlValue } from './toml.ts';

/** When a mirror is used: for every pull, only pulls by digest, or only pulls by tag. */
type PullFromMirror = 'all' | 'digest-only' | 'tag-only';

/** A mirror of a registry table. */
interface RegistryMirror {
  /** `host[:port][/namespace...]`, no scheme, no trailing slash. */
  location: string;
  insecure: boolean;
  /** Unset means `all` (unless the registry has `mirror-by-digest-only`). */
  pullFromMirror: PullFromMirror | undefined;
}

/** A `[[registry]]` table. */
export interface RegistryTable {
  /** What image names it covers: `host[:port][/namespace...]` or `*.domain`. */
  prefix: string;
  /** Where the prefix's images really are; '' only for a wildcard prefix (no rewrite). */
  location: string;
  insecure: boolean;
  blocked: boolean;
  mirrorByDigestOnly: boolean;
  mirrors: RegistryMirror[];
  /** `file:line` of the table, for messages (a blocked registry names it). */
  origin: string;
}

/** What one file says. */
export interface RegistriesConfFile {
  file: string;
  /** Sorted by prefix; one table per prefix (the first of a file wins, as upstream). */
  registries: RegistryTable[];
  /** Undefined when the file does not set it (a drop-in then keeps the earlier value). */
  unqualifiedSearchRegistries: string[] | undefined;
}

const PULL_FROM_MIRROR: readonly string[] = ['all', 'digest-only', 'tag-only'];
const SHORT_NAME_MODES: readonly string[] = ['disabled', 'enforcing', 'permissive'];
/** `host[:port]` as the docker reference grammar spells a domain. */
const DOMAIN =
  /^(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?$/;

class Invalid extends Error {
  readonly line: number | undefined;
  constructor(line: number | undefined, message: string) {
    super(message);
    this.line = line;
  }
}

/**
 * Decodes the text of `file`. `dropIn` files must use version 2 (as upstream requires).
 * The error is `line N: <problem>` or `<problem>` (the caller names the file).
 */
export function parseRegistriesConfFile(text: string, file: string, dropIn: boolean): Result<RegistriesConfFile> {
  const parsed = parseToml(text);
  if (!parsed.ok) return err(`line ${parsed.error.line}: ${parsed.error.message}`);
  try {
    return ok(decode(parsed.value, file, dropIn));
  } catch (e) {
    if (e instanceof Invalid) return err(e.line === undefined ? e.message : `line ${e.line}: ${e.message}`);
    throw e;
  }
}

function decode(doc: TomlDocument, file: string, dropIn: boolean): RegistriesConfFile {
  const { root } = doc;
  const line = (t: TomlTable): number | undefined => doc.lineOf.get(t);
  const v1 = root.get('registries');
  const tables = root.get('registry');
  let unqualified = stringArray(root, 'unqualified-search-registries', undefined);
  const mode = optional(root, 'short-name-mode', 'string', undefined);
  if (mode !== undefined && mode !== '' && !SHORT_NAME_MODES.includes(mode))
    throw new Invalid(undefined, `invalid short-name mode: ${JSON.stringify(mode)}`);
  const aliases = root.get('aliases');
  if (aliases !== undefined && !isTable(aliases)) throw new Invalid(undefined, 'aliases: expected a table');

  let registries: RegistryTable[];
  if (v1 !== undefined) {
    if (!isTable(v1)) throw new Invalid(undefined, 'registries: expected a table');
    if (dropIn) throw new Invalid(line(v1), 'registry must be in v2 format but is in v1');
    if (tables !== undefined || unqualified !== undefined || mode !== undefined || aliases !== undefined) {
      throw new Invalid(line(v1), 'mixing sysregistry v1/v2 is not supported');
    }
    const converted = fromV1(v1, `${file}:${line(v1) ?? 1}`);
    registries = converted.registries;
    unqualified = converted.search;
  } else {
    if (tables !== undefined && (!Array.isArray(tables) || !tables.every(isTable)))
      throw new Invalid(undefined, 'registry: expected [[registry]] tables');
    registries = (tables ?? []).map((t) => registryTable(t as TomlTable, file, line));
  }
  checkConflicts(registries);
  for (const [i, entry] of (unqualified ?? []).entries()) {
    const domain = trimLocation(entry, undefined);
    if (!DOMAIN.test(domain)) throw new Invalid(undefined, `Invalid unqualified-search-registries entry ${JSON.stringify(domain)}`);
    (unqualified ?? [])[i] = domain;
  }
  return { file, registries: uniqueSorted(registries), unqualifiedSearchRegistries: unqualified };
}

function registryTable(t: TomlTable, file: string, lineOf: (t: TomlTable) => number | undefined): RegistryTable {
  const line = lineOf(t);
  const location = trimLocation(optional(t, 'location', 'string', line) ?? '', line);
  let prefix = trimLocation(optional(t, 'prefix', 'string', line) ?? '', line);
  if (prefix === '') {
    if (location === '') throw new Invalid(line, 'invalid condition: both location and prefix are unset');
    prefix = location;
  } else if (!prefix.startsWith('*.') && location === '') {
    throw new Invalid(line, 'invalid condition: location is unset and prefix is not in the format: *.example.com');
  }
  if (prefix.startsWith('*.') && /[/@:]/.test(prefix)) {
    throw new Invalid(
      line,
      `Wildcarded prefix should be in the format: *.example.com. Current prefix ${JSON.stringify(prefix)} is incorrectly formatted`,
    );
  }
  const pullFrom = optional(t, 'pull-from-mirror', 'string', line);
  if (pullFrom !== undefined && pullFrom !== '')
    throw new Invalid(line, `pull-from-mirror must not be set for a non-mirror registry ${JSON.stringify(prefix)}`);
  const mirrorByDigestOnly = optional(t, 'mirror-by-digest-only', 'boolean', line) ?? false;
  const rawMirrors = t.get('mirror');
  if (rawMirrors !== undefined && (!Array.isArray(rawMirrors) || !rawMirrors.every(isTable))) {
    throw new Invalid(line, 'mirror: expected [[registry.mirror]] tables');
  }
  const mirrors = (rawMirrors ?? []).map((m): RegistryMirror => {
    const table = m as TomlTable;
    const mline = lineOf(table) ?? line;
    const mirrorLocation = trimLocation(optional(table, 'location', 'string', mline) ?? '', mline);
    if (mirrorLocation === '') throw new Invalid(mline, 'invalid condition: mirror location is unset');
    const mode = optional(table, 'pull-from-mirror', 'string', mline);
    if (mirrorByDigestOnly && mode !== undefined && mode !== '') {
      throw new Invalid(
        mline,
        `cannot set mirror usage mirror-by-digest-only for the registry (${JSON.stringify(prefix)}) and pull-from-mirror for per-mirror (${JSON.stringify(mirrorLocation)}) at the same time`,
      );
    }
    if (mode !== undefined && mode !== '' && !PULL_FROM_MIRROR.includes(mode)) {
      throw new Invalid(mline, `unsupported pull-from-mirror value ${JSON.stringify(mode)} for mirror ${JSON.stringify(mirrorLocation)}`);
    }
    return {
      location: mirrorLocation,
      insecure: optional(table, 'insecure', 'boolean', mline) ?? false,
      pullFromMirror: mode === undefined || mode === '' ? undefined : (mode as PullFromMirror),
    };
  });
  return {
    prefix,
    location,
    insecure: optional(t, 'insecure', 'boolean', line) ?? false,
    blocked: optional(t, 'blocked', 'boolean', line) ?? false,
    mirrorByDigestOnly,
    mirrors,
    origin: `${file}:${line ?? 1}`,
  };
}

/** Version 1: `[registries.search|insecure|block] registries = [...]`, as version 2 tables. */
function fromV1(v1: TomlTable, origin: string): { registries: RegistryTable[]; search: string[] | undefined } {
  const list = (name: string): string[] | undefined => {
    const section = v1.get(name);
    if (section === undefined) return undefined;
    if (!isTable(section)) throw new Invalid(undefined, `registries.${name}: expected a table`);
    return stringArray(section, 'registries', undefined, `registries.${name}.`);
  };
  const byLocation = new Map<string, RegistryTable>();
  const get = (raw: string): RegistryTable => {
    const location = trimLocation(raw, undefined);
    let t = byLocation.get(location);
    if (t === undefined) {
      t = { prefix: location, location, insecure: false, blocked: false, mirrorByDigestOnly: false, mirrors: [], origin };
      byLocation.set(location, t);
    }
    return t;
  };
  for (const r of list('block') ?? []) get(r).blocked = true;
  for (const r of list('insecure') ?? []) get(r).insecure = true;
  return { registries: [...byLocation.values()], search: list('search') };
}

/** Upstream refuses the same location with different `insecure` or `blocked` settings. */
function checkConflicts(registries: readonly RegistryTable[]): void {
  const seen = new Map<string, RegistryTable>();
  for (const r of registries) {
    const key = r.location === '' ? r.prefix : r.location;
    const other = seen.get(key);
    if (other === undefined) {
      seen.set(key, r);
      continue;
    }
    const line = Number(r.origin.slice(r.origin.lastIndexOf(':') + 1));
    for (const setting of ['insecure', 'blocked'] as const) {
      if (other[setting] !== r[setting]) {
        throw new Invalid(line, `registry '${r.location}' is defined multiple times with conflicting '${setting}' setting`);
      }
    }
  }
}

/** One table per prefix, the first one written winning, sorted by prefix (upstream's order). */
function uniqueSorted(registries: readonly RegistryTable[]): RegistryTable[] {
  const byPrefix = new Map<string, RegistryTable>();
  for (const r of registries) if (!byPrefix.has(r.prefix)) byPrefix.set(r.prefix, r);
  return [...byPrefix.values()].sort((a, b) => (a.prefix < b.prefix ? -1 : a.prefix > b.prefix ? 1 : 0));
}

/** A location or prefix without trailing slashes; a URL scheme is refused. */
function trimLocation(s: string, line: number | undefined): string {
  const trimmed = s.replace(/\/+$/, '');
  if (/^https?:\/\//.test(trimmed)) throw new Invalid(line, `invalid location '${s}': URI schemes are not supported`);
  return trimmed;
}

function optional(t: TomlTable, key: string, type: 'string', line: number | undefined): string | undefined;
function optional(t: TomlTable, key: string, type: 'boolean', line: number | undefined): boolean | undefined;
function optional(t: TomlTable, key: string, type: 'string' | 'boolean', line: number | undefined): string | boolean | undefined {
  const v = t.get(key);
  if (v === undefined) return undefined;
  if (typeof v !== type) throw new Invalid(line, `${key}: expected a ${type}, found ${describe(v)}`);
  return v as string | boolean;
}

function stringArray(t: TomlTable, key: string, line: number | undefined, context = ''): string[] | undefined {
  const v = t.get(key);
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.every((e) => typeof e === 'string')) throw new Invalid(line, `${context}${key}: expected an array of strings`);
  return [...(v as string[])];
}

function describe(v: TomlValue): string {
  if (Array.isArray(v)) return 'an array';
  if (isTable(v)) return 'a table';
  if (v instanceof Date) return 'a date';
  return typeof v === 'number' ? 'a number' : `a ${typeof v}`;
}
