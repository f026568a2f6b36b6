/**
 * Exports that nothing uses: a module's index.ts exports what other modules use, nothing more,
 * and every other file under pkg/ and cmd/ exports only what another file imports. `npm test`
 * runs it (`node scripts/unused-exports.ts`); it prints one line per unused export and exits 1.
 *
 * What counts as a use of an export of file F:
 * - An import of the name from F by another file: `import { a }`, `import type { A }`,
 *   `import * as m` then `m.a`, `import('./f.ts')` whose result is destructured, read as
 *   `(await import(...)).a` or passed to `.then((m) => m.a)`, and `import('./f.ts').A` in a type.
 *   A dynamic import whose result is used in another way uses every export of F.
 * - A re-export (`export { a } from './f.ts'`) in pkg/ or cmd/ uses the name only if the
 *   re-exported name is itself used: an index that re-exports `a` for nobody does not keep `a`
 *   exported. A re-export in bench/, test/ or scripts/ (test/envtest/index.ts) is a use: those
 *   files are not checked.
 * - Importers are every file of the repository outside node_modules: pkg/, cmd/, and also
 *   bench/, test/ and scripts/ (benchmarks and suites are real users of a module's surface).
 *
 * What is checked:
 * - A module's index.ts (pkg/**\/index.ts; the module is that directory): each name must be
 *   used by a file outside the module. The module's own tests and files do not count: they
 *   import the module's files directly, so an index never exports a name for them.
 * - Every other non-test .ts file under pkg/ and cmd/: each name must be used by another
 *   file. A name used only in its own file is not exported. A use through the module's index
 *   counts, whoever the index's importer is (a test of the module could import the file).
 * - Exports of test files (`*.test.ts`) are not checked.
 *
 * Exceptions: EXCEPTIONS below (permanent, with reasons), and the temporary allow list
 * scripts/unused-exports-allow.txt (`path:name # reason`, one per line) for directories being
 * rewritten. An exception or allow-list line that matches no unused export is itself reported,
 * so neither list can rot.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import ts from 'typescript6';

/** One unused export, or one stale or malformed exception. */
export interface Finding {
  /** Repository-relative path of the exporting file (or of the allow list). */
  file: string;
  line: number;
  name: string;
  kind: 'value' | 'type' | 'stale-exception' | 'bad-allow-line';
  message: string;
}

/** An export that is deliberately kept although nothing imports it: `name` in `file`. */
export interface Exception {
  file: string;
  name: string;
  reason: string;
}

/** Exports kept on purpose, with the reason. Keep this short: most are better removed. */
export const EXCEPTIONS: readonly Exception[] = [
  {
    file: 'cmd/shared/bundle-loader.ts',
    name: 'runBundle',
    reason: 'imported by the main.js scripts/build-bundles.ts writes into dist/ (decision 0147)',
  },
];

/** The temporary allow list, relative to the repository root. */
export const ALLOW_LIST = 'scripts/unused-exports-allow.txt';

/** Directories never read. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'coverage', 'tmp', 'testdata']);
const SOURCE_FILE = /\.(ts|tsx|mts|js|mjs)$/;
const TEST_FILE = /\.test\.ts$/;

/** A name a file exports, and where it comes from if it re-exports another file's name. */
interface ExportEntry {
  name: string;
  line: number;
  kind: 'value' | 'type';
  /** Set for `export { a as b } from './x.ts'` and `import { a } ...; export { a }`. */
  from?: { file: string; name: string };
}

/** What one file imports from another: names, or every name (`'*'`). */
interface ImportEntry {
  file: string;
  names: Set<string> | '*';
}

interface ParsedFile {
  exports: Map<string, ExportEntry>;
  /** `export * from` targets. */
  starFrom: string[];
  imports: ImportEntry[];
}

