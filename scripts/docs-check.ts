/**
 * Docs that stay true: every repository path, test file and decision number cited in the
 * documentation and in code comments exists, no two decision records share a number, and the
 * README stays a front page.
 * `npm test` runs it first (`node scripts/docs-check.ts`); it prints one line per false
 * citation and exits 1.
 *
 * What is read:
 * - Markdown: every `*.md` outside test/fixtures/ and testdata/ (those describe upstream data),
 *   prose and code blocks alike.
 * - Code comments of `*.ts`, `*.js`, `*.mjs`. String literals and code are not read: tests
 *   name paths that must not exist.
 *
 * What counts as a citation. The rules are precise rather than greedy: a citation they do not
 * recognise goes unchecked, never wrongly reported.
 * - A path whose first segment is one of this repository's top-level directories (`pkg/…`,
 *   `cmd/…`, `test/…`, `docs/…`, `.ci/…`, ...). It exists as a file or directory, or, without
 *   an extension, as a module or test of that name (`test/e2e/operator-controller-crash`);
 *   `*` and `**` match at least one file. A placeholder (`<binary>`), an ellipsis, a `:line`
 *   or `#anchor` suffix ends the checked part.
 * - Not a citation of this repository: a path that continues a longer one
 *   (`internal/operator-controller/pkg/…`), follows `owner/repo:` or a URL, or directly follows
 *   the word "upstream" or "upstream's" (upstream's `cmd/registry`). A name without a
 *   directory (`steps.ts`), a path relative to something else (`storage/ingest.ts`, `./x` in
 *   an example command) is not checked.
 * - A Markdown link target that is not a URL, resolved against the Markdown file's directory.
 * - A test file named alone (`steps-pull.test.ts`): some file of that name exists.
 * - A decision number: the four-digit numbers after "decision" or "decisions" (`decision 0052`,
 *   `decisions 0086, 0087 and 0091`), any `00NN` standing alone (`(0045)`, `[0042]`), and
 *   `docs/decisions/0049` or `docs/decisions/0040-0042` (a full record path such as
 *   `docs/decisions/0049-single-ownership.md` is checked as a path).
 *
 * The step lists of docs/development.md's controller table are the ones assembled in code
 * (step-lists.ts).
 *
 * The README is a front page: above README_MAX_LINES lines the check fails, saying to move
 * reference sections to docs/ (or figures to bench/results/) and link them from the README.
 *
 * Exceptions are listed in EXCEPTIONS with their reasons; an exception that no longer
 * matches a false citation is itself reported, so the list cannot rot.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { stepListProblems } from './step-lists.ts';

/** One false citation (or duplicate decision number, stale exception, or too long a README). */
export interface Finding {
  /** Repository-relative path of the citing file. */
  file: string;
  line: number;
  kind: 'path' | 'link' | 'test-file' | 'decision' | 'duplicate-decision' | 'stale-exception' | 'length' | 'unlisted' | 'steps';
  /** The cited text as checked. */
  cite: string;
  message: string;
}

/** A citation that is deliberately not checked: `cite` as reported, in `file`. */
export interface Exception {
  file: string;
  cite: string;
  reason: string;
}

/**
 * The most lines the root README.md may have (issue #45: a front page of about 300 lines). The
 * command line, controller and operations references live in docs/, benchmark figures in
 * bench/results/.
 */
export const README_MAX_LINES = 320;

/** Citations of paths that are not in this tree, on purpose. */
export const EXCEPTIONS: readonly Exception[] = [
  {
    file: 'docs/decisions/0022-fbc-yaml-and-go-json-emulation.md',
    cite: 'pkg/fbc/yaml11.ts',
    reason: 'the context of the decision names the emulation it replaced, as it was then called (removed in f5cbd83)',
  },
  {
    file: 'docs/decisions/0022-fbc-yaml-and-go-json-emulation.md',
    cite: 'pkg/bundle/yaml-stream.ts',
    reason: 'as above: the second emulation the decision replaced (removed in f5cbd83)',
  },
  {
    file: 'pkg/shared/fbc/indexignore.test.ts',
    cite: 'pkg/.indexignore',
    reason: 'a file of the catalog tree the test builds in a temporary directory',
  },
  {
    file: 'test/support/upstream-docs.ts',
    cite: 'docs/howto/how-to-pin-version-1',
    reason: "an example id: a path in upstream's documentation tree, as recorded under test/fixtures/upstream-docs",
  },
];

