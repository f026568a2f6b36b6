// The docs check on small trees in temporary directories: it reports a missing cited file, a
// missing test file, a missing decision and a duplicate decision number, and stays quiet on
// what it must not read (code, upstream's paths, example commands).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { README_MAX_LINES, checkDocs, commentText, type Exception, type Finding } from './docs-check.ts';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'docs-check-'));
  write('pkg/widget/index.ts', '/** The widget module; see docs/decisions/0001-first.md. */\nexport const widget = 1;\n');
  write('pkg/widget/widget.test.ts', '');
  write('test/e2e/widget-crash.test.ts', '');
  write('docs/decisions/0001-first.md', '# 0001. First\n');
  write('docs/decisions/0002-second.md', '# 0002. Second\n');
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function write(path: string, text: string): void {
  mkdirSync(join(root, dirname(path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

/** `file:line kind cite` of each finding. */
function check(exceptions: readonly Exception[] = []): string[] {
  return checkDocs(root, exceptions).map((f: Finding) => `${f.file}:${f.line} ${f.kind} ${f.cite}`);
}

describe('checkDocs', () => {
  it('accepts a tree whose citations are all true', () => {
    write(
      'README.md',
      [
        'The widget (`pkg/widget/index.ts`, tested by `pkg/widget/widget.test.ts` and',
        'test/e2e/widget-crash) follows decisions 0001 and 0002 ([0002](docs/decisions/0002-second.md)).',
        'Every module: `pkg/**/index.ts`, `cmd/<binary>/main.ts` is not checked past the placeholder... `pkg/widget/`.',
        'See docs/decisions/0001-0002, `widget.test.ts`, pkg/widget/index.ts:12 and [the guide](docs/decisions/0001-first.md#context).',
      ].join('\n'),
    );
    expect(check()).toEqual([]);
  });

  it('reports a cited file that does not exist, in Markdown and in a comment', () => {
    write('docs/guide.md', 'Intro.\n\nThe loader lives in `pkg/widget/loader.ts`.\n');
    write('pkg/widget/use.ts', "// Reads through pkg/widget/missing.ts.\nexport const f = 'pkg/widget/also-missing.ts';\n");
    expect(check()).toEqual(['docs/guide.md:3 path pkg/widget/loader.ts', 'pkg/widget/use.ts:1 path pkg/widget/missing.ts']);
  });

  it('reports a test file cited by name that no file has, and a broken link', () => {
    write('docs/guide.md', 'Proven by `widget-gone.test.ts`; see [the notes](notes.md).\n');
    expect(check()).toEqual(['docs/guide.md:1 test-file widget-gone.test.ts', 'docs/guide.md:1 link notes.md']);
  });

  it('reports a cited decision number that has no record, in every citing form', () => {
    write('docs/guide.md', 'As decision 0003 says.\n');
    write('bench/README.md', 'Figures (decisions 0001, 0002 and 0007).\n');
    write(
      'pkg/widget/more.ts',
      '/**\n * Bounded (decisions 0001,\n * 0009) and [0004]; docs/decisions/0005 and 0006.\n */\nexport const more = 1;\n',
    );
    expect(check()).toEqual([
      'bench/README.md:1 decision 0007',
      'docs/guide.md:1 decision 0003',
      'pkg/widget/more.ts:3 decision 0009',
      'pkg/widget/more.ts:3 decision 0004',
      'pkg/widget/more.ts:3 decision 0005',
      'pkg/widget/more.ts:3 decision 0006',
    ]);
  });

  it('reports two decision records with one number', () => {
    write('docs/decisions/0002-other.md', '# 0002. Other\n');
    expect(check()).toEqual(['docs/decisions/0002-other.md:1 duplicate-decision 0002', 'docs/decisions/0002-second.md:1 duplicate-decision 0002']);
  });

  it("does not read upstream's paths, example commands, dates or fixture descriptions", () => {
    write(
      'docs/guide.md',
      [
        "Upstream's `internal/operator-controller/pkg/applier`, `helm-operator-plugins:pkg/storage/chunked.go`,",
        "upstream's `cmd/registry`, https://example.test/pkg/x and `olmv1 catalog validate ./catalog ../other`.",
        'Go zero time 0001-01-01T00:00:00Z, mode 0644, image v0003.',
      ].join('\n'),
    );
    write('test/fixtures/data/README.md', 'Copied from pkg/lib/upstream.go, decision 0042.\n');
    expect(check()).toEqual([]);
  });

  it('fails a README longer than the front-page limit, naming where the references go', () => {
    write('README.md', 'line\n'.repeat(README_MAX_LINES));
    expect(check()).toEqual([]);
    write('README.md', 'line\n'.repeat(README_MAX_LINES + 1));
    const findings = checkDocs(root, []);
    expect(findings.map((f) => `${f.file}:${f.line} ${f.kind} ${f.cite}`)).toEqual([
      `README.md:${README_MAX_LINES + 1} length ${README_MAX_LINES + 1} lines`,
    ]);
    expect(findings[0]?.message).toContain('move reference sections to docs/');
    write('README.md', `${'line\n'.repeat(README_MAX_LINES)}no final newline`);
    expect(check()).toEqual([`README.md:${README_MAX_LINES + 1} length ${README_MAX_LINES + 1} lines`]);
    write('docs/README.md', 'line\n'.repeat(README_MAX_LINES + 1));
    write('README.md', 'short\n');
    expect(check()).toEqual([]);
  });

  it('reports a bench/results page its README does not link', () => {
    write('bench/results/README.md', '| [ingest.md](ingest.md) | ingest |\n');
    write('bench/results/ingest.md', '# Ingest\n');
    expect(check()).toEqual([]);
    write('bench/results/serving.md', '# Serving\n');
    expect(checkDocs(root, []).map((f) => `${f.file} ${f.kind} ${f.cite}`)).toEqual(['bench/results/README.md unlisted serving.md']);
  });

  it('skips a listed exception and reports one that matches nothing', () => {
    write('docs/guide.md', 'Was `pkg/old/gone.ts`.\n');
    const used: Exception = { file: 'docs/guide.md', cite: 'pkg/old/gone.ts', reason: 'history' };
    const stale: Exception = { file: 'docs/guide.md', cite: 'pkg/old/other.ts', reason: 'history' };
    expect(check([used])).toEqual([]);
    expect(check([used, stale])).toEqual(['docs/guide.md:0 stale-exception pkg/old/other.ts']);
  });
});

describe('commentText', () => {
  /** The comment text of `source`, code removed and whitespace collapsed. */
  function comments(source: string): string {
    return commentText(source).replace(/\0/g, '').replace(/\s+/g, ' ').trim();
  }

  it('keeps comments and line breaks and drops strings, templates and regular expressions', () => {
    const source = [
      "const a = '// not a comment'; // one",
      'const b = `/* no ${"*/" + `// nested ${c}`} still no */`; /* two */',
      'const r = /\\/\\/ no|[/*]/g.test(x) / 2; // three',
      'const s = x / y; // four /* inside',
    ].join('\n');
    expect(comments(source)).toBe('one two three four /* inside');
    expect(commentText(source).split('\n')).toHaveLength(4);
  });
});
