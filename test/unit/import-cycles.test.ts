// No two product files import each other, directly or through others, type-only imports
// included (issue #45): a type two files share lives in the module that owns its concept. The
// graph is every relative `import`/`export ... from` of the non-test .ts files under pkg/ and
// cmd/; a cycle is a strongly connected component of more than one file.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const IMPORT = /^\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.[^']+)'/gms;

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** Each file's relative imports that are files of the graph. */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const text = readFileSync(join(ROOT, f), 'utf8');
    const targets = [...text.matchAll(IMPORT)].map((m) => normalize(join(dirname(f), m[1] ?? '')));
    graph.set(
      f,
      targets.filter((t) => known.has(t)),
    );
  }
  return graph;
}

/** Strongly connected components of more than one file (Tarjan's algorithm). */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v) ?? 0);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = stack.pop()) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('import cycles', () => {
  it('finds a cycle, a type-only import included, and nothing in an acyclic graph', () => {
    const g = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cycles(g)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(
      cycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('reads type-only imports and re-exports as edges', () => {
    const text = "import type { A } from './a.ts';\nexport { b } from './b.ts';\nimport {\n  c,\n} from './c.ts';\n";
    expect([...text.matchAll(IMPORT)].map((m) => m[1])).toEqual(['./a.ts', './b.ts', './c.ts']);
  });

  it('pkg/ and cmd/ have none', () => {
    const graph = importGraph([...sourceFiles('pkg'), ...sourceFiles('cmd')]);
    expect(graph.size).toBeGreaterThan(400);
    expect(cycles(graph)).toEqual([]);
  });
});
