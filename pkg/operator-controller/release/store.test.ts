// Crash safety of the store's write order, checked exhaustively: the Secret API is an
// in-memory fake that dies at the k-th write, for every k; afterwards a healthy store must
// see either the old or the new state (never an error, never a partial record), and a retry
// must complete the operation and leave no Secret that no index references. The real API
// server's behaviour is proven in test/integration/release-store.test.ts.
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import type { KubeClient, KubeObject, ObjectRef, TypeRef } from '../../shared/kube/index.ts';
import { Crash, fakeSecrets as fakeClient, type SecretStore as Store } from '../../../test/support/fake-secrets.ts';
import { ReleaseStatus, createReleaseStore, releaseJson, type Release } from './index.ts';
import { Manifest } from './manifest.ts';
import { compareManifestsByObjects } from '../../../test/support/manifest-equality.ts';

compareManifestsByObjects();

function rel(revision: number, status: Release['status'], blobBytes: number, description = 'Install complete'): Release {
  return {
    extension: 'acme',
    extensionUID: 'ce-uid',
    revision,
    status,
    bundle: { package: 'acme', name: `acme.v${revision}`, version: `${revision}.0.0`, image: 'quay.io/acme/b@sha256:00' },
    manifest: Manifest.ofObjects([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `blob${revision}` }, data: { blob: randomBytes(blobBytes).toString('base64') } },
    ]),
    properties: [],
    description,
  };
}

/** Every Secret is an index or a chunk some index names. */
function expectNoOrphans(objects: Store): void {
  const referenced = new Set<string>();
  for (const s of objects.values()) {
    if (s.metadata.labels?.['type'] !== 'index') continue;
    referenced.add(s.metadata.name ?? '');
    for (const n of JSON.parse(Buffer.from((s['data'] as Record<string, string>)['extraChunks'] ?? '', 'base64').toString()) as string[])
      referenced.add(n);
  }
  expect([...objects.keys()].filter((n) => !referenced.has(n))).toEqual([]);
}

/** Whether the crash surfaced (as the cause of the store's error) or the operation had already done its part. */
type Outcome = 'crashed' | 'completed';

function causedByCrash(e: unknown): boolean {
  for (let cur: unknown = e; cur instanceof Error; cur = cur.cause) if (cur instanceof Crash) return true;
  return false;
}

async function crashEverywhere(
  seed: Store,
  op: (store: ReturnType<typeof createReleaseStore>) => Promise<void>,
  check: (objects: Store, outcome: Outcome) => Promise<void>,
): Promise<number> {
  const probe = new Map(structuredClone([...seed]));
  const counter = fakeClient(probe);
  await op(createReleaseStore({ client: counter.client, namespace: 'ns' }));
  const total = counter.writes();
  for (let k = 0; k < total; k++) {
    const objects: Store = new Map(structuredClone([...seed]));
    const crashing = fakeClient(objects, k);
    const failure = await op(createReleaseStore({ client: crashing.client, namespace: 'ns' })).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (failure !== undefined) expect(causedByCrash(failure), String(failure)).toBe(true);
    await check(objects, failure === undefined ? 'completed' : 'crashed');
  }
  return total;
}

const NAMESPACE = 'ns';
const history = (objects: Store) => createReleaseStore({ client: fakeClient(objects).client, namespace: NAMESPACE }).history('acme');

