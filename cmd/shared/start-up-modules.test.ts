/**
 * What each component loads before it answers (decision 0097), checked in a fresh process:
 * catalogd's entry and composition up to serving its stored content, operator-controller's up
 * to its readiness (default metrics included), load neither zod nor the YAML emulation nor
 * prom-client's index (with @opentelemetry/api); those come with the control parts. The check itself sees them when a
 * control part is loaded.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url);

/** The URLs of the modules a fresh process loads importing `modules` (repository paths). */
async function loadedBy(modules: string[]): Promise<string[]> {
  const imports = modules.map((m) => `await import(${JSON.stringify(new URL(m, root).href)});`).join('\n');
  const script = `import { registerHooks } from 'node:module';
const seen = [];
registerHooks({ load(url, context, next) { seen.push(url); return next(url, context); } });
${imports}
process.stdout.write(JSON.stringify(seen));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: root, maxBuffer: 16 << 20 });
  return JSON.parse(stdout) as string[];
}

const LATER = [/\/node_modules\/zod\//, /\/node_modules\/@opentelemetry\//, /\/node_modules\/prom-client\/index\.js$/, /\/pkg\/gocompat\/goyaml\//];
const later = (urls: string[]): string[] => urls.filter((u) => LATER.some((re) => re.test(u)));

describe('modules loaded before a component answers', () => {
  it('catalogd, up to serving stored content: no zod, YAML emulation or prom-client index', async () => {
    const serving = await loadedBy(['cmd/shared/main.ts', 'cmd/catalogd/options.ts', 'cmd/catalogd/run.ts']);
    expect(serving.some((u) => u.endsWith('/cmd/catalogd/run.ts'))).toBe(true);
    expect(later(serving)).toEqual([]);
  });

  it('operator-controller, up to ready: no zod, YAML emulation or prom-client index', async () => {
    const ready = await loadedBy(['cmd/shared/main.ts', 'cmd/operator-controller/options.ts', 'cmd/operator-controller/run.ts']);
    expect(ready.some((u) => u.endsWith('/cmd/operator-controller/run.ts'))).toBe(true);
    expect(later(ready)).toEqual([]);
  });

  it('sees them once a control part is loaded', async () => {
    const all = await loadedBy(['cmd/catalogd/run.ts', 'cmd/catalogd/control.ts']);
    expect(all.some((u) => /\/node_modules\/zod\//.test(u))).toBe(true);
    expect(all.some((u) => /\/node_modules\/prom-client\/index\.js$/.test(u))).toBe(true);
  });
});
