/**
 * Pure helpers for the generated Go modules that build our test binaries: reading an upstream
 * go.mod (requires, replaces, godebug) and writing the go.mod/tools.go of a module that builds
 * upstream mains at a pinned version. Generated, because k8s.io/kubernetes and etcd replace
 * their sibling modules with local directories, which `go install pkg@version` refuses; a main
 * module of ours may pin those siblings to their published versions.
 */

/** One `require` line of a go.mod. */
interface GoRequire {
  path: string;
  version: string;
}

/** One `replace` line: `from [fromVersion] => to [toVersion]`. */
interface GoReplace {
  from: string;
  fromVersion?: string;
  to: string;
  toVersion?: string;
}

/** The parts of a go.mod file this package reads. */
interface GoModFile {
  module: string;
  requires: GoRequire[];
  replaces: GoReplace[];
  /** `godebug` settings such as `default=go1.26`, in file order. */
  godebug: string[];
}

/** A module pinned to a published version: `path => path version`. */
interface PinnedModule {
  path: string;
  version: string;
}

/**
 * Parses go.mod text (single-line and block forms of module, require, replace, godebug).
 * Other directives (go, exclude, retract, toolchain, tool) are ignored. Throws when there is no
 * `module` line or a require/replace line is malformed, naming the line.
 */
export function parseGoMod(text: string): GoModFile {
  const result: GoModFile = { module: '', requires: [], replaces: [], godebug: [] };
  let block: string | undefined;
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = stripComment(raw).trim();
    if (line === '') continue;
    if (block !== undefined) {
      if (line === ')') {
        block = undefined;
        continue;
      }
      applyDirective(result, block, line, index + 1);
      continue;
    }
    const open = /^(\w+)\s*\($/.exec(line);
    if (open !== null) {
      block = open[1];
      continue;
    }
    const space = line.indexOf(' ');
    if (space < 0) continue;
    applyDirective(result, line.slice(0, space), line.slice(space + 1).trim(), index + 1);
  }
  if (result.module === '') throw new Error('go.mod has no module directive');
  return result;
}

function applyDirective(mod: GoModFile, verb: string, rest: string, lineNo: number): void {
  const fields = rest.split(/\s+/).map(unquote);
  switch (verb) {
    case 'module':
      mod.module = fields[0] ?? '';
      return;
    case 'godebug':
      mod.godebug.push(rest);
      return;
    case 'require': {
      const [path, version] = fields;
      if (path === undefined || version === undefined) throw new Error(`go.mod line ${lineNo}: malformed require "${rest}"`);
      mod.requires.push({ path, version });
      return;
    }
    case 'replace': {
      const arrow = fields.indexOf('=>');
      const left = fields.slice(0, arrow);
      const right = fields.slice(arrow + 1);
      if (arrow < 1 || left.length > 2 || right.length < 1 || right.length > 2) {
        throw new Error(`go.mod line ${lineNo}: malformed replace "${rest}"`);
      }
      const replace: GoReplace = { from: left[0] ?? '', to: right[0] ?? '' };
      if (left[1] !== undefined) replace.fromVersion = left[1];
      if (right[1] !== undefined) replace.toVersion = right[1];
      mod.replaces.push(replace);
      return;
    }
    default:
      return;
  }
}

function stripComment(line: string): string {
  const at = line.indexOf('//');
  return at < 0 ? line : line.slice(0, at);
}

function unquote(field: string): string {
  return field.length >= 2 && field.startsWith('"') && field.endsWith('"') ? field.slice(1, -1) : field;
}

/** True when a replace target is a directory (`./x`, `../x`, `/abs`) rather than a module. */
export function isLocalPath(target: string): boolean {
  return target.startsWith('./') || target.startsWith('../') || target.startsWith('/') || target === '.' || target === '..';
}

/**
 * The sibling modules a module depending on `upstream` must pin, each to `version`: every
 * `replace X => <local dir>` whose X the go.mod also requires (others, such as etcd's
 * FORBIDDEN_DEPENDENCY guards, never enter the build graph). Sorted by path.
 */
export function localReplacementsToPin(upstream: GoModFile, version: string): PinnedModule[] {
  const required = new Set(upstream.requires.map((r) => r.path));
  const pinned = new Map<string, PinnedModule>();
  for (const replace of upstream.replaces) {
    if (!isLocalPath(replace.to) || !required.has(replace.from)) continue;
    pinned.set(replace.from, { path: replace.from, version });
  }
  return [...pinned.values()].sort((a, b) => a.path.localeCompare(b.path));
}

/** What the generated go.mod of a tools module contains. */
interface ToolsModuleSpec {
  /** Our module path, e.g. `olmv1.local/envtest/kubernetes`. */
  module: string;
  /** `go` directive, e.g. `1.26.0`. */
  goVersion: string;
  /** Direct requirements (the upstream module at its release). */
  requires: PinnedModule[];
  /** Sibling modules to resolve from their published versions. */
  pins: PinnedModule[];
  /** `godebug` settings copied from upstream so runtime defaults match an upstream build. */
  godebug: string[];
}

/** Renders the go.mod of a tools module; `go mod tidy` completes it. */
export function renderToolsGoMod(spec: ToolsModuleSpec): string {
  const out = [`module ${spec.module}`, '', `go ${spec.goVersion}`, ''];
  for (const setting of spec.godebug) out.push(`godebug ${setting}`, '');
  out.push('require (');
  for (const r of spec.requires) out.push(`\t${r.path} ${r.version}`);
  out.push(')', '');
  if (spec.pins.length > 0) {
    out.push('replace (');
    for (const p of spec.pins) out.push(`\t${p.path} => ${p.path} ${p.version}`);
    out.push(')', '');
  }
  return out.join('\n');
}

/** tools.go: imports of the upstream mains, excluded from builds, so `go mod tidy` records their needs. */
export function renderToolsGo(mainPackages: readonly string[]): string {
  const imports = [...mainPackages].sort().map((p) => `\t_ "${p}"`);
  return ['//go:build tools', '', 'package tools', '', 'import (', ...imports, ')', ''].join('\n');
}

/** Go `-ldflags`: `-X pkg.var=value` per stamp, plus `-s -w` (no symbol tables: faster links). */
export function renderLdflags(stamps: Readonly<Record<string, string>>): string {
  const parts = ['-s', '-w'];
  for (const [variable, value] of Object.entries(stamps)) {
    if (/\s|'/.test(value)) throw new Error(`ldflags value for ${variable} must not contain spaces or quotes: "${value}"`);
    parts.push(`-X ${variable}=${value}`);
  }
  return parts.join(' ');
}

/** The go.mod `go` directive of a toolchain: `go1.26.8` -> `1.26.0`; throws for anything else. */
export function goDirectiveFor(goVersion: string): string {
  const match = /go(\d+)\.(\d+)/.exec(goVersion);
  if (match === null) throw new Error(`cannot read a Go version from "${goVersion}"`);
  return `${match[1]}.${match[2]}.0`;
}

/** Compares dotted numeric versions (`1.26.0` vs `1.25.7`): negative, zero or positive. */
export function compareDotted(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}