describe('a crash at any write', () => {
  it('of a create shows the old history, and the retried create completes it without leftovers', async () => {
    const seed: Store = new Map();
    const v1 = rel(1, ReleaseStatus.Deployed, 1_000);
    await createReleaseStore({ client: fakeClient(seed).client, namespace: NAMESPACE }).create(v1);
    const v2 = rel(2, ReleaseStatus.PendingUpgrade, 800_000);
    const outcomes: Outcome[] = [];
    const total = await crashEverywhere(
      seed,
      (s) => s.create(v2),
      async (objects, outcome) => {
        outcomes.push(outcome);
        const seen = await history(objects);
        if (outcome === 'completed') {
          // Only the chunks' re-owning was cut short: the record is whole.
          expect(seen).toEqual([v2, v1]);
        } else {
          expect(seen.map((r) => r.revision)).toEqual([1]);
          // The controller retries with content of the moment (another timestamp, say).
          const retried = { ...v2, description: 'Upgrade retried' };
          await createReleaseStore({ client: fakeClient(objects).client, namespace: NAMESPACE }).create(retried);
          expect(await history(objects)).toEqual([retried, v1]);
        }
        expectNoOrphans(objects);
      },
    );
    expect(total).toBeGreaterThanOrEqual(3);
    expect(outcomes).toContain('crashed');
  });

  it('of an update shows the old or the new revision, and the retried update leaves only the new chunks', async () => {
    const seed: Store = new Map();
    const pending = rel(1, ReleaseStatus.PendingInstall, 800_000);
    await createReleaseStore({ client: fakeClient(seed).client, namespace: NAMESPACE }).create(pending);
    const deployed = { ...rel(1, ReleaseStatus.Deployed, 800_000), description: 'Install complete' };
    await crashEverywhere(
      seed,
      (s) => s.update(deployed),
      async (objects) => {
        const [seen] = await history(objects);
        expect([pending, deployed]).toContainEqual(seen);
        await createReleaseStore({ client: fakeClient(objects).client, namespace: NAMESPACE }).update(deployed);
        expect(await history(objects)).toEqual([deployed]);
        expectNoOrphans(objects);
      },
    );
  });

  it('of deleteAll finds the records at once and deletes them only after what it waits for, or never when that fails', async () => {
    const objects: Store = new Map();
    const fake = fakeClient(objects).client;
    let lists = 0;
    const client: KubeClient = { ...fake, listAll: async (...args) => ((lists += 1), fake.listAll(...args)) };
    const store = createReleaseStore({ client, namespace: NAMESPACE });
    await store.create(rel(1, ReleaseStatus.Deployed, 1_000));
    const [before, listedBefore] = [objects.size, lists];
    let release!: () => void;
    const deleting = store.deleteAll('acme', undefined, new Promise<void>((resolve) => (release = resolve)));
    await vi.waitFor(() => expect(lists).toBeGreaterThan(listedBefore));
    expect(objects.size).toBe(before);
    release();
    await deleting;
    expect(objects.size).toBe(0);
    await store.create(rel(1, ReleaseStatus.Deployed, 1_000));
    await expect(store.deleteAll('acme', undefined, Promise.reject(new Error('a delete was refused')))).rejects.toThrow('a delete was refused');
    expect((await history(objects)).map((r) => r.revision)).toEqual([1]);
  });

  it('of deleteAll leaves a readable, newest part of the history, and the retry removes everything', async () => {
    const seed: Store = new Map();
    const setup = createReleaseStore({ client: fakeClient(seed).client, namespace: NAMESPACE });
    for (let r = 1; r <= 3; r++) await setup.create(rel(r, r === 3 ? ReleaseStatus.Deployed : ReleaseStatus.Superseded, 800_000));
    await crashEverywhere(
      seed,
      (s) => s.deleteAll('acme'),
      async (objects) => {
        const left = (await history(objects)).map((r) => r.revision);
        expect([[3, 2, 1], [3, 2], [3], []]).toContainEqual(left);
        await createReleaseStore({ client: fakeClient(objects).client, namespace: NAMESPACE }).deleteAll('acme');
        expect(objects.size).toBe(0);
      },
    );
  });
});

/** `client` recording each LIST (with its selector) and GET in `reads`. */
function countingReads(client: KubeClient): { counting: KubeClient; reads: string[] } {
  const reads: string[] = [];
  const counting: KubeClient = {
    ...client,
    listAll: <T extends KubeObject>(t: TypeRef, o?: Parameters<KubeClient['listAll']>[1]) => (
      reads.push(`list ${o?.labelSelector ?? ''}`),
      client.listAll<T>(t, o)
    ),
    get: <T extends KubeObject>(ref: ObjectRef) => (reads.push(`get ${ref.name}`), client.get<T>(ref)),
  };
  return { counting, reads };
}

