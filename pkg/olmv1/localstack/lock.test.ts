import { mkdir, mkdtemp, readFile, readdir, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAlive, withLock } from './lock.ts';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'envtest-lock-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('withLock', () => {
  it('runs holders one at a time and reports waiting once', async () => {
    const lock = join(root, 'l');
    let inside = 0;
    let maxInside = 0;
    const waits: string[] = [];
    // The first holder keeps the lock until both others have found it taken.
    let othersWaiting!: () => void;
    const bothWaiting = new Promise<void>((resolve) => (othersWaiting = resolve));
    const onWait = (holder: string): void => {
      waits.push(holder);
      if (waits.length === 2) othersWaiting();
    };
    const job = async (): Promise<void> => {
      inside++;
      maxInside = Math.max(maxInside, inside);
      await bothWaiting;
      inside--;
    };
    await Promise.all([1, 2, 3].map(() => withLock(lock, job, { pollMs: 5, onWait })));
    expect(maxInside).toBe(1);
    expect(waits).toHaveLength(2);
    expect(waits[0]).toContain(`pid ${process.pid}`);
  });

  it('releases the lock when the function throws', async () => {
    const lock = join(root, 'l');
    await expect(
      withLock(lock, async () => {
        throw new Error('build failed');
      }),
    ).rejects.toThrow('build failed');
    await expect(stat(lock)).rejects.toThrow();
    expect(await withLock(lock, async () => 'again')).toBe('again');
  });

  it('breaks a lock whose holder process is dead', async () => {
    const lock = join(root, 'l');
    await mkdir(lock);
    await writeFile(join(lock, 'owner.json'), JSON.stringify({ pid: 2 ** 30, host: hostname() }));
    expect(await withLock(lock, async () => 'took over', { pollMs: 5 })).toBe('took over');
  });

  it('breaks a lock that stopped being refreshed', async () => {
    const lock = join(root, 'l');
    await mkdir(lock);
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    expect(await withLock(lock, async () => 'took over', { staleMs: 1000, pollMs: 5 })).toBe('took over');
  });

  it('waits for a live, fresh holder', async () => {
    const lock = join(root, 'l');
    await mkdir(lock);
    await writeFile(join(lock, 'owner.json'), JSON.stringify({ pid: process.pid, host: hostname() }));
    let done = false;
    let found!: (holder: string) => void;
    const waiting = new Promise<string>((resolve) => (found = resolve));
    const pending = withLock(
      lock,
      async () => {
        done = true;
      },
      { pollMs: 5, onWait: found },
    );
    // It found the holder alive and the lock fresh, and waits (the same decision at each poll).
    expect(await waiting).toBe(`pid ${process.pid} on ${hostname()}`);
    expect(done).toBe(false);
    // Release as a holder does: move the lock away first, so a waiter's rename never lands on
    // a half-deleted directory.
    await rename(lock, `${lock}.released`);
    await rm(`${lock}.released`, { recursive: true });
    await pending;
    expect(done).toBe(true);
  });
});

describe('isAlive', () => {
  it('gives up waiting when its signal aborts, holding and running nothing', async () => {
    const lock = join(root, 'l');
    let release!: () => void;
    const held = withLock(lock, () => new Promise<void>((resolve) => (release = resolve)));
    await expect
      .poll(() =>
        stat(lock).then(
          () => true,
          () => false,
        ),
      )
      .toBe(true);
    const stop = new AbortController();
    let ran = false;
    const waiting = withLock(
      lock,
      async () => {
        ran = true;
      },
      { pollMs: 60_000, signal: stop.signal, onWait: () => setImmediate(() => stop.abort(new Error('interrupted'))) },
    );
    // The wait ends at the abort, not at the next look (a minute away).
    await expect(waiting).rejects.toThrow('interrupted');
    expect(ran).toBe(false);
    // The holder's lock is untouched, and no staged directory of the waiter is left.
    expect(JSON.parse(await readFile(join(lock, 'owner.json'), 'utf8'))).toMatchObject({ pid: process.pid });
    expect((await readdir(root)).sort()).toEqual(['l']);
    release();
    await held;
    // Already aborted: rejects at once, without touching the lock.
    await expect(withLock(lock, async () => 'no', { signal: stop.signal })).rejects.toThrow('interrupted');
    await expect(stat(lock)).rejects.toThrow();
  });

  it('knows this process and not an impossible pid', () => {
    expect(isAlive(process.pid)).toBe(true);
    expect(isAlive(2 ** 30)).toBe(false);
  });
});
