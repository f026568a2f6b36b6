import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isAlive } from '../../olmv1/localstack/index.ts';
import { gzipSync } from 'node:zlib';
import { LimitExceededError } from '../../shared/errors/index.ts';
import type { CatalogLayers } from './catalog-layers.ts';
import { INGEST_CHILD_ENVIRONMENT, createProcessIngest } from './ingest.ts';
import { LocalDirStore } from './local-dir-store.ts';

const PACKAGE = '{"schema":"olm.package","name":"foo","defaultChannel":"stable"}\n';
const BUNDLE = '{"schema":"olm.bundle","package":"foo","name":"foo.v1","image":"r.test/foo@sha256:aa","properties":[]}\n';

/** Pids of this process's children running the ingest entry point. */
async function ingestChildren(): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8');
      if (ppid === process.pid && cmdline.includes('ingest-child')) pids.push(Number(entry));
    } catch {
      // the process went away meanwhile
    }
  }
  return pids;
}

/**
 * The ingest children, once there is one (forked already; its command line shows it from its
 * exec on). A Node child's start takes seconds on a busy machine: vi.waitFor's 1 s default is short.
 */
async function spareStarted(): Promise<number[]> {
  return vi.waitFor(
    async () => {
      const pids = await ingestChildren();
      if (pids.length === 0) throw new Error('no ingest process yet');
      return pids;
    },
    { timeout: 15_000, interval: 20 },
  );
}

/** Whether process `pid` is gone within 10 s (generous: child start-up is slow on a busy machine). */
async function exited(pid: number): Promise<boolean> {
  const gone = (): void => {
    if (isAlive(pid)) throw new Error(`process ${pid} is alive`);
  };
  return vi.waitFor(gone, { timeout: 10_000, interval: 20 }).then(
    () => true,
    () => false,
  );
}

