import { mkdtemp } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findCause } from '../errors/index.ts';
import { buildImage } from './build.ts';
import { createDiskImageCache, type ImageCache } from './cache.ts';
import { createImageClient, type ImageClient } from './client.ts';
import { deleteReadOnly } from './fs-tree.ts';
import { startFakeRegistry, type FakeRegistry } from '../../../test/support/fake-registry.ts';
import { RegistryTimeoutError } from './timeout.ts';

let dir: string;
let cache: ImageCache;
let registry: FakeRegistry;
let client: ImageClient;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'olmv1-timeout-test-'));
  cache = createDiskImageCache(join(dir, 'unpack'));
  registry = await startFakeRegistry();
  client = createImageClient({ insecureRegistries: [registry.host], timeoutMs: 100, connectTimeoutMs: 100 });
});

afterEach(async () => {
  client.close();
  await registry.close();
  await deleteReadOnly(dir);
});

async function errorOf(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err as Error,
  );
}

const timeoutOf = (err: Error): RegistryTimeoutError | undefined =>
  findCause(err, (e): e is RegistryTimeoutError => e instanceof RegistryTimeoutError);

describe('pull timeouts', () => {
  it('names the layer and the registry when a layer stops arriving', async () => {
    const image = buildImage({ files: { 'manifests/a.yaml': 'x'.repeat(4096) } });
    await client.push(`${registry.host}/b:v1`, image);
    const layer = image.layers[0]?.digest ?? '';
    registry.faults.stallBlobs = new Set([layer]);
    const ref = `${registry.host}/b@${image.digest}`;
    const err = await errorOf(client.pull(ref, { owner: 'ext', cache }));
    expect(err.message).toBe(`pulling image "${ref}": timeout after 100ms reading layer ${layer} from registry ${registry.host}`);
    expect(timeoutOf(err)).toMatchObject({ phase: 'read', ms: 100, registry: registry.host, what: `layer ${layer}` });
    // Nothing half-written stays in the cache.
    expect(await cache.fetch('ext', image.digest)).toBeUndefined();
  });

  it('names the manifest and does not try GET after a HEAD that timed out', async () => {
    await client.push(`${registry.host}/b:v1`, buildImage({ files: { a: 'a' } }));
    registry.faults.stallManifests = true;
    registry.requests.length = 0;
    const ref = `${registry.host}/b:v1`;
    const err = await errorOf(client.pull(ref, { owner: 'ext', cache }));
    expect(err.message).toBe(`pulling image "${ref}": timeout after 100ms reading manifest v1 from registry ${registry.host}`);
    expect(registry.requests).toEqual(['HEAD /v2/b/manifests/v1']);
  });

  it('names a registry that accepts connections and never completes the TLS handshake', async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((s) => {
      sockets.add(s);
      s.on('error', () => undefined);
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const host = `127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
    const tls = createImageClient({ connectTimeoutMs: 100, timeoutMs: 10_000 });
    try {
      const ref = `${host}/b:v1`;
      const err = await errorOf(tls.pull(ref, { owner: 'ext', cache }));
      expect(err.message).toBe(`pulling image "${ref}": timeout after 100ms connecting to registry ${host} to read manifest v1`);
      expect(timeoutOf(err)?.phase).toBe('connect');
    } finally {
      tls.close();
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it('leaves other failures as they were', async () => {
    const err = await errorOf(client.pull(`${registry.host}/missing:v1`, { owner: 'ext', cache }));
    expect(err.message).toMatch(/^error getting manifest: /);
    expect(timeoutOf(err)).toBeUndefined();
  });
});
