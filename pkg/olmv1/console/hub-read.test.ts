import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { DeclarativeConfig } from '../../shared/fbc/index.ts';
import { readCatalogs } from './hub-read.ts';
import { sessionCookieName } from './security.ts';
import { startConsole } from './server.ts';
import type { ConsoleCatalog, ConsoleSources } from './sources.ts';

const partition = (name: string): DeclarativeConfig => ({
  packages: [{ schema: 'olm.package', name, defaultChannel: 'stable' }],
  channels: [{ schema: 'olm.channel', package: name, name: 'stable', entries: [{ name: `${name}.v1.0.0` }] }],
  bundles: [
    {
      schema: 'olm.bundle',
      package: name,
      name: `${name}.v1.0.0`,
      image: 'r/x',
      properties: [{ type: 'olm.package', value: { packageName: name, version: '1.0.0' } }],
    },
  ],
  deprecations: [],
  others: [],
});

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
    const dir = await mkdtemp(join(tmpdir(), 'console-assets-'));
    const secrets = { token: 'a'.repeat(43), cookie: 'b'.repeat(43), pageKey: 'k'.repeat(43), csrfToken: 'c'.repeat(43), iconKey: 'i'.repeat(43) };
    const sources = {
      listCatalogs: async () => [{ name: 'c', baseURL: 'http://catalogd/catalogs/c' }],
      // Package `big` is slow to read: the hub's tiles wait for it; a page about `small` does not.
      loadCatalog: async (): Promise<ConsoleCatalog> => ({
        packageNames: ['small', 'big'],
        load: async (p) => {
          if (p === 'big') await tiles.wait;
          return partition(p);
        },
      }),
      listExtensions: async () => [],
    } as unknown as ConsoleSources;
    const running = await startConsole({
      port: 0,
      secrets,
      assetsDir: dir,
      log: pino({ level: 'silent' }),
      catalogTtlMs: 30_000,
      now: Date.now,
      sources,
    });
    try {
      const headers = { cookie: `${sessionCookieName(new URL(running.origin).port)}=${secrets.cookie}`, 'x-olmv1-session': secrets.pageKey };
      let hubAnswered = false;
      const hub = fetch(`${running.origin}/api/hub`, { headers }).then(async (r) => {
        hubAnswered = true;
        return (await r.json()) as { tiles: { name: string }[] };
      });
      const page = await fetch(`${running.origin}/api/packages/c/small`, { headers });
      expect(page.status).toBe(200);
      expect(((await page.json()) as { name: string }).name).toBe('small');
      expect(hubAnswered).toBe(false);
      expect((await fetch(`${running.origin}/api/packages/c/nothing`, { headers })).status).toBe(404);
      tiles.open();
      expect((await hub).tiles.map((t) => t.name).sort()).toEqual(['big', 'small']);
    } finally {
      await running.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
