/**
 * Product lines for the same jobs as upstream (issue 70, "Smaller, not only tidier"): the code
 * lines (not blank, not comment-only) of what the two components run, against upstream's Go.
 *
 *   node scripts/code-size.ts [--upstream DIR] [--boxcutter DIR] [--json]
 *
 * Ours: every non-test file reachable by relative imports from cmd/operator-controller/main.ts and
 * cmd/catalogd/main.ts (what the two components can load), less the modules of jobs upstream does
 * not do (NEW_JOBS). The CLI and the console are not counted: upstream has neither.
 * Upstream: its non-test, non-generated Go under internal/{operator-controller,catalogd,shared},
 * cmd/ and api/ (test helpers left out), plus the boxcutter library it pins, which does the
 * BoxcutterRuntime's work that our applier/boxcutter and objectset modules do. Upstream's other
 * libraries (Helm, controller-runtime, containers/image, operator-registry) are not counted, while
 * our equivalents are (pkg/shared/kube, image, fbc, the release format, gocompat): that is most of
 * the distance between the two.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';

/** Modules of jobs upstream's operator-controller and catalogd do not do, with the reason. */
const NEW_JOBS: Record<string, string> = {
  'pkg/operator-controller/tenant/': 'namespaced Extension requests (issue 73)',
  'pkg/operator-controller/rollback/': 'undo on failure',
  'pkg/operator-controller/dependencies/': 'dependency resolution (upstream v1 resolves none)',
  'pkg/operator-controller/dependencyview/': 'dependency resolution',
  'pkg/operator-controller/gating/': 'olm.maxOpenShiftVersion',
  'pkg/operator-controller/upgradegate/': 'the in-cluster cluster-upgrade gate',
  'pkg/operator-controller/clusterproxy/': 'the cluster-wide proxy in operators (OLM classic)',
  'cmd/operator-controller/tenant.ts': 'issue 73 wiring',
  'cmd/operator-controller/upgradegate.ts': 'the gate wiring',
  'cmd/operator-controller/cluster-proxy.ts': 'the proxy wiring',
};

/** Code lines of `text`: not blank, not a `//` line, not inside or opening a block comment. */
export function codeLines(text: string): number {
  let n = 0;
  let inBlock = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (inBlock) {
      if (line.includes('*/')) inBlock = false;
      continue;
    }
    if (line === '' || line.startsWith('//')) continue;
    if (line.startsWith('/*')) {
      if (!line.includes('*/')) inBlock = true;
      continue;
    }
    n++;
  }
  return n;
}

const IMPORT = /(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

/** The files reachable from `roots` by relative imports (repository-relative paths). */
function reachable(repo: string, roots: string[]): string[] {
  const seen = new Set<string>();
  const todo = roots.map((r) => resolve(repo, r));
  for (let f = todo.pop(); f !== undefined; f = todo.pop()) {
    if (seen.has(f)) continue;
    seen.add(f);
    for (const m of readFileSync(f, 'utf8').matchAll(IMPORT)) {
      const target = resolve(dirname(f), m[1] ?? m[2] ?? '');
      if (/\.tsx?$/.test(target) && existsSync(target)) todo.push(target);
    }
  }
  return [...seen].map((f) => relative(repo, f)).sort();
}

function goFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.go') && !e.name.endsWith('_test.go') && !e.name.startsWith('zz_generated'))
    .map((e) => join(e.parentPath, e.name))
    .filter((p) => !/\/(testutil|testing|test|hack)\//.test(p));
}

function sum(files: string[]): number {
  return files.reduce((n, f) => n + codeLines(readFileSync(f, 'utf8')), 0);
}

function main(): void {
  const { values } = parseArgs({
    options: { upstream: { type: 'string' }, boxcutter: { type: 'string' }, json: { type: 'boolean' } },
  });
  const repo = resolve(import.meta.dirname, '..');
  const files = reachable(repo, ['cmd/operator-controller/main.ts', 'cmd/catalogd/main.ts']);
  const isNew = (f: string): boolean => Object.keys(NEW_JOBS).some((p) => f.startsWith(p));
  const ours = sum(files.filter((f) => !isNew(f)).map((f) => join(repo, f)));
  const newJobs = sum(files.filter(isNew).map((f) => join(repo, f)));
  const result: Record<string, number> = { ourFiles: files.length, ours, newJobs };
  if (values.upstream !== undefined) {
    const dirs = ['internal/operator-controller', 'internal/catalogd', 'internal/shared', 'cmd', 'api'];
    result.upstream = sum(dirs.flatMap((d) => goFiles(join(values.upstream!, d))));
  }
  if (values.boxcutter !== undefined) result.boxcutter = sum(goFiles(values.boxcutter).filter((p) => !p.includes('/cmd/')));
  if (result.upstream !== undefined) result.ratio = Math.round((ours / (result.upstream + (result.boxcutter ?? 0))) * 100) / 100;
  if (values.json === true) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  for (const [k, v] of Object.entries(result)) process.stdout.write(`${k}\t${v}\n`);
}

if (import.meta.main) main();