/** Every unused export under `root`, sorted by file and line. */
export function findUnusedExports(root: string, options: { exceptions?: readonly Exception[]; allowList?: string } = {}): Finding[] {
  const files = walk(root, '');
  const known = new Set(files);
  const parsed = new Map<string, ParsedFile>();
  for (const file of files) parsed.set(file, parse(file, readFileSync(join(root, file), 'utf8'), known));
  expandStarExports(parsed);

  // Who imports which name of which file, directly; and who re-exports it under which name.
  const importers = new Map<string, Set<string>>(); // `file\0name` -> importing files
  const everything = new Map<string, Set<string>>(); // file -> files importing all of it
  const reexporters = new Map<string, { file: string; name: string }[]>(); // `file\0name` -> re-exports
  for (const [file, p] of parsed) {
    for (const imp of p.imports) {
      if (imp.names === '*') addTo(everything, imp.file, file);
      else for (const name of imp.names) addTo(importers, key(imp.file, name), file);
    }
    for (const e of p.exports.values()) {
      if (e.from === undefined) continue;
      const k = key(e.from.file, e.from.name);
      reexporters.set(k, [...(reexporters.get(k) ?? []), { file, name: e.name }]);
    }
  }

  // The files that use `file`'s export `name`, directly or through re-exports that are used.
  const memo = new Map<string, Set<string>>();
  function users(file: string, name: string): Set<string> {
    const k = key(file, name);
    const cached = memo.get(k);
    if (cached !== undefined) return cached;
    const result = new Set<string>();
    memo.set(k, result); // a re-export cycle adds nothing
    for (const f of importers.get(k) ?? []) result.add(f);
    for (const f of everything.get(file) ?? []) result.add(f);
    for (const r of reexporters.get(k) ?? []) {
      if (!isChecked(r.file)) result.add(r.file);
      else for (const f of users(r.file, r.name)) if (f !== r.file) result.add(f);
    }
    return result;
  }

  const modules = new Set(files.filter((f) => f.startsWith('pkg/') && posix.basename(f) === 'index.ts').map((f) => posix.dirname(f)));
  const findings: Finding[] = [];
  const unused: Finding[] = [];
  for (const file of files) {
    if (!isChecked(file)) continue;
    const isIndex = modules.has(posix.dirname(file)) && posix.basename(file) === 'index.ts';
    const owner = moduleOf(file, modules);
    for (const e of (parsed.get(file) as ParsedFile).exports.values()) {
      const by = [...users(file, e.name)].filter((f) => f !== file && (!isIndex || moduleOf(f, modules) !== owner));
      if (by.length > 0) continue;
      unused.push({
        file,
        line: e.line,
        name: e.name,
        kind: e.kind,
        message: isIndex ? 'exported by the module index, imported by no file outside the module' : 'exported, imported by no other file',
      });
    }
  }

  const allowed = [...(options.exceptions ?? EXCEPTIONS)].map((e) => ({ ...e, line: 0, source: 'EXCEPTIONS in scripts/unused-exports.ts' }));
  if (options.allowList !== undefined) {
    const { entries, problems } = parseAllowList(options.allowList);
    allowed.push(...entries.map((e) => ({ ...e, source: ALLOW_LIST })));
    findings.push(...problems);
  }
  const matched = new Set<(typeof allowed)[number]>();
  for (const u of unused) {
    const a = allowed.find((x) => x.file === u.file && x.name === u.name);
    if (a === undefined) findings.push(u);
    else matched.add(a);
  }
  for (const a of allowed) {
    if (matched.has(a)) continue;
    findings.push({
      file: a.source === ALLOW_LIST ? ALLOW_LIST : a.file,
      line: a.line,
      name: `${a.file}:${a.name}`,
      kind: 'stale-exception',
      message: 'listed as an allowed unused export, but it is used or no longer exported: remove the line',
    });
  }
  return findings.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.name.localeCompare(b.name));
}

/** The entries of an allow list (`path:name # reason`), and its malformed lines. */
export function parseAllowList(text: string): { entries: (Exception & { line: number })[]; problems: Finding[] } {
  const entries: (Exception & { line: number })[] = [];
  const problems: Finding[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = /^(\S+):([A-Za-z_$][\w$]*)\s+#\s*(\S.*)$/.exec(line);
    if (m === null) {
      problems.push({ file: ALLOW_LIST, line: i + 1, name: line, kind: 'bad-allow-line', message: 'expected `path:name # reason`' });
      return;
    }
    entries.push({ file: m[1] as string, name: m[2] as string, reason: m[3] as string, line: i + 1 });
  });
  return { entries, problems };
}

