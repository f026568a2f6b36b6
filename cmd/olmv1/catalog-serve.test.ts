import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { testTempDir } from '../../test/support/temp-dir.ts';
import { freePorts } from '../../pkg/localstack/index.ts';
import { runCatalogServe } from './catalog-serve.ts';

function io(): { stdout: PassThrough; stderr: PassThrough; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const chunks: Buffer[] = [];
  stderr.on('data', (c: Buffer) => chunks.push(c));
  stdout.resume();
  return { stdout, stderr, err: () => Buffer.concat(chunks).toString() };
}

async function catalogDir(docs: object[]): Promise<string> {
  const dir = await testTempDir('serve-test-');
  await mkdir(join(dir, 'pkg'));
  await writeFile(join(dir, 'pkg', 'catalog.json'), docs.map((d) => JSON.stringify(d)).join('\n'));
  return dir;
}

describe('olmv1 catalog serve', () => {
  it('serves each directory under its name until stopped', async () => {
    const a = await catalogDir([{ schema: 'olm.package', name: 'a', defaultChannel: 'stable' }]);
    const b = await catalogDir([
      { schema: 'olm.package', name: 'b', defaultChannel: 'stable' },
      { schema: 'olm.channel', package: 'b', name: 'stable', entries: [] },
    ]);
    const [port] = await freePorts(1);
    const stop = new AbortController();
    const cli = io();
    const running = runCatalogServe([`first=${a}`, `second=${b}`, '--listen', `127.0.0.1:${port}`], cli, stop.signal);
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
    stop.abort();
    expect(await running).toBe(0);
    expect(cli.err()).toContain(`serving http://127.0.0.1:${port}/catalogs/first/api/v1/all`);
  });

  it('refuses a catalog that does not load, naming the file, and serves nothing', async () => {
    const bad = await testTempDir('serve-bad-');
    await writeFile(join(bad, 'broken.json'), '{"schema": }');
    const cli = io();
    expect(await runCatalogServe([`bad=${bad}`, '--listen', '127.0.0.1:0'], cli, new AbortController().signal)).toBe(1);
    expect(cli.err()).toMatch(/catalog bad: broken\.json:1: /);
  });

  it('rejects usage errors', async () => {
    const signal = new AbortController().signal;
    expect(await runCatalogServe([], io(), signal)).toBe(2);
    expect(await runCatalogServe(['Bad_Name=/tmp'], io(), signal)).toBe(2);
    expect(await runCatalogServe(['x=/tmp', '--listen', 'nope'], io(), signal)).toBe(2);
    const missing = io();
    expect(await runCatalogServe(['x=/does/not/exist'], missing, signal)).toBe(1);
    expect(missing.err()).toContain('is not a directory');
  });
});
