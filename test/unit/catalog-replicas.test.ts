// Two catalogd replicas behind one address, one of them not yet at the catalog's new digest:
// the real catalog server (pkg/catalogd/server) over the real content store, twice, behind a
// loopback TCP balancer that hands connections out in turn as a Service does, the stale
// replica first; operator-controller's real content cache and client in front. Issue 69: the
// stale replica's answer was cached under the new digest, and the update missed for good.
import { mkdtemp, rm } from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogServer } from '../../pkg/catalogd/server/index.ts';
import { LocalDirStore } from '../../pkg/catalogd/storage/index.ts';
import { createCatalogClient, createCatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import type { Meta } from '../../pkg/shared/fbc/types.ts';

const CATALOG = 'ops';
const OLD = `sha256:${'a'.repeat(64)}`;
const NEW = `sha256:${'b'.repeat(64)}`;

function blob(o: Record<string, unknown> & { schema: string; name: string }): Meta {
  return { schema: o.schema, package: typeof o.package === 'string' ? o.package : '', name: o.name, blob: `${JSON.stringify(o)}\n` };
}

/** Package foo with bundles of `versions` in `channel`, and `others` packages, as one catalog image would hold it. */
function catalog(channel: string, versions: string[], others: string[]): Meta[] {
  return [
    blob({ schema: 'olm.package', name: 'foo', defaultChannel: channel }),
    blob({ schema: 'olm.channel', package: 'foo', name: channel, entries: versions.map((v) => ({ name: `foo.v${v}` })) }),
    ...others.map((name) => blob({ schema: 'olm.package', name })),
    ...versions.map((v) =>
      blob({
        schema: 'olm.bundle',
        package: 'foo',
        name: `foo.v${v}`,
        image: `r.test/foo-bundle:v${v}`,
        properties: [{ type: 'olm.package', value: { packageName: 'foo', version: v } }],
      }),
    ),
  ];
}

/** One catalogd replica's catalog server and store, serving `metas` as CATALOG at `digest`. */
async function replica(root: string, digest: string, metas: Meta[]) {
  const store = new LocalDirStore({ root, ingest: () => Promise.reject(new Error('unused')), logger: pino({ level: 'silent' }) });
  await store.open();
  await store.store(CATALOG, { digest, ref: `r.test/${CATALOG}@${digest}`, unpackedAt: '2026-01-01T00:00:00Z' }, { metas });
  const server = buildCatalogServer({ content: store, logger: pino({ level: 'silent' }), registry: new Registry() });
  const origin = await server.listen({ host: '127.0.0.1', port: 0 });
  return { store, server, port: Number(new URL(origin).port) };
}

/** A TCP balancer on loopback: each new connection goes to the next of `ports`, in turn. */
async function balancer(ports: number[]) {
  let next = 0;
  const picked: number[] = [];
  const server = net.createServer((client) => {
    const port = ports[next++ % ports.length] ?? 0;
    picked.push(port);
    const upstream = net.connect(port, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, picked, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('two catalogd replicas at different digests behind one address', () => {
  let dir: string;
  let stale: Awaited<ReturnType<typeof replica>>;
  let current: Awaited<ReturnType<typeof replica>>;
  let front: Awaited<ReturnType<typeof balancer>>;
  const client = createCatalogClient({ timeoutMs: 10_000 });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'catalog-replicas-'));
    stale = await replica(join(dir, 'stale'), OLD, catalog('stable', ['1.0.0'], []));
    current = await replica(join(dir, 'current'), NEW, catalog('fast', ['1.0.0', '2.0.0'], ['bar']));
    front = await balancer([stale.port, current.port]);
  });
  afterAll(async () => {
    client.close();
    front?.server.close();
    await Promise.all([stale?.server.close(), current?.server.close()]);
    await Promise.all([stale?.store.close(), current?.store.close()]);
    await rm(dir, { recursive: true, force: true });
  });

  it('caches under the new digest only content of the new digest, whichever replica answers first', async () => {
    const cache = createCatalogContentCache({ client });
    const ref = { name: CATALOG, baseURL: `${front.url}/catalogs/${CATALOG}`, digestRef: `r.test/${CATALOG}@${NEW}` };

    // The partition's two queries: the first goes to the stale replica, the second to the other.
    const foo = await cache.getPackage(ref, 'foo');
    expect(front.picked.slice(0, 2)).toEqual([stale.port, current.port]);
    expect(foo.packages.map((p) => [p.name, p.defaultChannel])).toEqual([['foo', 'fast']]);
    expect(foo.channels.map((c) => c.name)).toEqual(['fast']);
    expect(foo.bundles.map((b) => b.name)).toEqual(['foo.v1.0.0', 'foo.v2.0.0']);
    // The names' one query, first to the replica after the last one used.
    expect(await cache.packageNames(ref)).toEqual(new Set(['foo', 'bar']));

    // What is cached is the new content: asked again, nothing is sent.
    const connections = front.picked.length;
    expect((await cache.getPackage(ref, 'foo')).packages.map((p) => p.defaultChannel)).toEqual(['fast']);
    expect(await cache.packageNames(ref)).toEqual(new Set(['foo', 'bar']));
    expect(front.picked.length).toBe(connections);
  });

  it('takes the old content under the old digest from the replica that serves it', async () => {
    const cache = createCatalogContentCache({ client });
    const ref = { name: CATALOG, baseURL: `${front.url}/catalogs/${CATALOG}`, digestRef: `r.test/${CATALOG}@${OLD}` };
    expect((await cache.getPackage(ref, 'foo')).packages.map((p) => p.defaultChannel)).toEqual(['stable']);
    expect(await cache.packageNames(ref)).toEqual(new Set(['foo']));
  });
});
