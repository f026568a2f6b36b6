// Pulls through registries.conf against fake registries: mirrors, location rewrites, blocked
// registries, per-source insecure, and the configuration read again at every pull.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isTerminal } from '../errors/index.ts';
import { buildImage } from './build.ts';
import { createDiskImageCache, type ImageCache } from './cache.ts';
import { createImageClient, type ImageClient } from './client.ts';
import { deleteReadOnly } from './fs-tree.ts';
import { RegistryBlockedError } from './pull-sources.ts';
import type { RegistriesConfPaths } from './registries-conf-load.ts';
import { startFakeRegistry, type FakeRegistry } from '../../../test/support/fake-registry.ts';
import { errorOf } from '../../../test/support/image-test-bed.ts';

let dir: string;
let cache: ImageCache;
let mirror: FakeRegistry;
let origin: FakeRegistry;
let confFile: string;
let paths: RegistriesConfPaths;
const clients: ImageClient[] = [];

/** Never contacted: a name that does not resolve, so a request to it would fail the test. */
const SOURCE = 'source.invalid';
const image = buildImage({ files: { 'manifests/csv.yaml': 'kind: ClusterServiceVersion', 'metadata/annotations.yaml': 'annotations: {}' } });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'olmv1-pull-mirrors-'));
  cache = createDiskImageCache(join(dir, 'unpack'));
  [mirror, origin] = await Promise.all([startFakeRegistry(), startFakeRegistry()]);
  confFile = join(dir, 'registries.conf');
  paths = { file: confFile, system: { file: join(dir, 'none'), dir: join(dir, 'none.d') } };
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await Promise.all([mirror.close(), origin.close()]);
  await deleteReadOnly(dir);
});

function client(options: Parameters<typeof createImageClient>[0] = {}): ImageClient {
  const c = createImageClient({ insecureRegistries: [mirror.host, origin.host], registriesConf: paths, ...options });
  clients.push(c);
  return c;
}

async function push(registry: FakeRegistry, repo: string): Promise<void> {
  await createImageClient({ insecureRegistries: [registry.host] }).push(`${registry.host}/${repo}`, image);
}

