/**
 * The reconcile step lists have one source: the lists assembled in code. docs/development.md's
 * table of each controller's steps names them in backticks (`finalizers`, `validate`, ...); this
 * check (run by docs-check.ts) compares that row with the steps the assembly lists, in order,
 * by the names their factories give them (`name: 'x'`, or the phase wrapper's first argument).
 * Other documents link to the table rather than repeating the list, except a user guide's list
 * that describes each step (`prose`): a bulleted list, one item per step starting with its name
 * in backticks, after the paragraph that starts with the marker; it is compared the same way.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A controller's step list: where it is assembled, where its factories are, its row in the table. */
interface StepList {
  /** The table row's first cell starts with this. */
  row: string;
  /** The file and function that list the steps. */
  assembly: { file: string; fn: string };
  /** Directories whose (non-test) files define the step factories. */
  factories: string[];
  /** A user guide's described list of the same steps (see the module comment). */
  prose?: { file: string; marker: string };
}

const DOC = 'docs/development.md';

const LISTS: StepList[] = [
  {
    row: 'ClusterExtension',
    assembly: { file: 'cmd/operator-controller/reconcilers.ts', fn: 'clusterExtensionSteps' },
    factories: ['pkg/operator-controller/clusterextension'],
    prose: { file: 'docs/operator-controller.md', marker: 'Each reconcile runs these steps in order' },
  },
  {
    row: 'ClusterCatalog',
    assembly: { file: 'cmd/catalogd/reconcilers.ts', fn: 'catalogReconciler' },
    factories: ['pkg/catalogd/clustercatalog'],
  },
];

/** The text of function `fn` in `source`: from its declaration to the first line that closes it. */
function functionBody(source: string, fn: string): string | undefined {
  const start = source.search(new RegExp(`function ${fn}\\b`));
  if (start < 0) return undefined;
  const end = source.indexOf('\n}\n', start);
  return source.slice(start, end < 0 ? undefined : end);
}

/** Step name by factory, from the factories' files. */
function factoryNames(root: string, dirs: readonly string[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const dir of dirs) {
    for (const file of readdirSync(join(root, dir))) {
      if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
      const source = readFileSync(join(root, dir, file), 'utf8');
      for (const m of source.matchAll(/export function (\w+Step)\(/g)) {
        const body = functionBody(source.slice(m.index), m[1] ?? '') ?? '';
        const name = /(?:\bname:\s*|\b(?:validated|resolved|planned|final)Step\(\s*)'([\w-]+)'/.exec(body)?.[1];
        if (name !== undefined && m[1] !== undefined) names.set(m[1], name);
      }
    }
  }
  return names;
}

/**
 * The step names of the bulleted list after the paragraph of `text` that starts with `marker`
 * (`- \`name\`: ...` items, continuation lines indented), and the 1-based line of the marker;
 * undefined without the marker.
 */
function proseList(text: string, marker: string): { names: string[]; line: number } | undefined {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.startsWith(marker));
  if (at < 0) return undefined;
  const names: string[] = [];
  let started = false;
  for (const line of lines.slice(at + 1)) {
    if (line.startsWith('- ')) {
      started = true;
      const name = /^- `([\w-]+)`/.exec(line)?.[1];
      names.push(name ?? '(an item without a step name)');
    } else if (started && !line.startsWith('  ')) {
      break;
    }
  }
  return { names, line: at + 1 };
}

/** What the check found: one line per list that differs, with both lists. */
export function stepListProblems(root: string): { file: string; line: number; message: string }[] {
  // A tree without the table or an assembly (docs-check's own test trees) has nothing to compare.
  if (!existsSync(join(root, DOC))) return [];
  const doc = readFileSync(join(root, DOC), 'utf8').split('\n');
  const problems: { file: string; line: number; message: string }[] = [];
  for (const list of LISTS.filter((l) => existsSync(join(root, l.assembly.file)))) {
    const body = functionBody(readFileSync(join(root, list.assembly.file), 'utf8'), list.assembly.fn);
    if (body === undefined) {
      problems.push({ file: list.assembly.file, line: 0, message: `no function ${list.assembly.fn} assembling the ${list.row} steps` });
      continue;
    }
    const names = factoryNames(root, list.factories);
    const assembled = [...body.matchAll(/\b(\w+Step)\(/g)].map((m) => names.get(m[1] ?? '')).filter((n) => n !== undefined);
    const index = doc.findIndex((l) => l.startsWith(`| ${list.row} `));
    const cell = index < 0 ? undefined : doc[index]?.split(' | ')[1];
    const documented = [...(cell ?? '').matchAll(/`([\w-]+)`/g)].map((m) => m[1]);
    if (assembled.join(',') !== documented.join(',')) {
      problems.push({
        file: DOC,
        line: index + 1,
        message: `the ${list.row} steps are ${assembled.map((n) => `\`${n}\``).join(', ')} (${list.assembly.file}); the table says ${documented.join(', ') || 'nothing'}`,
      });
    }
    if (list.prose === undefined || !existsSync(join(root, list.prose.file))) continue;
    const prose = proseList(readFileSync(join(root, list.prose.file), 'utf8'), list.prose.marker);
    if (prose === undefined) {
      problems.push({ file: list.prose.file, line: 0, message: `no list of the ${list.row} steps after "${list.prose.marker}"` });
    } else if (assembled.join(',') !== prose.names.join(',')) {
      problems.push({
        file: list.prose.file,
        line: prose.line,
        message: `the ${list.row} steps are ${assembled.map((n) => `\`${n}\``).join(', ')} (${list.assembly.file}); the list says ${prose.names.join(', ') || 'nothing'}`,
      });
    }
  }
  return problems;
}
