import { describe, expect, it, vi } from 'vitest';
import { chainedPackage } from '../../../test/support/extension-ports.ts';
import { startTestConsole } from '../../../test/support/console-routes.ts';
import { readCatalogs } from './hub-read.ts';
import type { ConsoleCatalog, ConsoleSources } from './sources.ts';

const partition = (name: string) => chainedPackage(name, ['1.0.0']);

/** A promise and the function that settles it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

describe('readCatalogs', () => {
  it('reads the next catalogs while one is slow, and keeps the order listed', async () => {
    const slow = gate();
    const started: string[] = [];
    const sources = {
      listCatalogs: async () => [
        { name: 'slow', baseURL: 'http://catalogd/catalogs/slow' },
        { name: 'gone', baseURL: { error: 'not served yet' } },
        { name: 'fast', baseURL: 'http://catalogd/catalogs/fast' },
      ],
      loadCatalog: async (name: string): Promise<ConsoleCatalog> => {
        started.push(name);
        if (name === 'slow') await slow.wait;
        return { packageNames: [name], load: () => partition(name) };
      },
    } as unknown as ConsoleSources;
    const read = readCatalogs(sources, undefined, AbortSignal.timeout(10_000));
    await vi.waitFor(() => expect(started).toEqual(['slow', 'fast']));
    slow.open();
    const set = await read;
    expect([...set.catalogs.keys()]).toEqual(['slow', 'fast']);
    expect(set.problems).toEqual(['catalog gone: not served yet']);
    expect(Object.keys(set.badges).sort()).toEqual(['fast', 'gone', 'slow']);
  });
});

describe('the console while its hub is read', () => {
  it("answers a package's page before every package's tile is made", async () => {
    const tiles = gate();
    const running = await startTestConsole({
      listCatalogs: async () => [{ name: 'c', baseURL: 'http://catalogd/catalogs/c' }],
      // Package `big` is slow to read: the hub's tiles wait for it; a page about `small` does not.
      loadCatalog: async (): Promise<ConsoleCatalog> => ({
        packageNames: ['small', 'big'],
        load: async (p) => {
          if (p === 'big') await tiles.wait;
          return partition(p);
        },
      }),
    });
    try {
      let hubAnswered = false;
      const hub = running.get('/api/hub').then(async (r) => {
        hubAnswered = true;
        return (await r.json()) as { tiles: { name: string }[] };
      });
      const page = await running.get('/api/packages/c/small');
      expect(page.status).toBe(200);
      expect(((await page.json()) as { name: string }).name).toBe('small');
      expect(hubAnswered).toBe(false);
      expect((await running.get('/api/packages/c/nothing')).status).toBe(404);
      tiles.open();
      expect((await hub).tiles.map((t) => t.name).sort()).toEqual(['big', 'small']);
    } finally {
      await running.close();
    }
  });
});
