/**
 * A catalogd content store (LocalDirStore) in a new temporary directory holding one catalog,
 * for tests of what serves from it (the catalog server, the GraphQL endpoint).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { LocalDirStore, type StoredVersion, type VersionInfo } from '../../pkg/catalogd/storage/index.ts';
import type { Meta } from '../../pkg/shared/fbc/types.ts';

/** A store that serves what `root` holds and ingests nothing, opened. */
export async function openStore(root: string): Promise<LocalDirStore> {
  const store = new LocalDirStore({ root, ingest: () => Promise.reject(new Error('unused')), logger: pino({ level: 'silent' }) });
  await store.open();
  return store;
}

/**
 * A store under a temp directory named by `prefix` holding `metas` as catalog `name` (`info`:
 * by default a digest and reference made of the name); `remove` closes it and deletes it all.
 */
export async function storeWith(
  prefix: string,
  name: string,
  metas: Meta[],
  info?: VersionInfo,
): Promise<{ root: string; store: LocalDirStore; version: StoredVersion; remove: () => Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  const store = await openStore(root);
  const digest = `sha256:${Buffer.from(name).toString('hex').padEnd(64, '0').slice(0, 64)}`;
  const version = await store.store(name, info ?? { digest, ref: `r.test/${name}@${digest}`, unpackedAt: '2026-01-01T00:00:00Z' }, { metas });
  return {
    root,
    store,
    version,
    remove: async () => {
      await store.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
