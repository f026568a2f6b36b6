import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateCatalog } from '../../test/fixtures/generate/catalog.ts';
import { captureIO } from '../../test/support/command-io.ts';
import { testTempDir } from '../../test/support/temp-dir.ts';
import { freePorts } from '../../pkg/olmv1/localstack/index.ts';
import { type CatalogServeDeps, runCatalogServe } from './catalog-serve.ts';

const io = captureIO;

async function catalogDir(docs: object[]): Promise<string> {
  const dir = await testTempDir('serve-test-');
  await mkdir(join(dir, 'pkg'));
  await writeFile(join(dir, 'pkg', 'catalog.json'), docs.map((d) => JSON.stringify(d)).join('\n'));
  return dir;
}

async function deps(signal: AbortSignal = new AbortController().signal, progressIntervalMs?: number): Promise<CatalogServeDeps> {
  return { signal, tmpDir: await testTempDir('serve-store-'), ...(progressIntervalMs === undefined ? {} : { progressIntervalMs }) };
}

// Ingests run in Node processes: slow on a busy machine, not timing-dependent.
describe('olmv1 catalog serve', { timeout: 90_000 }, () => {
  it('serves each directory under its name until stopped, then exits 130 (SIGINT) and removes its store', async () => {
    const a = await catalogDir([{ schema: 'olm.package', name: 'a', defaultChannel: 'stable' }]);
    const b = await catalogDir([
      { schema: 'olm.package', name: 'b', defaultChannel: 'stable' },
      { schema: 'olm.channel', package: 'b', name: 'stable', entries: [] },
    ]);
    const [port] = await freePorts(1);
    const stop = new AbortController();
    const cli = io();
    const d = await deps(stop.signal);
    const running = runCatalogServe([`first=${a}`, `second=${b}`, '--listen', `127.0.0.1:${port}`], cli, d);
    const base = `http://127.0.0.1:${port}/catalogs`;
    await expect
      .poll(
        () =>
          fetch(`${base}/first/api/v1/all`).then(
            (r) => r.status,
            () => 0,
          ),
        { timeout: 15_000 },
      )
      .toBe(200);
    expect(await (await fetch(`${base}/first/api/v1/all`)).text()).toBe('{"defaultChannel":"stable","name":"a","schema":"olm.package"}\n');
    expect(await (await fetch(`${base}/second/api/v1/metas?schema=olm.channel`)).text()).toBe(
      '{"entries":[],"name":"stable","package":"b","schema":"olm.channel"}\n',
    );
    expect((await fetch(`${base}/third/api/v1/all`)).status).toBe(404);
    stop.abort('SIGINT');
    expect(await running).toBe(130);
    expect(cli.err()).toContain(`serving http://127.0.0.1:${port}/catalogs/first/api/v1/all`);
    expect(cli.err()).toMatch(/^loaded catalog first: 0\.0 MB of content in \d+\.\d s$/m);
    expect(cli.err()).toMatch(/\nstopped\n$/);
    expect(await readdir(d.tmpDir)).toEqual([]);
  });

  it('stops in the middle of an ingest on SIGTERM: exits 143, kills the ingest and removes its store', async () => {
    const big = await testTempDir('serve-big-');
    await generateCatalog(big, { bundles: 3000, seed: 7 });
    const stop = new AbortController();
    const cli = io();
    // Abort at the first progress report: the ingest is then under way.
    cli.stderr.on('data', (c: Buffer) => {
      if (c.toString().includes('MB of content written')) stop.abort('SIGTERM');
    });
    const d = await deps(stop.signal, 20);
    expect(await runCatalogServe([`big=${big}`, '--listen', '127.0.0.1:0'], cli, d)).toBe(143);
    expect(cli.err()).toMatch(/^loading catalog big from .*\nloading catalog big: \d+\.\d MB of content written, \d+\.\d s\n/);
    expect(cli.err()).not.toContain('loaded catalog');
    expect(cli.err()).not.toContain('serving');
    expect(await readdir(d.tmpDir)).toEqual([]);
  });

  it('refuses a catalog that does not load, naming the file, and serves nothing', async () => {
    const bad = await testTempDir('serve-bad-');
    await writeFile(join(bad, 'broken.json'), '{"schema": }');
    const cli = io();
    expect(await runCatalogServe([`bad=${bad}`, '--listen', '127.0.0.1:0'], cli, await deps())).toBe(1);
    expect(cli.err()).toMatch(/catalog bad: broken\.json:1: /);
  });

  it('rejects usage errors, duplicate names among them', async () => {
    const d = await deps();
    expect(await runCatalogServe([], io(), d)).toBe(2);
    expect(await runCatalogServe(['Bad_Name=/tmp'], io(), d)).toBe(2);
    expect(await runCatalogServe(['x=/tmp', '--listen', 'nope'], io(), d)).toBe(2);
    const dup = io();
    expect(await runCatalogServe(['x=/tmp', 'y=/tmp', 'x=/var'], dup, d)).toBe(2);
    expect(dup.err()).toMatch(/^duplicate catalog name "x": each NAME=DIR needs its own NAME\n/);
    const missing = io();
    expect(await runCatalogServe(['x=/does/not/exist'], missing, d)).toBe(1);
    expect(missing.err()).toContain('is not a directory');
    expect(await readdir(d.tmpDir)).toEqual([]);
  });
});