/** Directories never read and never cited: dependencies, build output, caches, VCS. */
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist', 'coverage', '.cache', 'tmp', '.olmv1']);
/** Markdown here describes upstream data, not this repository. */
const UNREAD_MARKDOWN = [/^test\/fixtures\//, /(^|\/)testdata\//];
const CODE_FILE = /\.(ts|js|mjs)$/;
const DECISIONS_DIR = 'docs/decisions';
const DECISION_FILE = /^(\d{4})-[^/]+\.md$/;

interface Tree {
  files: Set<string>;
  dirs: Set<string>;
  /** Base names of all files, for test files cited by name alone. */
  baseNames: Set<string>;
  topLevel: string[];
}

function walk(root: string): Tree {
  const files = new Set<string>();
  const dirs = new Set<string>();
  const baseNames = new Set<string>();
  const topLevel: string[] = [];
  const pending = [''];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const rel = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (SKIPPED_DIRS.has(entry.name) || entry.name.startsWith('.tmp-')) continue;
        dirs.add(rel);
        if (dir === '') topLevel.push(entry.name);
        pending.push(rel);
      } else {
        files.add(rel);
        baseNames.add(entry.name);
      }
    }
  }
  return { files, dirs, baseNames, topLevel };
}

/**
 * The comments of a JavaScript/TypeScript source: the text with everything outside comments
 * replaced by NUL (newlines kept, so offsets give line numbers and nothing in code can join two
 * comments into one citation) and the comment delimiters by spaces.
 */
export function commentText(source: string): string {
  const out = source.split('');
  const blank = (from: number, to: number): void => {
    for (let i = from; i < to; i++) if (out[i] !== '\n') out[i] = '\0';
  };
  /** Nesting of template literals: the brace depth at which each `${` was opened. */
  const templates: number[] = [];
  let depth = 0;
  /** Last significant character of code, to tell a regular expression from a division. */
  let prev = '';
  let prevWord = '';
  let i = 0;
  const n = source.length;
  const skipQuoted = (quote: string): void => {
    const start = i;
    for (i++; i < n && source[i] !== quote && source[i] !== '\n'; i++) if (source[i] === '\\') i++;
    i++;
    blank(start, Math.min(i, n));
  };
  /** From inside a template's text to its end or to `${`. */
  const skipTemplateText = (): void => {
    const start = i;
    for (; i < n; i++) {
      if (source[i] === '\\') i++;
      else if (source[i] === '`') {
        i++;
        break;
      } else if (source[i] === '$' && source[i + 1] === '{') {
        i += 2;
        templates.push(depth);
        depth++;
        break;
      }
    }
    blank(start, Math.min(i, n));
  };
  while (i < n) {
    const c = source[i] as string;
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      out[i] = ' ';
      out[i + 1] = ' ';
      const end = source.indexOf('\n', i);
      i = end === -1 ? n : end;
    } else if (c === '/' && next === '*') {
      out[i] = ' ';
      out[i + 1] = ' ';
      const end = source.indexOf('*/', i + 2);
      i = end === -1 ? n : end + 2;
      if (end !== -1) {
        out[end] = ' ';
        out[end + 1] = ' ';
      }
    } else if (c === "'" || c === '"') {
      skipQuoted(c);
      prev = c;
    } else if (c === '`') {
      i++;
      out[i - 1] = '\0';
      skipTemplateText();
      prev = '`';
    } else if (c === '/' && isRegexStart(prev, prevWord)) {
      const start = i;
      let inClass = false;
      for (i++; i < n && source[i] !== '\n'; i++) {
        if (source[i] === '\\') i++;
        else if (source[i] === '[') inClass = true;
        else if (source[i] === ']') inClass = false;
        else if (source[i] === '/' && !inClass) break;
      }
      i++;
      blank(start, Math.min(i, n));
      prev = '/';
    } else {
      if (c === '{') depth++;
      if (c === '}') {
        depth--;
        if (templates.length > 0 && templates[templates.length - 1] === depth) {
          templates.pop();
          out[i] = '\0';
          i++;
          skipTemplateText();
          prev = '`';
          continue;
        }
      }
      if (c !== '\n') out[i] = '\0';
      if (!/\s/.test(c)) {
        if (/[\w$]/.test(c)) {
          prevWord = /[\w$]/.test(prev) ? prevWord + c : c;
        } else {
          prevWord = '';
        }
        prev = c;
      }
      i++;
    }
  }
  return out.join('');
}