/** Non-test TypeScript files under pkg/ and cmd/. */
function isChecked(file: string): boolean {
  return (file.startsWith('pkg/') || file.startsWith('cmd/')) && file.endsWith('.ts') && !TEST_FILE.test(file);
}

/** The module directory a file belongs to: the nearest directory above it with an index.ts. */
function moduleOf(file: string, modules: Set<string>): string | undefined {
  for (let dir = posix.dirname(file); dir !== '.'; dir = posix.dirname(dir)) {
    if (modules.has(dir)) return dir;
  }
  return undefined;
}

function key(file: string, name: string): string {
  return `${file}\0${name}`;
}

function addTo(map: Map<string, Set<string>>, k: string, value: string): void {
  let set = map.get(k);
  if (set === undefined) map.set(k, (set = new Set()));
  set.add(value);
}

/** Repository-relative paths of the source files under `dir`, sorted. */
function walk(root: string, dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    if (entry.name.startsWith('.') || SKIPPED_DIRS.has(entry.name)) continue;
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...walk(root, path));
    else if (entry.isFile() && SOURCE_FILE.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out.sort();
}

/** The repository file a relative specifier names, if it is one of `known`. */
function resolve(from: string, specifier: string, known: Set<string>): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = posix.normalize(posix.join(posix.dirname(from), specifier));
  for (const candidate of [base, `${base}.ts`, `${base}/index.ts`]) if (known.has(candidate)) return candidate;
  return undefined;
}

function hasModifier(node: ts.Node, kind: ts.SyntaxKind): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === kind);
}

function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : bindingNames(e.name)));
}

/** The names a destructuring pattern takes from an object (`'*'` for a rest element). */
function patternNames(pattern: ts.ObjectBindingPattern): Set<string> | '*' {
  const names = new Set<string>();
  for (const e of pattern.elements) {
    if (e.dotDotDotToken !== undefined) return '*';
    const prop = e.propertyName ?? e.name;
    if (!ts.isIdentifier(prop) && !ts.isStringLiteral(prop)) return '*';
    names.add(prop.text);
  }
  return names;
}

