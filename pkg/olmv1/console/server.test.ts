import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeclarativeConfig } from '../../shared/fbc/index.ts';
import { startConsole } from './server.ts';

const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64');
const partition = (name: string, mediatype: string): DeclarativeConfig => ({
  packages: [{ schema: 'olm.package', name, defaultChannel: 'stable', icon: { mediatype, base64data: svg } }],
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

let dir: string;
let running: Awaited<ReturnType<typeof startConsole>>;
const token = 'a'.repeat(43);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'console-assets-'));
  await writeFile(join(dir, 'main.js'), 'export {};');
  running = await startConsole({
    port: 0,
    token,
    csrfToken: 'c'.repeat(43),
    assetsDir: dir,
    log: pino({ level: 'silent' }),
    catalogTtlMs: 30_000,
    now: () => Date.now(),
    sources: {
      listCatalogs: async () => [
        { name: 'c', baseURL: 'http://catalogd/catalogs/c' },
        { name: 'unserved', baseURL: { error: 'not served yet' } },
      ],
      loadCatalog: async () => ({ packageNames: ['good', 'html'], load: (p) => partition(p, p === 'good' ? 'image/svg+xml' : 'text/html') }),
      listExtensions: async () => {
        throw Object.assign(new Error('clusterextensions.olm.operatorframework.io is forbidden: User "u" cannot list resource'), { status: 403 });
      },
    },
  });
});

afterAll(async () => {
  await running?.close();
  await rm(dir, { recursive: true, force: true });
});

const get = (path: string) => fetch(`${running.origin}${path}`, { headers: { cookie: `olmv1_console_session=${token}` } });

describe('console server', () => {
  it('serves icons only with image media types, sandboxed', async () => {
    const good = await get('/api/icons/c/good');
    expect(good.status).toBe(200);
    expect(good.headers.get('content-type')).toBe('image/svg+xml');
    expect(good.headers.get('content-security-policy')).toContain('sandbox');
    expect((await get('/api/icons/c/html')).status).toBe(404);
    expect((await get('/api/icons/c/missing')).status).toBe(404);
  });

  it("lists the hub even when the user may not list ClusterExtensions, with the API server's refusal and the unserved catalog as problems", async () => {
    const hub = (await (await get('/api/hub')).json()) as { tiles: { name: string; hasIcon: boolean; installed: boolean }[]; problems: string[] };
    expect(hub.tiles.map((t) => [t.name, t.hasIcon, t.installed])).toEqual([
      ['good', true, false],
      ['html', false, false],
    ]);
    expect(hub.problems).toEqual([
      'catalog unserved: not served yet',
      'ClusterExtensions (for the Installed badges): clusterextensions.olm.operatorframework.io is forbidden: User "u" cannot list resource',
    ]);
    const installed = await get('/api/extensions');
    expect(installed.status).toBe(403);
    expect(((await installed.json()) as { error: string }).error).toContain('forbidden');
  });

  it('serves only files of the bundle directory with known types', async () => {
    expect((await get('/assets/main.js')).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await get('/assets/..%2f..%2fetc%2fpasswd')).status).toBe(404);
    expect((await get('/assets/missing.js')).status).toBe(404);
  });
});
