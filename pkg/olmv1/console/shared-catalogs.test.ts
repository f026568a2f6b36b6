import { describe, expect, it } from 'vitest';
import { createSharedCatalogs } from './shared-catalogs.ts';
import type { ConsoleCatalog } from './sources.ts';

const catalog = (n: string): ConsoleCatalog => ({
  packageNames: [n],
  load: () => ({ packages: [], channels: [], bundles: [], deprecations: [], others: [] }),
});

describe('shared catalog reads', () => {
  it('reads a catalog once per key, again for a new key, and forgets a failed read', async () => {
    const shared = createSharedCatalogs();
    let reads = 0;
    const read = (n: string) => () => {
      reads++;
      return Promise.resolve(catalog(n));
    };
    const [a, b] = await Promise.all([shared.get('c', 'd1', read('one')), shared.get('c', 'd1', read('two'))]);
    expect(a).toBe(b);
    expect(reads).toBe(1);
    expect((await shared.get('c', 'd2', read('three'))).packageNames).toEqual(['three']);
    expect(shared.size()).toBe(1);
    await expect(shared.get('x', 'd1', () => Promise.reject(new Error('catalogd down')))).rejects.toThrow('catalogd down');
    await Promise.resolve();
    expect(shared.size()).toBe(1);
    expect((await shared.get('x', 'd1', read('four'))).packageNames).toEqual(['four']);
    expect(reads).toBe(3);
  });
});
