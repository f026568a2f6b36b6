/**
 * Resolution on a large package (about 1,000 bundles, the size of the largest package in a
 * 5,000-bundle catalog), with pre-releases, build metadata, skipRanges and skips. How long it
 * takes is measured by the resolution benchmark (bench/benchmarks/resolution.ts, its
 * 1,000-bundle stress case); here: what each kind of query resolves to.
 */
import { describe, expect, it } from 'vitest';
import type { Bundle, Channel, DeclarativeConfig } from '../../shared/fbc/types.ts';
import { resolve, type ResolveInput } from './index.ts';
import { partition } from '../../../test/support/fbc-builders.ts';

function largePackage(): DeclarativeConfig {
  const bundles: Bundle[] = [];
  const channels: Channel[] = [];
  for (let minor = 0; minor < 20; minor++) {
    const entries: Channel['entries'] = [];
    for (let patch = 0; patch < 50; patch++) {
      const name = `big.v1.${minor}.${patch}`;
      const version = patch % 10 === 9 ? `1.${minor}.${patch}-rc.1` : `1.${minor}.${patch}+${patch % 3}`;
      bundles.push({
        schema: 'olm.bundle',
        name,
        package: 'big',
        image: `registry.example/big@sha256:${String(minor * 100 + patch).padStart(64, '0')}`,
        properties: [
          { type: 'olm.package', value: { packageName: 'big', version } },
          { type: 'olm.gvk', value: { group: 'example.com', kind: 'Thing', version: 'v1' } },
          { type: 'olm.csv.metadata', value: { displayName: 'Big', description: 'x'.repeat(200) } },
        ],
      });
      entries.push({
        name,
        ...(patch > 0 ? { replaces: `big.v1.${minor}.${patch - 1}` } : {}),
        ...(patch % 5 === 0 ? { skipRange: `>=1.${minor}.0 <1.${minor}.${patch}` } : {}),
        ...(patch % 7 === 0 && patch > 1 ? { skips: [`big.v1.${minor}.${patch - 2}`] } : {}),
      });
    }
    channels.push({ schema: 'olm.channel', name: `stable-1.${minor}`, package: 'big', entries });
  }
  return partition({ bundles, channels }, 'big');
}

describe('resolution on a ~1,000-bundle package', () => {
  const fbc = largePackage();
  const catalogs = [{ name: 'big-catalog', priority: 0, package: fbc }];

  // 1.x.9, 1.x.19, ... are pre-releases; every fifth patch skips back to 1.x.0 (skipRange).
  it.each<[string, Partial<ResolveInput>, string]>([
    ['no filters: the highest version, a pre-release among them', {}, 'big.v1.19.49'],
    ['a version range: no pre-releases', { versionRange: '>=1.5.0 <1.9.0' }, 'big.v1.8.48'],
    [
      'a channel and an installed bundle: the highest skipRange covering it',
      { channels: ['stable-1.3'], installed: { name: 'big.v1.3.10', version: '1.3.10+1' } },
      'big.v1.3.45',
    ],
    ['an installed bundle, edges from every channel', { installed: { name: 'big.v1.7.20', version: '1.7.20+2' } }, 'big.v1.7.45'],
  ])('%s', (_, extra, expected) => {
    expect(fbc.bundles).toHaveLength(1000);
    const r = resolve({ packageName: 'big', catalogs, ...extra });
    if (!r.ok) throw new Error(r.error);
    expect(r.value.bundle.name).toBe(expected);
  });
});