describe('pulls through registries.conf', () => {
  it('reads a tag and a digest from the mirror, reporting the original name', async () => {
    await push(mirror, 'mirrored/bundle:v1');
    await writeFile(
      confFile,
      `[[registry]]\nprefix = "${SOURCE}/team"\nlocation = "${SOURCE}/team"\n[[registry.mirror]]\nlocation = "${mirror.host}/mirrored"\n`,
    );
    const c = client();
    const byTag = await c.pull(`${SOURCE}/team/bundle:v1`, { owner: 'tag', cache });
    expect(byTag.digestRef).toBe(`${SOURCE}/team/bundle@${image.digest}`);
    const files = await c.readImageFiles(`${SOURCE}/team/bundle@${image.digest}`);
    expect(files.digestRef).toBe(`${SOURCE}/team/bundle@${image.digest}`);
    expect([...files.files.keys()]).toEqual(['manifests/csv.yaml', 'metadata/annotations.yaml']);
    const opened = await c.openLayers(`${SOURCE}/team/bundle:v1`, {});
    expect(opened.digestRef).toBe(`${SOURCE}/team/bundle@${image.digest}`);
    for (const layer of opened.layers) for await (const _ of layer.open()) void _;
    expect(mirror.requests).toContain(`HEAD /v2/mirrored/bundle/manifests/v1`);
    expect(mirror.requests).toContain(`GET /v2/mirrored/bundle/blobs/${image.layers[0]?.digest ?? ''}`);
  });

  it('falls back to the rewritten location when the mirror lacks the image, and re-reads the file at every pull', async () => {
    await push(origin, 'real/bundle:v1');
    await writeFile(
      confFile,
      `[[registry]]\nprefix = "${SOURCE}"\nlocation = "${origin.host}/real"\n[[registry.mirror]]\nlocation = "${mirror.host}/m"\n`,
    );
    const c = client();
    expect((await c.resolveDigest(`${SOURCE}/bundle:v1`)).digest).toBe(image.digest);
    expect(mirror.requests.some((r) => r.startsWith('HEAD /v2/m/bundle/manifests/v1'))).toBe(true);

    await writeFile(confFile, `[[registry]]\nlocation = "${SOURCE}"\nblocked = true\n`);
    const err = await errorOf(c.resolveDigest(`${SOURCE}/bundle:v1`));
    expect(err.message).toBe(`error getting manifest: registry ${SOURCE} is blocked in ${confFile}`);
    expect(err.cause).toBeInstanceOf(RegistryBlockedError);
    expect(isTerminal(err)).toBe(false);
  });

  it('reports every source when all fail, the registry itself last', async () => {
    await writeFile(
      confFile,
      `[[registry]]\nprefix = "${SOURCE}"\nlocation = "${origin.host}/real"\n[[registry.mirror]]\nlocation = "${mirror.host}/m"\n`,
    );
    const err = await errorOf(client().pull(`${SOURCE}/x@${image.digest}`, { owner: 'x', cache }));
    expect(err.message).toBe(
      `error copying image: (Mirrors also failed: [${mirror.host}/m/x@${image.digest}: error reading manifest ${image.digest} in ${mirror.host}/m/x: ` +
        `HTTP 404 Not Found: MANIFEST_UNKNOWN: manifest unknown]): ${origin.host}/real/x@${image.digest}: ` +
        `error reading manifest ${image.digest} in ${origin.host}/real/x: HTTP 404 Not Found: MANIFEST_UNKNOWN: manifest unknown`,
    );
  });

  it('never contacts a blocked registry, but uses its mirrors', async () => {
    await push(mirror, 'q/app:v1');
    await writeFile(
      confFile,
      `[[registry]]\nlocation = "${origin.host}"\nblocked = true\n[[registry.mirror]]\nlocation = "${mirror.host}/q"\npull-from-mirror = "digest-only"\n`,
    );
    const c = client();
    const tagErr = await errorOf(c.pull(`${origin.host}/app:v1`, { owner: 'a', cache }));
    expect(tagErr.message).toBe(`error getting manifest: registry ${origin.host} is blocked in ${confFile}`);
    const pulled = await c.pull(`${origin.host}/app@${image.digest}`, { owner: 'a', cache });
    expect(pulled.digestRef).toBe(`${origin.host}/app@${image.digest}`);
    expect(origin.requests).toEqual([]);
  });

  it('reaches an insecure source over plain HTTP after HTTPS gets no answer, and a secure one not at all', async () => {
    await push(mirror, 'm/app:v1');
    await writeFile(confFile, `[[registry]]\nlocation = "${SOURCE}"\n[[registry.mirror]]\nlocation = "${mirror.host}/m"\ninsecure = true\n`);
    const insecure = client({ insecureRegistries: [] });
    expect((await insecure.pull(`${SOURCE}/app:v1`, { owner: 'i', cache })).digest).toBe(image.digest);

    await writeFile(confFile, `[[registry]]\nlocation = "${SOURCE}"\n[[registry.mirror]]\nlocation = "${mirror.host}/m"\n`);
    const err = await errorOf(client({ insecureRegistries: [] }).resolveDigest(`${SOURCE}/app:v1`));
    expect(err.message).toMatch(
      new RegExp(
        `^error getting manifest: \\(Mirrors also failed: \\[${mirror.host}/m/app:v1: Get "https://${mirror.host}/v2/m/app/manifests/v1": .*wrong version number`,
      ),
    );
  });

  it('fails every pull while the file is broken, naming file and line', async () => {
    await writeFile(confFile, '[[registry]]\nlocation = "q.io"\ninsecure = "yes"\n');
    const err = await errorOf(client().pull(`${SOURCE}/app:v1`, { owner: 'b', cache }));
    expect(err.message).toBe(`loading registries configuration ${JSON.stringify(confFile)}: line 1: insecure: expected a boolean, found a string`);
    expect(isTerminal(err)).toBe(false);
  });
});