/** The names read as `id.name` inside `scope`, or `'*'` if `id` is used any other way. */
function memberReads(id: string, scope: ts.Node, declaration: ts.Node): Set<string> | '*' {
  const names = new Set<string>();
  let whole = false;
  const visit = (node: ts.Node): void => {
    if (whole) return;
    if (ts.isIdentifier(node) && node.text === id && node !== declaration) {
      const parent = node.parent;
      if (
        (ts.isPropertyAccessExpression(parent) || ts.isQualifiedName(parent)) &&
        (ts.isPropertyAccessExpression(parent) ? parent.expression : parent.left) === node
      ) {
        names.add(ts.isPropertyAccessExpression(parent) ? parent.name.text : parent.right.text);
      } else if (!(ts.isPropertyAccessExpression(parent) && parent.name === node)) {
        whole = true;
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(scope);
  return whole ? '*' : names;
}

function skipParens(node: ts.Node): ts.Node {
  let n = node.parent;
  while (ts.isParenthesizedExpression(n)) n = n.parent;
  return n;
}

/** What a dynamic `import()` call takes from its module. */
function dynamicImportNames(call: ts.CallExpression): Set<string> | '*' {
  let parent = skipParens(call);
  let value: ts.Node = call;
  if (ts.isAwaitExpression(parent)) {
    value = parent;
    parent = skipParens(parent);
  }
  if (ts.isExpressionStatement(parent)) return new Set(); // loaded for its side effects
  if (ts.isPropertyAccessExpression(parent) && parent.expression !== undefined) {
    if (value !== call) return new Set([parent.name.text]); // (await import(...)).name
    const then = parent.parent;
    if (parent.name.text === 'then' && ts.isCallExpression(then)) {
      const fn = then.arguments[0];
      if (fn !== undefined && (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn))) {
        const param = fn.parameters[0];
        if (param === undefined) return new Set();
        if (ts.isObjectBindingPattern(param.name)) return patternNames(param.name);
        if (ts.isIdentifier(param.name)) return memberReads(param.name.text, fn.body, param.name);
      }
    }
    return '*';
  }
  if (ts.isVariableDeclaration(parent) && value !== call && ts.isObjectBindingPattern(parent.name)) return patternNames(parent.name);
  // const [{ a }, { b }] = await Promise.all([import('./a.ts'), import('./b.ts')])
  if (value === call && ts.isArrayLiteralExpression(parent)) {
    const index = parent.elements.indexOf(call);
    const all = skipParens(parent);
    const awaited = ts.isCallExpression(all) ? skipParens(all) : undefined;
    const declaration = awaited !== undefined && ts.isAwaitExpression(awaited) ? skipParens(awaited) : undefined;
    if (declaration !== undefined && ts.isVariableDeclaration(declaration) && ts.isArrayBindingPattern(declaration.name)) {
      const element = declaration.name.elements[index];
      if (element === undefined || ts.isOmittedExpression(element)) return new Set();
      if (ts.isObjectBindingPattern(element.name)) return patternNames(element.name);
    }
  }
  return '*';
}

/** Exports and imports of one file. */
function parse(file: string, text: string, known: Set<string>): ParsedFile {
  const source = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('.tsx') ? ts.ScriptKind.TSX : file.endsWith('.ts') || file.endsWith('.mts') ? ts.ScriptKind.TS : ts.ScriptKind.JS,
  );
  const result: ParsedFile = { exports: new Map(), starFrom: [], imports: [] };
  const lineOf = (node: ts.Node): number => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const importBindings = new Map<string, { file: string; name: string }>();
  const localKinds = new Map<string, 'value' | 'type'>();
  const localExports: { local: string; name: string; line: number }[] = [];
  const addImport = (target: string | undefined, names: Set<string> | '*'): void => {
    if (target !== undefined && target !== file) result.imports.push({ file: target, names });
  };
  const addExport = (e: ExportEntry): void => {
    if (!result.exports.has(e.name)) result.exports.set(e.name, e);
  };

  for (const statement of source.statements) {
    if (
      ts.isFunctionDeclaration(statement) ||
      ts.isClassDeclaration(statement) ||
      ts.isEnumDeclaration(statement) ||
      ts.isModuleDeclaration(statement)
    ) {
      if (statement.name !== undefined && ts.isIdentifier(statement.name)) localKinds.set(statement.name.text, 'value');
    } else if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) {
      if (!localKinds.has(statement.name.text)) localKinds.set(statement.name.text, 'type');
    } else if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations) for (const n of bindingNames(d.name)) localKinds.set(n, 'value');
    }
  }

  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const target = resolve(file, statement.moduleSpecifier.text, known);
      const clause = statement.importClause;
      if (clause === undefined) continue; // side-effect import
      const names = new Set<string>();
      let all = false;
      if (clause.name !== undefined) names.add('default');
      const bindings = clause.namedBindings;
      if (bindings !== undefined && ts.isNamedImports(bindings)) {
        for (const el of bindings.elements) {
          const imported = (el.propertyName ?? el.name).text;
          names.add(imported);
          if (target !== undefined) importBindings.set(el.name.text, { file: target, name: imported });
        }
      } else if (bindings !== undefined && ts.isNamespaceImport(bindings)) {
        const reads = memberReads(bindings.name.text, source, bindings.name);
        if (reads === '*') all = true;
        else for (const n of reads) names.add(n);
      }
      addImport(target, all ? '*' : names);
      continue;
    }
    if (ts.isExportDeclaration(statement)) {
      const specifier = statement.moduleSpecifier;
      if (specifier !== undefined && ts.isStringLiteral(specifier)) {
        const target = resolve(file, specifier.text, known);
        const clause = statement.exportClause;
        if (clause === undefined) {
          if (target !== undefined) result.starFrom.push(target);
        } else if (ts.isNamespaceExport(clause)) {
          addExport({ name: clause.name.text, line: lineOf(clause), kind: 'value' });
          addImport(target, '*');
        } else {
          for (const el of clause.elements) {
            const kind = statement.isTypeOnly || el.isTypeOnly ? 'type' : 'value';
            const original = (el.propertyName ?? el.name).text;
            addExport({ name: el.name.text, line: lineOf(el), kind, ...(target !== undefined ? { from: { file: target, name: original } } : {}) });
          }
        }
      } else if (statement.exportClause !== undefined && ts.isNamedExports(statement.exportClause)) {
        for (const el of statement.exportClause.elements) {
          localExports.push({ local: (el.propertyName ?? el.name).text, name: el.name.text, line: lineOf(el) });
        }
      }
      continue;
    }
    if (ts.isExportAssignment(statement)) {
      addExport({ name: 'default', line: lineOf(statement), kind: 'value' });
      continue;
    }
    if (!hasModifier(statement, ts.SyntaxKind.ExportKeyword)) continue;
    const isDefault = hasModifier(statement, ts.SyntaxKind.DefaultKeyword);
    if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations) {
        for (const n of bindingNames(d.name)) addExport({ name: n, line: lineOf(d), kind: 'value' });
      }
    } else if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) {
      addExport({ name: statement.name.text, line: lineOf(statement), kind: localKinds.get(statement.name.text) ?? 'type' });
    } else if (
      ts.isFunctionDeclaration(statement) ||
      ts.isClassDeclaration(statement) ||
      ts.isEnumDeclaration(statement) ||
      ts.isModuleDeclaration(statement)
    ) {
      const name = isDefault ? 'default' : statement.name !== undefined && ts.isIdentifier(statement.name) ? statement.name.text : 'default';
      addExport({ name, line: lineOf(statement), kind: 'value' });
    }
  }
  for (const e of localExports) {
    const imported = importBindings.get(e.local);
    addExport({ name: e.name, line: e.line, kind: localKinds.get(e.local) ?? 'value', ...(imported !== undefined ? { from: imported } : {}) });
  }

  // Dynamic imports and import types, anywhere in the file.
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg !== undefined && ts.isStringLiteralLike(arg)) addImport(resolve(file, arg.text, known), dynamicImportNames(node));
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      const target = resolve(file, node.argument.literal.text, known);
      let q = node.qualifier;
      while (q !== undefined && ts.isQualifiedName(q)) q = q.left;
      addImport(target, q === undefined ? '*' : new Set([q.text]));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return result;
}

