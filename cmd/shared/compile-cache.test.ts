import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { explicitCacheDir, startCompileCacheEarly } from './compile-cache.ts';

describe('explicitCacheDir', () => {
  it.each([
    [['--cache-dir=/var/cache/catalogd'], '/var/cache/catalogd'],
    [['--kubeconfig', '/k', '--cache-dir', '/a', '--leader-elect'], '/a'],
    [['--cache-dir', '/a', '--unknown-flag', 'x', '--cache-dir=/b'], '/b'],
    [['--cache-dir=relative/dir'], 'relative/dir'],
  ])('%j names %j', (argv, dir) => {
    expect(explicitCacheDir(argv)).toBe(dir);
  });

  it.each([
    [[]],
    [['--kubeconfig=/k']],
    [['--cache-dir']],
    [['--cache-dir=']],
    [['--cache-dir', '--help']],
    [['--cache-dir', '-h']],
    [['--cache-dir=-x']],
    [['-h', '--cache-dir=/a']],
    [['--cache-dir=/a', '--help']],
    [['--help=false', '--cache-dir=/a']],
    [['--', '--cache-dir=/a']],
    [['--cache-path=/a']],
  ])('%j names none', (argv) => {
    expect(explicitCacheDir(argv)).toBeUndefined();
  });
});

describe('startCompileCacheEarly', () => {
  it('creates nothing when the directory is missing or not a directory', () => {
    const root = mkdtempSync(join(tmpdir(), 'olmv1-compile-cache-'));
    try {
      const missing = join(root, 'missing');
      startCompileCacheEarly([`--cache-dir=${missing}`]);
      expect(existsSync(missing)).toBe(false);
      const file = join(root, 'file');
      writeFileSync(file, '');
      startCompileCacheEarly(['--cache-dir', file]);
      expect(existsSync(join(root, 'file', 'compile-cache'))).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