const KEYWORDS_BEFORE_EXPRESSION = new Set([
  'return',
  'typeof',
  'case',
  'do',
  'else',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'instanceof',
  'yield',
  'await',
]);

function isRegexStart(prev: string, prevWord: string): boolean {
  if (prev === '') return true;
  if (/[\w$]/.test(prev)) return KEYWORDS_BEFORE_EXPRESSION.has(prevWord);
  return !/[)\]}'"`]/.test(prev);
}

interface Citation {
  offset: number;
  kind: 'path' | 'link' | 'test-file' | 'decision';
  cite: string;
}

/** Characters that may continue a path token; anything else ends it. */
const PATH_CHARS = String.raw`[\w.\-/*]`;
/** Before a path: nothing that makes it part of a longer path, a URL or `repo:path`. */
const PATH_BOUNDARY = String.raw`(?<![\w.\-/@:$~%])`;
/** Text right before a path that marks it as upstream's. */
const UPSTREAM_MARK = /\bupstream(?:'s)?[\s`*_]*$/i;

function pathPattern(topLevel: readonly string[]): RegExp {
  const names = topLevel.map((t) => t.replace(/[.]/g, '\\.')).join('|');
  return new RegExp(String.raw`${PATH_BOUNDARY}((?:${names})/${PATH_CHARS}*)`, 'g');
}
const TEST_FILE = new RegExp(String.raw`${PATH_BOUNDARY}([\w.-]+\.test\.(?:ts|js|mjs))(?![\w/-])`, 'g');
const DECISION_LIST = /\bdecisions?\s+((?:\[?\d{4}\b\]?(?:\s*(?:,|and|or|\/|&)?\s*(?:\*\s+)?)?)+)/gi;
const BARE_DECISION = /(?<![\w.\-/:#])00\d\d(?![\w\-:.]\w|[\w-])/g;
const DECISION_PATH = /^docs\/decisions\/(\d{4})(?:-(\d{4}))?-?$/;
const MARKDOWN_LINK = /\[[^\]\n]*\]\(\s*<?([\w./#%-]+)>?(?:\s+"[^"]*")?\s*\)/g;
const CODE_SPAN = /(`+)[^`][\s\S]*?\1/g;

function findCitations(text: string, topLevel: readonly string[], markdown: boolean): Citation[] {
  const found: Citation[] = [];
  for (const m of text.matchAll(pathPattern(topLevel))) {
    const lineStart = text.lastIndexOf('\n', m.index) + 1;
    if (UPSTREAM_MARK.test(text.slice(lineStart, m.index))) continue;
    found.push({ offset: m.index, kind: 'path', cite: m[1] as string });
  }
  for (const m of text.matchAll(TEST_FILE)) {
    found.push({ offset: m.index, kind: 'test-file', cite: m[1] as string });
  }
  const decisions = new Map<number, string>();
  for (const m of text.matchAll(DECISION_LIST)) {
    const list = m[1] as string;
    const listStart = m.index + m[0].length - list.length;
    for (const d of list.matchAll(/\d{4}/g)) decisions.set(listStart + d.index, d[0]);
  }
  for (const m of text.matchAll(BARE_DECISION)) decisions.set(m.index, m[0]);
  for (const [offset, cite] of decisions) found.push({ offset, kind: 'decision', cite });
  if (markdown) {
    const prose = text.replace(CODE_SPAN, (span) => span.replace(/[^\n]/g, ' '));
    for (const m of prose.matchAll(MARKDOWN_LINK)) {
      const target = m[1] as string;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
      found.push({ offset: m.index, kind: 'link', cite: target });
    }
  }
  return found.sort((a, b) => a.offset - b.offset);
}

/** Strips what follows the checked part of a cited path: punctuation, line numbers, anchors. */
function trimPath(cite: string): string {
  let p = cite.split('#')[0] as string;
  p = p.replace(/(\.\.\.|…).*$/, '');
  // Markdown emphasis closing right after a path, as in a bold module name; a glob ends in `/**`.
  p = p.replace(/([^/])\*+$/, '$1');
  p = p.replace(/[.,:;]+$/, '');
  return p;
}

function globRegex(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
      if (glob[i + 1] === '/') i++;
    } else if (c === '*') re += '[^/]*';
    else re += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}/?$`);
}

function pathExists(tree: Tree, path: string): boolean {
  const p = path.replace(/\/+$/, '');
  if (p === '' || p === '.') return true;
  if (p.includes('*')) {
    const re = globRegex(p);
    for (const f of tree.files) if (re.test(f)) return true;
    for (const d of tree.dirs) if (re.test(d)) return true;
    return false;
  }
  if (tree.files.has(p) || tree.dirs.has(p)) return true;
  // A module or test named without its extension.
  return !posix.basename(p).includes('.') && (tree.files.has(`${p}.ts`) || tree.files.has(`${p}.test.ts`));
}

/** The number of each decision record, and the findings for numbers used twice. */
function decisionNumbers(tree: Tree): { numbers: Set<string>; findings: Finding[] } {
  const byNumber = new Map<string, string[]>();
  for (const f of tree.files) {
    if (dirname(f) !== DECISIONS_DIR) continue;
    const m = DECISION_FILE.exec(posix.basename(f));
    if (m === null) continue;
    const list = byNumber.get(m[1] as string) ?? [];
    list.push(f);
    byNumber.set(m[1] as string, list);
  }
  const findings: Finding[] = [];
  for (const [number, files] of byNumber) {
    if (files.length < 2) continue;
    for (const file of files.sort()) {
      const others = files.filter((f) => f !== file).join(', ');
      findings.push({ file, line: 1, kind: 'duplicate-decision', cite: number, message: `decision number ${number} is also used by ${others}` });
    }
  }
  return { numbers: new Set(byNumber.keys()), findings };
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

function isReadMarkdown(file: string): boolean {
  return file.endsWith('.md') && !UNREAD_MARKDOWN.some((re) => re.test(file));
}

/** Every false citation under `root`, sorted by file and line. */
export function checkDocs(root: string, exceptions: readonly Exception[] = EXCEPTIONS): Finding[] {
  const tree = walk(root);
  const { numbers, findings } = decisionNumbers(tree);
  const used = new Set<Exception>();
  for (const file of [...tree.files].sort()) {
    const markdown = isReadMarkdown(file);
    if (!markdown && !CODE_FILE.test(file)) continue;
    const source = readFileSync(join(root, file), 'utf8');
    const text = markdown ? source : commentText(source);
    const dir = posix.dirname(file);
    for (const c of findCitations(text, tree.topLevel, markdown)) {
      const problem = check(tree, numbers, dir, c);
      if (problem === undefined) continue;
      const exception = exceptions.find((e) => e.file === file && e.cite === problem.cite);
      if (exception !== undefined) {
        used.add(exception);
        continue;
      }
      findings.push({ file, line: lineAt(text, c.offset), ...problem });
    }
  }
  if (tree.files.has('README.md')) {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const lines = readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0);
    if (lines > README_MAX_LINES) {
      findings.push({
        file: 'README.md',
        line: lines,
        kind: 'length',
        cite: `${lines} lines`,
        message: `the README is a front page of at most ${README_MAX_LINES} lines: move reference sections to docs/ (figures to bench/results/) and link them from "Where the rest is"`,
      });
    }
  }
  findings.push(...unlistedResults(root, tree));
  for (const p of stepListProblems(root)) findings.push({ ...p, kind: 'steps', cite: 'step list' });
  for (const e of exceptions) {
    if (!used.has(e)) {
      findings.push({ file: e.file, line: 0, kind: 'stale-exception', cite: e.cite, message: `exception matches no false citation: ${e.reason}` });
    }
  }
  return findings.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

/** The results directory whose README links each of its pages (the index of benchmark pages). */
const RESULTS_DIR = 'bench/results';

/** A page of bench/results/ its README.md does not link as `(page.md)`. */
function unlistedResults(root: string, tree: Tree): Finding[] {
  const index = `${RESULTS_DIR}/README.md`;
  if (!tree.files.has(index)) return [];
  const text = readFileSync(join(root, index), 'utf8');
  const pages = [...tree.files].filter((f) => posix.dirname(f) === RESULTS_DIR && f.endsWith('.md') && f !== index).sort();
  return pages
    .map((f) => posix.basename(f))
    .filter((page) => !text.includes(`(${page})`))
    .map((page) => ({
      file: index,
      line: 0,
      kind: 'unlisted' as const,
      cite: page,
      message: `${RESULTS_DIR}/${page} is not linked from its README's list of pages`,
    }));
}