describe('reads', () => {
  it('a create reads the revision with one LIST, an update of a revision this process wrote or read with none, and both still refuse a wrong state', async () => {
    const objects: Store = new Map();
    const { client } = fakeClient(objects);
    const { counting, reads } = countingReads(client);
    const store = createReleaseStore({ client: counting, namespace: NAMESPACE });
    const key = 'sh.helm.release.v1.acme.v1';
    await store.create(rel(1, ReleaseStatus.PendingInstall, 10));
    // The key's Secrets, then the history for pruning.
    expect(reads).toEqual([`list owner=operator-controller,key=${key}`, 'list owner=operator-controller,name=acme,type=index']);
    reads.length = 0;
    await store.update(rel(1, ReleaseStatus.Deployed, 10));
    expect(reads).toEqual([]);
    // A store that has not seen the revision reads its Secrets first.
    const other = createReleaseStore({ client: counting, namespace: NAMESPACE });
    await other.update(rel(1, ReleaseStatus.Superseded, 10));
    expect(reads).toEqual([`list owner=operator-controller,key=${key}`]);
    // The first store's knowledge is stale now: the resourceVersion refuses it, and it reads again.
    reads.length = 0;
    await store.update(rel(1, ReleaseStatus.Deployed, 10));
    expect(reads).toEqual([`list owner=operator-controller,key=${key}`]);
    expect((await store.history('acme'))[0]?.status).toBe(ReleaseStatus.Deployed);
    await expect(store.create(rel(1, ReleaseStatus.Deployed, 10))).rejects.toThrow(`release record Secret "ns/${key}" already exists`);
    await expect(store.update(rel(2, ReleaseStatus.Deployed, 10))).rejects.toThrow(
      'release record Secret "ns/sh.helm.release.v1.acme.v2" does not exist',
    );
  });

  it('a create after a history read lists no index for pruning until the history is over maxHistory, then prunes to it', async () => {
    const objects: Store = new Map();
    const { client } = fakeClient(objects);
    const { counting, reads } = countingReads(client);
    const store = createReleaseStore({ client: counting, namespace: NAMESPACE, maxHistory: 2 });
    const pruneList = 'list owner=operator-controller,name=acme,type=index';
    const indexes = () => [...objects.values()].filter((s) => s.metadata.labels?.['type'] === 'index').map((s) => s.metadata.name);
    // Nothing read yet: the create lists the history to prune.
    await store.create(rel(1, ReleaseStatus.Deployed, 10));
    expect(reads.filter((r) => r === pruneList)).toHaveLength(1);
    // As a reconcile: the history read, then the next revision. Two records: nothing to prune, and
    // no LIST of its key either (one Secret, a key the history read did not find).
    await store.history('acme');
    reads.length = 0;
    await store.create(rel(2, ReleaseStatus.Deployed, 10));
    expect(reads).toEqual([]);
    // A third is over the limit: listed, and the oldest goes.
    await store.history('acme');
    reads.length = 0;
    await store.create(rel(3, ReleaseStatus.Deployed, 10));
    expect(reads.filter((r) => r === pruneList)).toHaveLength(1);
    expect(indexes().sort()).toEqual(['sh.helm.release.v1.acme.v2', 'sh.helm.release.v1.acme.v3']);
    // A record another process wrote since the last read is met by the next create after a read.
    const foreign = createReleaseStore({ client, namespace: NAMESPACE, maxHistory: 0 });
    await foreign.create(rel(4, ReleaseStatus.Deployed, 10));
    await store.history('acme');
    await store.create(rel(5, ReleaseStatus.Deployed, 10));
    expect(indexes().sort()).toEqual(['sh.helm.release.v1.acme.v4', 'sh.helm.release.v1.acme.v5']);
    // A revision another process created since the history read is refused as before.
    await store.history('acme');
    await foreign.create(rel(6, ReleaseStatus.Deployed, 10));
    await expect(store.create(rel(6, ReleaseStatus.Deployed, 10))).rejects.toThrow(
      'release record Secret "ns/sh.helm.release.v1.acme.v6" already exists',
    );
  });
});

