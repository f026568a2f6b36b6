import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codeCacheFile, loadBundle } from './bundle-loader.ts';

// A CommonJS bundle as esbuild writes one: requires, its own __filename, an export called later.
const BUNDLE = `"use strict";
const { basename } = require("node:path");
function twice(n) { return 2 * n; }
module.exports.main = () => [basename(__filename), twice(21)];
`;

describe('loadBundle', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'olmv1-bundle-loader-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the bundle as CommonJS and uses the code cache it wrote on the next start', () => {
    const file = join(dir, 'start.cjs');
    writeFileSync(file, BUNDLE);
    const cacheDir = join(dir, 'cache');
    mkdirSync(cacheDir);

    const first = loadBundle(file, codeCacheFile(cacheDir, file));
    expect(first.cacheUsed).toBe(false);
    expect((first.exports['main'] as () => unknown)()).toEqual(['start.cjs', 42]);
    first.saveCodeCache();
    expect(existsSync(join(cacheDir, 'compile-cache', 'start.cjs.v8-code-cache'))).toBe(true);

    const second = loadBundle(file, codeCacheFile(cacheDir, file));
    expect(second.cacheUsed).toBe(true);
    expect((second.exports['main'] as () => unknown)()).toEqual(['start.cjs', 42]);
  });

  it('compiles a changed bundle afresh and replaces the cache V8 rejected', () => {
    const file = join(dir, 'start.cjs');
    writeFileSync(file, BUNDLE);
    mkdirSync(join(dir, 'cache'));
    const cache = codeCacheFile(join(dir, 'cache'), file);
    loadBundle(file, cache).saveCodeCache();

    writeFileSync(file, `${BUNDLE}module.exports.other = 1;\n`);
    const changed = loadBundle(file, cache);
    expect(changed.cacheUsed).toBe(false);
    expect(changed.exports['other']).toBe(1);
    changed.saveCodeCache();
    expect(loadBundle(file, cache).cacheUsed).toBe(true);
  });

  it('runs without a cache; a missing or unwritable cache directory only means compiling, and is not created', () => {
    const file = join(dir, 'start.cjs');
    writeFileSync(file, BUNDLE);
    expect(loadBundle(file, undefined).cacheUsed).toBe(false);
    loadBundle(file, codeCacheFile(join(dir, 'missing'), file)).saveCodeCache();
    expect(existsSync(join(dir, 'missing'))).toBe(false);
    // A file where the directory would be: the write fails quietly.
    writeFileSync(join(dir, 'blocked'), '');
    const blocked = loadBundle(file, codeCacheFile(join(dir, 'blocked'), file));
    expect(() => blocked.saveCodeCache()).not.toThrow();
    expect(loadBundle(file, codeCacheFile(join(dir, 'blocked'), file)).cacheUsed).toBe(false);
  });
});

describe('runBundle', () => {
  it('with --enable-source-maps, loads the bundle through Node so that stack traces name the sources', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'olmv1-bundle-loader-'));
    try {
      writeFileSync(
        join(dir, 'start.ts'),
        'export async function main(): Promise<void> {\n  const n: number = 1;\n  throw new Error(`failed ${n}`);\n}\n',
      );
      const esbuild = await import('esbuild');
      const outfile = join(dir, 'start.cjs');
      await esbuild.build({
        entryPoints: [join(dir, 'start.ts')],
        outfile,
        bundle: true,
        platform: 'node',
        format: 'cjs',
        sourcemap: 'linked',
        logLevel: 'silent',
      });
      const run = `import { runBundle } from ${JSON.stringify(fileURLToPath(new URL('./bundle-loader.ts', import.meta.url)))};
await runBundle(new URL(${JSON.stringify(pathToFileURL(outfile).href)}), 'main', []);`;
      const traced = spawnSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', run], { encoding: 'utf8' });
      expect(traced.stderr).toMatch(/start\.ts:3:/);
      const plain = spawnSync(process.execPath, ['--input-type=module', '-e', run], { encoding: 'utf8' });
      expect(plain.stderr).toMatch(/start\.cjs:\d+:/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