/** What is false about one citation, if anything. */
type Problem = Pick<Finding, 'kind' | 'cite' | 'message'>;

function check(tree: Tree, numbers: Set<string>, dir: string, c: Citation): Problem | undefined {
  if (c.kind === 'decision') return checkDecision(numbers, c.cite);
  if (c.kind === 'test-file') {
    return tree.baseNames.has(c.cite) ? undefined : { kind: c.kind, cite: c.cite, message: 'no test file of this name' };
  }
  if (c.kind === 'link') {
    const target = posix.normalize(posix.join(dir, decodeURIComponent(c.cite.split('#')[0] as string)));
    if (target.startsWith('../')) return { kind: c.kind, cite: c.cite, message: 'link target outside the repository' };
    return pathExists(tree, target) ? undefined : { kind: c.kind, cite: c.cite, message: `no such link target (${target})` };
  }
  const cite = trimPath(c.cite);
  const range = DECISION_PATH.exec(cite);
  if (range !== null) {
    for (const n of range.slice(1)) {
      if (n !== undefined && !numbers.has(n)) return checkDecision(numbers, n);
    }
    return undefined;
  }
  return pathExists(tree, posix.normalize(cite)) ? undefined : { kind: 'path', cite, message: 'no such file or directory' };
}

function checkDecision(numbers: Set<string>, cite: string): Problem | undefined {
  return numbers.has(cite) ? undefined : { kind: 'decision', cite, message: `no decision record ${DECISIONS_DIR}/${cite}-*.md` };
}

function main(): void {
  const root = join(import.meta.dirname, '..');
  const findings = checkDocs(root);
  for (const f of findings) process.stdout.write(`${f.file}:${f.line}: ${f.kind} ${f.cite}: ${f.message}\n`);
  if (findings.length > 0) {
    process.stdout.write(`docs-check: ${findings.length} finding(s); fix the text or list an exception in scripts/docs-check.ts\n`);
    process.exit(1);
  }
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) main();
