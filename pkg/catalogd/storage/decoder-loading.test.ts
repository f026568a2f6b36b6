/**
 * catalogd's long-running process ingests in a child process, so it must not load the catalog
 * decoder (pkg/shared/fbc and the YAML parser): that code cost its steady RSS about 1.4 MB (decision
 * 0087). This checks, in fresh processes, which modules catalogd's content side and its catalog
 * controller load, and that the in-process ingest still loads the decoder on first use.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = new URL('../../../', import.meta.url);

/** Runs `body` (ES module code, top-level await allowed) and returns the file URLs it loaded. */
async function loadedBy(body: string): Promise<string[]> {
  const script = [
    "import { registerHooks } from 'node:module';",
    'const loaded = [];',
    'registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });',
    body,
    'process.stdout.write(JSON.stringify(loaded));',
  ].join('\n');
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: root });
  return JSON.parse(stdout) as string[];
}

const importOf = (path: string): string => `const m_${path.replace(/\W/g, '_')} = await import(${JSON.stringify(new URL(path, root).href)});`;
const decoder = (urls: string[]): string[] => urls.filter((u) => u.includes('/pkg/shared/fbc/') || u.includes('/node_modules/js-yaml/'));

describe('catalog decoder loading', () => {
  it('is not loaded by catalogd content side', async () => {
    const urls = await loadedBy(['pkg/catalogd/storage/index.ts', 'pkg/catalogd/server/index.ts'].map(importOf).join('\n'));
    expect(urls.some((u) => u.includes('/pkg/catalogd/storage/local-dir-store.ts'))).toBe(true);
    expect(decoder(urls)).toEqual([]);
  });

  it('is not loaded by the catalog controller (the YAML parser comes with pkg/shared/kube, for kubeconfig files)', async () => {
    const urls = await loadedBy(importOf('pkg/catalogd/clustercatalog/index.ts'));
    expect(urls.some((u) => u.includes('/pkg/catalogd/clustercatalog/catalog-content.ts'))).toBe(true);
    expect(urls.filter((u) => u.includes('/pkg/shared/fbc/'))).toEqual([]);
  });

  it('is loaded by the in-process ingest on first use', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'decoder-loading-'));
    try {
      const fbc = join(dir, 'fbc');
      await mkdir(fbc);
      await writeFile(join(fbc, 'catalog.json'), '{"schema":"olm.package","name":"foo"}\n');
      const storage = new URL('pkg/catalogd/storage/index.ts', root).href;
      const target = join(dir, 'out');
      const urls = await loadedBy(
        [
          `const { ingestInProcess } = await import(${JSON.stringify(storage)});`,
          "const { mkdir } = await import('node:fs/promises');",
          `await mkdir(${JSON.stringify(target)});`,
          `const summary = await ingestInProcess(${JSON.stringify(fbc)}, ${JSON.stringify(target)});`,
          'if (summary.blobs !== 1) throw new Error(`ingested ${summary.blobs} blobs`);',
        ].join('\n'),
      );
      expect(decoder(urls).length).toBeGreaterThan(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
