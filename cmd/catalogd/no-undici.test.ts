/**
 * catalogd's memory budget (75 MB RSS) cannot carry undici, which Node loads as soon as any ES
 * module imports `node:http` for values (see pkg/shared/nodehttp). This checks, in a fresh process,
 * that loading catalogd's composition and the other runtime modules leaves undici unloaded,
 * and that the check itself sees undici when a module does import `node:http`.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url);

async function undiciLoadedAfterImporting(modules: string[]): Promise<boolean> {
  const imports = modules.map((m) => `await import(${JSON.stringify(new URL(m, root).href)});`).join('\n');
  const script = `${imports}\nprocess.stdout.write(String(process.moduleLoadList.some((m) => m.includes('undici'))));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: root });
  return stdout.trim() === 'true';
}

describe('runtime modules and undici', () => {
  it('catalogd, the image and catalog clients and the CLI load without undici', async () => {
    const loaded = await undiciLoadedAfterImporting([
      'cmd/catalogd/run.ts',
      'pkg/catalogd/storage/index.ts',
      'pkg/operator-controller/catalogclient/index.ts',
      'pkg/shared/image/index.ts',
      'cmd/olmv1/commands.ts',
    ]);
    expect(loaded).toBe(false);
  });

  it('detects undici when a module imports node:http as an ES module', async () => {
    expect(await undiciLoadedAfterImporting(['pkg/shared/nodehttp/index.ts'])).toBe(false);
    const script = `import http from 'node:http'; void http; process.stdout.write(String(process.moduleLoadList.some((m) => m.includes('undici'))));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
    expect(stdout.trim()).toBe('true');
  });
});