describe('a read racing with a rewrite', () => {
  it('reads the revision again from its new index when the chunks it listed were replaced; an index that did not change is corrupt', async () => {
    const objects: Store = new Map();
    const { client } = fakeClient(objects);
    const writer = createReleaseStore({ client, namespace: NAMESPACE });
    // Random bytes do not compress: several chunks.
    await writer.create(rel(1, ReleaseStatus.Deployed, 2_500_000));
    let raced = false;
    const racing: KubeClient = {
      ...client,
      get: async <T extends KubeObject>(ref: ObjectRef) => {
        // The writer marks the revision superseded between the reader's LIST and its first chunk read.
        if (!raced && ref.name !== 'sh.helm.release.v1.acme.v1') {
          raced = true;
          await writer.update({ ...rel(1, ReleaseStatus.Superseded, 2_500_000), description: 'Superseded' });
        }
        return client.get<T>(ref);
      },
    };
    const [read] = await createReleaseStore({ client: racing, namespace: NAMESPACE }).history('acme');
    expect(raced).toBe(true);
    expect(read?.status).toBe(ReleaseStatus.Superseded);
    // A chunk missing while its index stays as it was: corrupt, not retried.
    const chunk = [...objects.keys()].find((k) => k.includes('sh.helm.release.v1.acme.v1-'));
    if (chunk === undefined) throw new Error('no chunk');
    objects.delete(chunk);
    await expect(history(objects)).rejects.toThrow(/is corrupt: its chunk Secret "ns\/sh\.helm\.release\.v1\.acme\.v1-[a-z0-9]+" does not exist/);
  });
});

describe('history with admit', () => {
  it('reads every payload, admits once what they decode to, and only then decodes', async () => {
    const objects: Store = new Map();
    const store = createReleaseStore({ client: fakeClient(objects).client, namespace: NAMESPACE });
    const plain = await store.history('acme', { admit: () => Promise.reject(new Error('not asked without records')) });
    expect(plain).toEqual([]);
    await store.create(rel(1, ReleaseStatus.Superseded, 2_000_000));
    await store.create(rel(2, ReleaseStatus.Deployed, 10));
    const asked: number[] = [];
    const read = await store.history('acme', { admit: (bytes) => (asked.push(bytes), Promise.resolve()) });
    expect(read.map((r) => r.revision)).toEqual([2, 1]);
    expect(asked).toHaveLength(1);
    // At least the text of both records: the blob's base64 (2.7 MB) is in the first.
    const text = read.reduce((n, r) => n + Buffer.byteLength(releaseJson(r)), 0);
    expect(asked[0]).toBe(text);
    await expect(store.history('acme', { admit: () => Promise.reject(new Error('no memory')) })).rejects.toThrow('no memory');
  });
});

describe('history with admit: the admission', () => {
  const store = (objects: Store) => createReleaseStore({ client: fakeClient(objects).client, namespace: NAMESPACE });
  /** Replaces the payload of revision `revision`'s index (its only piece) with `payload`. */
  function setPayload(objects: Store, revision: number, payload: Buffer): void {
    const index = objects.get(`sh.helm.release.v1.acme.v${revision}`);
    if (index === undefined) throw new Error('no such index');
    index['data'] = { ...(index['data'] as Record<string, string>), chunk: payload.toString('base64') };
  }

  it('comes before any record is decoded: a corrupt record fails only once admitted', async () => {
    const objects: Store = new Map();
    await store(objects).create(rel(1, ReleaseStatus.Deployed, 10));
    setPayload(objects, 1, gzipSync('not JSON'));
    await expect(store(objects).history('acme', { admit: () => Promise.reject(new Error('no memory')) })).rejects.toThrow('no memory');
    await expect(store(objects).history('acme', { admit: () => Promise.resolve() })).rejects.toThrow(/is corrupt: the payload is not JSON/);
  });

  it('asks for what the gzip trailers state, read before decoding, and never less than the payloads', async () => {
    const objects: Store = new Map();
    await store(objects).create(rel(1, ReleaseStatus.Superseded, 10));
    await store(objects).create(rel(2, ReleaseStatus.Deployed, 10));
    const text = releaseJson(rel(1, ReleaseStatus.Superseded, 10));
    // A trailer stating less than the payload (as one of 4 GiB more would, ISIZE being the
    // size modulo 2^32) asks for the payload's own bytes.
    const payload = gzipSync(text);
    payload.writeUInt32LE(0, payload.length - 4);
    setPayload(objects, 1, payload);
    const asked: number[] = [];
    const history = store(objects).history('acme', { admit: (bytes) => (asked.push(bytes), Promise.resolve()) });
    // The altered trailer fails gunzip's check only when decoded, after the admission.
    await expect(history).rejects.toThrow(/is corrupt: decompressing the payload failed/);
    const other = objects.get('sh.helm.release.v1.acme.v2');
    const secondPayload = Buffer.from((other?.['data'] as Record<string, string>)['chunk'] ?? '', 'base64');
    expect(asked).toEqual([payload.length + secondPayload.readUInt32LE(secondPayload.length - 4)]);
  });

  it('is given up with the reading when the signal aborts while it waits', async () => {
    const objects: Store = new Map();
    await store(objects).create(rel(1, ReleaseStatus.Deployed, 10));
    const abort = new AbortController();
    const history = store(objects).history('acme', {
      signal: abort.signal,
      admit: () => {
        abort.abort(new Error('reconcile cancelled'));
        return Promise.reject(abort.signal.reason as Error);
      },
    });
    await expect(history).rejects.toThrow('reconcile cancelled');
  });
});