/** `export * from './x.ts'` re-exports each of x's names (but `default`). */
function expandStarExports(parsed: Map<string, ParsedFile>): void {
  const names = (file: string, seen: Set<string>): ExportEntry[] => {
    const p = parsed.get(file);
    if (p === undefined || seen.has(file)) return [];
    seen.add(file);
    return [...p.exports.values(), ...p.starFrom.flatMap((f) => names(f, seen).map((e) => ({ ...e, from: { file: f, name: e.name } })))];
  };
  for (const [file, p] of parsed) {
    for (const target of p.starFrom) {
      for (const e of names(target, new Set([file]))) {
        if (e.name === 'default' || p.exports.has(e.name)) continue;
        p.exports.set(e.name, { name: e.name, line: 0, kind: e.kind, from: { file: target, name: e.name } });
      }
    }
  }
}

function main(): void {
  const root = join(import.meta.dirname, '..');
  const allowPath = join(root, ALLOW_LIST);
  const allowList = statSync(allowPath, { throwIfNoEntry: false }) === undefined ? undefined : readFileSync(allowPath, 'utf8');
  const findings = findUnusedExports(root, allowList === undefined ? {} : { allowList });
  for (const f of findings) process.stdout.write(`${f.file}:${f.line}: ${f.kind} ${f.name}: ${f.message}\n`);
  if (findings.length > 0) {
    const values = findings.filter((f) => f.kind === 'value').length;
    const types = findings.filter((f) => f.kind === 'type').length;
    const other = findings.length - values - types;
    process.stdout.write(
      `unused-exports: ${values} value(s) and ${types} type(s) exported but not imported${other > 0 ? `, ${other} stale or malformed exception(s)` : ''}; ` +
        `drop the export (or the dead code), or list an exception in scripts/unused-exports.ts\n`,
    );
    process.exit(1);
  }
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) main();