describe('createProcessIngest', () => {
  let root: string;
  let fbc: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'ingest-test-'));
    fbc = join(root, 'fbc');
    await mkdir(join(fbc, 'foo'), { recursive: true });
    await writeFile(join(fbc, 'foo', 'catalog.json'), PACKAGE + BUNDLE);
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  async function target(name: string): Promise<string> {
    const dir = join(root, name);
    await mkdir(dir);
    return dir;
  }

  it('runs the ingest in the process prepare() started, and that process exits after it', async () => {
    const pids: number[] = [];
    const ingest = createProcessIngest({ onSpawn: (pid) => pids.push(pid) });
    ingest.prepare();
    ingest.prepare(); // one spare at most
    // prepare() forks at once: whatever the two calls started is a child of this process now.
    const spares = await spareStarted();
    expect(spares).toHaveLength(1);
    const dir = await target('prepared');
    // Keys re-sorted, same length.
    expect(await ingest(fbc, dir)).toEqual({ blobs: 2, bytes: PACKAGE.length + BUNDLE.length });
    expect(await readFile(join(dir, 'catalog.jsonl'), 'utf8')).toContain('"name":"foo.v1"');
    expect(pids).toEqual(spares);
    // The ingest resolves on the reply; the process exits right after it.
    expect(await exited(pids[0]!)).toBe(true);
  });

  it('starts a process per ingest without prepare(), and after an unused spare timed out', async () => {
    const pids: number[] = [];
    const ingest = createProcessIngest({ onSpawn: (pid) => pids.push(pid), spareIdleMs: 100 });
    await ingest(fbc, await target('plain'));
    // The ingest resolves on the reply; its process may still be exiting. Once it is gone, the only
    // ingest child is the spare prepare() starts.
    expect(await exited(pids[0]!)).toBe(true);
    ingest.prepare();
    const spares = await spareStarted();
    expect(spares).toHaveLength(1);
    expect(await exited(spares[0]!)).toBe(true); // the spare gave up waiting
    await ingest(fbc, await target('after-timeout'));
    expect(pids).toHaveLength(2);
    expect(pids[0]).not.toBe(pids[1]);
    expect(await exited(pids[1]!)).toBe(true); // later tests look for their own spare among the children
  });

  it("runs the child with its own environment, not the parent's", async () => {
    const ingest = createProcessIngest();
    ingest.prepare();
    const [pid] = await spareStarted();
    const environ = await readFile(`/proc/${pid}/environ`, 'utf8');
    // glibc cuts GLIBC_TUNABLES into its settings in place; Node adds its IPC channel's variables.
    expect(environ.replaceAll('\0glibc.', ':glibc.')).toContain(`GLIBC_TUNABLES=${INGEST_CHILD_ENVIRONMENT['GLIBC_TUNABLES']}\0`);
    const names = environ.split('\0').map((v) => v.slice(0, v.indexOf('=')));
    expect(names.filter((n) => n !== '' && !n.startsWith('NODE_CHANNEL_') && !n.startsWith('glibc.'))).toEqual(['GLIBC_TUNABLES']);
    expect(await ingest(fbc, await target('environment'))).toMatchObject({ blobs: 2 });
  });

  // One layer whose download sends its first bytes and then stalls until its signal aborts.
  function stalledLayer(): CatalogLayers & { opened: Promise<void> } {
    let opened = (): void => undefined;
    const gz = gzipSync(Buffer.alloc(4096));
    return {
      opened: new Promise<void>((r) => (opened = r)),
      pathFilter: undefined,
      layers: [
        {
          size: gz.length,
          async *open(signal?: AbortSignal) {
            yield gz.subarray(0, 16);
            opened();
            await new Promise((_r, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
          },
        },
      ],
    };
  }

  it('kills the process when the signal aborts, and rejects with the reason once it is gone', async () => {
    const pids: number[] = [];
    const ingest = createProcessIngest({ onSpawn: (pid) => pids.push(pid) });
    const image = stalledLayer();
    const stop = new AbortController();
    const running = ingest.layers(image, await target('aborted'), stop.signal);
    await image.opened;
    const reason = new Error('catalog deleted');
    stop.abort(reason);
    await expect(running).rejects.toBe(reason);
    expect(isAlive(pids[0]!)).toBe(false);
    await expect(ingest.layers(stalledLayer(), await target('aborted-before'), stop.signal)).rejects.toBe(reason);
    expect(pids).toHaveLength(1); // an aborted signal starts nothing
  });

  it('reports a process killed by a signal it did not get from us as a resource limit, and stops the download', async () => {
    const pids: number[] = [];
    const ingest = createProcessIngest({ onSpawn: (pid) => pids.push(pid) });
    const image = stalledLayer();
    const running = ingest.layers(image, await target('killed'));
    await image.opened;
    process.kill(pids[0]!, 'SIGKILL'); // as the kernel's OOM killer would
    const err = await running.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LimitExceededError);
    expect((err as Error).message).toBe('catalog ingest process was killed by signal SIGKILL, most likely for running out of memory');
  });

  it('leaves nothing in the store when a store is cancelled mid-ingest', async () => {
    const storeRoot = await target('store');
    const store = new LocalDirStore({ root: storeRoot, ingest: createProcessIngest(), logger: pino({ level: 'silent' }) });
    await store.open();
    const image = stalledLayer();
    const stop = new AbortController();
    const info = { digest: `sha256:${'a'.repeat(64)}`, ref: 'r.test/c@sha256:aa', unpackedAt: '2026-01-01T00:00:00Z' };
    const storing = store.store('c', info, { layers: image }, { signal: stop.signal });
    await image.opened;
    expect(await readdir(storeRoot)).toHaveLength(1); // the version being written
    stop.abort(new Error('spec changed'));
    await expect(storing).rejects.toThrow('spec changed');
    expect(await readdir(storeRoot)).toEqual([]);
    expect(store.get('c')).toBeUndefined();
    await store.close();
  });

  it("rejects with the loader's error", async () => {
    const bad = join(root, 'bad');
    await mkdir(bad);
    await writeFile(join(bad, 'catalog.yaml'), 'schema: [unclosed\n');
    const ingest = createProcessIngest();
    ingest.prepare();
    await expect(ingest(bad, await target('bad-out'))).rejects.toThrow(/catalog\.yaml/);
  });
  it('hands its decode limits to the process', async () => {
    const ingest = createProcessIngest({ limits: { maxDocumentBytes: PACKAGE.length } });
    await expect(ingest(fbc, await target('limited'))).rejects.toThrow(`foo/catalog.json:2: document exceeds the limit of ${PACKAGE.length} bytes`);
  });
});