describe('deployed', () => {
  const store = (objects: Store) => createReleaseStore({ client: fakeClient(objects).client, namespace: NAMESPACE });
  const summary = ({ manifest: _objects, ...rest }: Release) => rest;
  const index = (objects: Store, revision: number) => {
    const found = objects.get(`sh.helm.release.v1.acme.v${revision}`);
    if (found === undefined) throw new Error('no such index');
    return found;
  };
  const corrupt = (objects: Store, revision: number) => {
    const i = index(objects, revision);
    i['data'] = { ...(i['data'] as Record<string, string>), chunk: Buffer.from('not gzip').toString('base64') };
  };

  it('is the newest deployed revision without its objects, and decodes only its record', async () => {
    const objects: Store = new Map();
    const v2 = rel(2, ReleaseStatus.Deployed, 10);
    await store(objects).create(rel(1, ReleaseStatus.Superseded, 10));
    await store(objects).create(v2);
    await store(objects).create(rel(3, ReleaseStatus.Failed, 10));
    // Decoding either other record would fail.
    corrupt(objects, 1);
    corrupt(objects, 3);
    const found = await store(objects).deployed('acme');
    expect(found).toEqual(summary(v2));
    expect(found).not.toHaveProperty('manifest');
  });

  it('reads the records when a status label disagrees with its record, and is undefined when none is deployed', async () => {
    const objects: Store = new Map();
    const v1 = rel(1, ReleaseStatus.Deployed, 10);
    await store(objects).create(v1);
    await store(objects).create(rel(2, ReleaseStatus.Superseded, 10));
    // Labels swapped: revision 2 claims deployed, revision 1 claims superseded.
    (index(objects, 1).metadata.labels ?? {})['status'] = 'superseded';
    (index(objects, 2).metadata.labels ?? {})['status'] = 'deployed';
    expect(await store(objects).deployed('acme')).toEqual(summary(v1));
    expect(await store(new Map()).deployed('acme')).toBeUndefined();
    await store(objects).update({ ...v1, status: ReleaseStatus.Superseded });
    expect(await store(objects).deployed('acme')).toBeUndefined();
  });

  it('agrees with history after a crash at any write of an update', async () => {
    const seed: Store = new Map();
    await store(seed).create(rel(1, ReleaseStatus.Deployed, 800_000));
    await store(seed).create(rel(2, ReleaseStatus.PendingUpgrade, 10));
    await crashEverywhere(
      seed,
      async (s) => {
        await s.update({ ...rel(1, ReleaseStatus.Superseded, 800_000) });
        await s.update({ ...rel(2, ReleaseStatus.Deployed, 10), description: 'Upgrade complete' });
      },
      async (objects) => {
        const fromHistory = (await history(objects)).find((r) => r.status === ReleaseStatus.Deployed);
        expect(await store(objects).deployed('acme')).toEqual(fromHistory === undefined ? undefined : summary(fromHistory));
      },
    );
  });
});
