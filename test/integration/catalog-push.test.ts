// `olmv1 catalog push` against a real registry: the pushed image carries the catalog under the
// configs label and pulls back byte-identical; invalid catalogs and bad credentials are refused.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { runCatalogPush } from '../../cmd/olmv1/catalog-push.ts';
import { CONFIGS_LOCATION_LABEL } from '../../pkg/shared/api/index.ts';
import { createDiskImageCache, createImageClient } from '../../pkg/shared/image/index.ts';
import { simpleCatalog, writeCatalogDir } from '../support/catalogs.ts';
import { captureIO } from '../support/command-io.ts';
import { testTempDir } from '../support/temp-dir.ts';

const io = captureIO;

const deps = { insecureRegistries: ['127.0.0.1'], defaultAuthFile: undefined };

describe('olmv1 catalog push', () => {
  it('pushes a catalog image whose configs directory pulls back unchanged', async () => {
    const host = inject('envtestRegistries').anonymous.host;
    const files = simpleCatalog('pushed', ['1.0.0', '2.0.0']);
    const dir = await writeCatalogDir(files);
    const ref = `${host}/push-test/catalog:v1`;
    const cli = io();
    expect(await runCatalogPush([dir, ref], cli, deps)).toBe(0);
    const digest = cli.out().trim();
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(cli.err()).toContain(`pushing`);

    const client = createImageClient({ insecureRegistries: ['127.0.0.1'] });
    const cache = createDiskImageCache(await testTempDir('push-test-'));
    const pulled = await client.pull(`${host}/push-test/catalog@${digest}`, { owner: 'p', cache, labelPathFilter: CONFIGS_LOCATION_LABEL });
    client.close();
    expect(pulled.config.labels[CONFIGS_LOCATION_LABEL]).toBe('/configs');
    expect(await readFile(join(pulled.dir, 'configs', 'pushed', 'catalog.json'), 'utf8')).toBe(files['pushed/catalog.json']);
  });

  it('refuses an invalid catalog and pushes nothing', async () => {
    const host = inject('envtestRegistries').anonymous.host;
    const dir = await writeCatalogDir({ 'bad/catalog.json': '{"schema":"olm.package","name":"bad"}\n{"schema":"olm.channel"' });
    const cli = io();
    expect(await runCatalogPush([dir, `${host}/push-test/invalid:v1`], cli, deps)).toBe(1);
    expect(cli.err()).toContain('bad/catalog.json:2:');
    expect(cli.err()).toContain('not pushed');
    const res = await fetch(`http://${host}/v2/push-test/invalid/manifests/v1`);
    expect(res.status).toBe(404);
  });

  it('authenticates with an auth file and reports refused credentials', async () => {
    const auth = inject('envtestRegistries').basicAuth;
    const dir = await writeCatalogDir(simpleCatalog('private', ['1.0.0']));
    const authfile = join(await testTempDir('authfile-'), 'config.json');
    await writeFile(
      authfile,
      JSON.stringify({ auths: { [auth.host]: { auth: Buffer.from(`${auth.username}:${auth.password}`).toString('base64') } } }),
    );
    const ok = io();
    expect(await runCatalogPush([dir, `${auth.host}/push-test/private:v1`, '--authfile', authfile], ok, deps)).toBe(0);
    const denied = io();
    expect(await runCatalogPush([dir, `${auth.host}/push-test/private:v2`], denied, deps)).toBe(1);
    expect(denied.err()).toMatch(/Error: pushing .*401/);
  });

  it('rejects usage errors', async () => {
    const cli = io();
    expect(await runCatalogPush(['only-one-arg'], cli, deps)).toBe(2);
    const dir = await writeCatalogDir(simpleCatalog('x', ['1.0.0']));
    expect(await runCatalogPush([dir, 'not a reference'], io(), deps)).toBe(2);
  });
});
