import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findCause } from '../errors/index.ts';
import { buildImage } from './build.ts';
import { createImageClient, type ImageClient } from './client.ts';
import { deleteReadOnly } from './fs-tree.ts';
import { errorOf, imageTestBed } from '../../../test/support/image-test-bed.ts';
import { RegistryTimeoutError } from './timeout.ts';

const bed = imageTestBed('olmv1-timeout-test-', deleteReadOnly);
let client: ImageClient;

beforeEach(() => {
  client = createImageClient({ insecureRegistries: [bed().registry.host], timeoutMs: 100, connectTimeoutMs: 100 });
});

afterEach(() => client.close());

const timeoutOf = (err: Error): RegistryTimeoutError | undefined =>
  findCause(err, (e): e is RegistryTimeoutError => e instanceof RegistryTimeoutError);

describe('pull timeouts', () => {
  it('names the layer and the registry when a layer stops arriving', async () => {
    const image = buildImage({ files: { 'manifests/a.yaml': 'x'.repeat(4096) } });
    await client.push(`${bed().registry.host}/b:v1`, image);
    const layer = image.layers[0]?.digest ?? '';
    bed().registry.faults.stallBlobs = new Set([layer]);
    const ref = `${bed().registry.host}/b@${image.digest}`;
    const err = await errorOf(client.pull(ref, { owner: 'ext', cache: bed().cache }));
    expect(err.message).toBe(`pulling image "${ref}": timeout after 100ms reading layer ${layer} from registry ${bed().registry.host}`);
    expect(timeoutOf(err)).toMatchObject({ phase: 'read', ms: 100, registry: bed().registry.host, what: `layer ${layer}` });
    // Nothing half-written stays in the bed().cache.
    expect(await bed().cache.fetch('ext', image.digest)).toBeUndefined();
  });

  it('names the manifest and does not try GET after a HEAD that timed out', async () => {
    await client.push(`${bed().registry.host}/b:v1`, buildImage({ files: { a: 'a' } }));
    bed().registry.faults.stallManifests = true;
    bed().registry.requests.length = 0;
    const ref = `${bed().registry.host}/b:v1`;
    const err = await errorOf(client.pull(ref, { owner: 'ext', cache: bed().cache }));
    expect(err.message).toBe(`pulling image "${ref}": timeout after 100ms reading manifest v1 from registry ${bed().registry.host}`);
    expect(bed().registry.requests).toEqual(['HEAD /v2/b/manifests/v1']);
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
      const err = await errorOf(tls.pull(ref, { owner: 'ext', cache: bed().cache }));
      expect(err.message).toBe(`pulling image "${ref}": timeout after 100ms connecting to registry ${host} to read manifest v1`);
      expect(timeoutOf(err)?.phase).toBe('connect');
    } finally {
      tls.close();
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it('leaves other failures as they were', async () => {
    const err = await errorOf(client.pull(`${bed().registry.host}/missing:v1`, { owner: 'ext', cache: bed().cache }));
    expect(err.message).toMatch(/^error getting manifest: /);
    expect(timeoutOf(err)).toBeUndefined();
  });
});
