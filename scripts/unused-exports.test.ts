// The unused-exports check on small trees in temporary directories: it reports an export nothing
// imports (in a module index and in a plain file) and stays quiet once another file uses it, in
// each form an import takes; the allow list silences a finding and reports its own stale lines.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ALLOW_LIST, findUnusedExports, type Exception, type Finding } from './unused-exports.ts';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'unused-exports-'));
  // A module whose index re-exports one name of its file, and a composition root that uses it.
  write('pkg/widget/widget.ts', 'export function makeWidget(): number {\n  return 1;\n}\n');
  write('pkg/widget/index.ts', "export { makeWidget } from './widget.ts';\n");
  write('cmd/app/main.ts', "import { makeWidget } from '../../pkg/widget/index.ts';\nmakeWidget();\n");
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function write(path: string, text: string): void {
  mkdirSync(join(root, dirname(path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

/** `file:line kind name` of each finding. */
function check(options: { exceptions?: readonly Exception[]; allowList?: string } = { exceptions: [] }): string[] {
  return findUnusedExports(root, { exceptions: [], ...options }).map((f: Finding) => `${f.file}:${f.line} ${f.kind} ${f.name}`);
}

describe('findUnusedExports', () => {
  it('accepts a tree whose exports are all imported', () => {
    expect(check()).toEqual([]);
  });

  it('reports an export of a plain file that no other file imports, and accepts it once one does', () => {
    write('pkg/widget/size.ts', 'export const SIZE = 3;\nexport type Size = number;\nexport const double = (n: Size): Size => n * SIZE;\n');
    expect(check()).toEqual(['pkg/widget/size.ts:1 value SIZE', 'pkg/widget/size.ts:2 type Size', 'pkg/widget/size.ts:3 value double']);

    write(
      'pkg/widget/widget.ts',
      "import { SIZE, double, type Size } from './size.ts';\nexport function makeWidget(): Size {\n  return double(SIZE);\n}\n",
    );
    expect(check()).toEqual([]);
  });

  it('reports an export used only in its own file', () => {
    write('pkg/widget/widget.ts', 'export const BASE = 1;\nexport function makeWidget(): number {\n  return BASE;\n}\n');
    expect(check()).toEqual(['pkg/widget/widget.ts:1 value BASE']);
  });

  it("reports an index name only the module's own test imports; the test may import the file instead", () => {
    write('pkg/widget/widget.ts', 'export function makeWidget(): number {\n  return 1;\n}\nexport const internal = 2;\n');
    write('pkg/widget/index.ts', "export { internal, makeWidget } from './widget.ts';\n");
    write('pkg/widget/widget.test.ts', "import { internal } from './index.ts';\nexport const unchecked = internal;\n");
    // The index's name has no user outside the module; the file's export is used (by the test,
    // through the index), so only the index line is reported.
    expect(check()).toEqual(['pkg/widget/index.ts:1 value internal']);

    write('pkg/widget/index.ts', "export { makeWidget } from './widget.ts';\n");
    write('pkg/widget/widget.test.ts', "import { internal } from './widget.ts';\nexport const unchecked = internal;\n");
    expect(check()).toEqual([]);
  });

  it('reports a file export that only an unused index re-export names, and counts test/ and bench/ as users', () => {
    write('pkg/widget/widget.ts', 'export function makeWidget(): number {\n  return 1;\n}\nexport const spare = 2;\n');
    write('pkg/widget/index.ts', "export { makeWidget, spare as SPARE } from './widget.ts';\n");
    expect(check()).toEqual(['pkg/widget/index.ts:1 value SPARE', 'pkg/widget/widget.ts:4 value spare']);

    write('bench/spare.ts', "import { SPARE } from '../pkg/widget/index.ts';\nconsole.log(SPARE);\n");
    expect(check()).toEqual([]);

    // A re-export outside pkg/ and cmd/ is a user in its own right (test/envtest re-exports).
    write('bench/spare.ts', '');
    write('test/support/index.ts', "export { SPARE } from '../../pkg/widget/index.ts';\n");
    expect(check()).toEqual([]);
  });

  it('reads every form of dynamic import and import type', () => {
    write(
      'pkg/widget/parts.ts',
      ['a', 'b', 'c', 'd', 'e', 'f'].map((n) => `export const ${n} = 1;`).join('\n') + '\nexport interface Shape {\n  n: number;\n}\n',
    );
    const uses = (names: string): string => `export const uses = [${names}];\n`;
    write('pkg/widget/use-destructured.ts', `const { a } = await import('./parts.ts');\n${uses('a')}`);
    write('pkg/widget/use-member.ts', `${uses("(await import('./parts.ts')).b")}`);
    write('pkg/widget/use-then.ts', `${uses("await import('./parts.ts').then((m) => m.c)")}`);
    write('pkg/widget/use-all.ts', `const [{ d }, { e }] = await Promise.all([import('./parts.ts'), import('./parts.ts')]);\n${uses('d, e')}`);
    write('pkg/widget/use-type.ts', "export type Uses = import('./parts.ts').Shape;\n");
    for (const user of ['destructured', 'member', 'then', 'all'])
      write(`test/${user}.ts`, `import { uses } from '../pkg/widget/use-${user}.ts';\nconsole.log(uses);\n`);
    write('test/type.ts', "import type { Uses } from '../pkg/widget/use-type.ts';\nexport const x: Uses = { n: 1 };\n");
    expect(check()).toEqual(['pkg/widget/parts.ts:6 value f']);
  });

  it('does not check the exports of test files', () => {
    write('pkg/widget/widget.test.ts', 'export const helper = 1;\n');
    expect(check()).toEqual([]);
  });

  it('keeps an exception, and reports one that no longer matches', () => {
    write('pkg/widget/widget.ts', 'export function makeWidget(): number {\n  return 1;\n}\nexport const KEPT = 1;\n');
    const kept: Exception = { file: 'pkg/widget/widget.ts', name: 'KEPT', reason: 'read by a tool' };
    expect(check({ exceptions: [kept] })).toEqual([]);
    expect(check({ exceptions: [{ ...kept, name: 'GONE' }] })).toEqual([
      'pkg/widget/widget.ts:0 stale-exception pkg/widget/widget.ts:GONE',
      'pkg/widget/widget.ts:4 value KEPT',
    ]);
  });

  it('applies the allow list and reports its stale and malformed lines', () => {
    write('pkg/widget/widget.ts', 'export function makeWidget(): number {\n  return 1;\n}\nexport const LATER = 1;\n');
    const allowList = ['# being rewritten', 'pkg/widget/widget.ts:LATER # removed by the rewrite', ''].join('\n');
    expect(check({ allowList })).toEqual([]);

    const stale = [allowList, 'pkg/widget/widget.ts:makeWidget # used now', 'pkg/widget/widget.ts:NOREASON'].join('\n');
    expect(check({ allowList: stale })).toEqual([
      `${ALLOW_LIST}:4 stale-exception pkg/widget/widget.ts:makeWidget`,
      `${ALLOW_LIST}:5 bad-allow-line pkg/widget/widget.ts:NOREASON`,
    ]);
  });
});
