/**
 * A cross-process lock made of a directory: a contender renames a private directory holding its
 * `owner.json` to the lock path (atomic, failing when the lock exists), so a lock is never seen
 * without its owner; the holder keeps touching it. A lock whose holder is dead, or whose
 * heartbeat is older than `staleMs`, is broken.
 */
import { mkdtemp, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isErrno } from '../../shared/errors/index.ts';

/** Options of withLock. */
interface LockOptions {
  /** A lock not refreshed for this long is considered abandoned (default 2 minutes). */
  staleMs?: number;
  /** How often the holder refreshes the lock (default 10 s). */
  heartbeatMs?: number;
  /** How often a waiter looks again (default 1 s). */
  pollMs?: number;
  /** Called once when the lock is found taken, with the holder's description. */
  onWait?: (holder: string) => void;
  /**
   * Ends the wait for the lock: withLock then rejects with the signal's reason, holding nothing
   * and running nothing. Once the lock is held it has no effect (`fn` decides when it is done).
   */
  signal?: AbortSignal;
}

interface Owner {
  pid: number;
  host: string;
}

/**
 * Runs `fn` while holding the lock directory `lockDir` (its parent must exist) and releases
 * the lock afterwards, whether `fn` resolves or throws. Waits as long as a live holder keeps
 * the lock fresh, or until `options.signal` aborts.
 *
 * @throws `options.signal`'s reason when it aborts before the lock is held.
 */
export async function withLock<T>(lockDir: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const staleMs = options.staleMs ?? 120_000;
  const heartbeatMs = options.heartbeatMs ?? 10_000;
  const pollMs = options.pollMs ?? 1000;
  const ownerFile = join(lockDir, 'owner.json');
  let waiting = false;
  const owner: Owner = { pid: process.pid, host: hostname() };
  const { signal } = options;
  for (;;) {
    signal?.throwIfAborted();
    if (await tryCreate(lockDir, owner)) {
      // Taken just as the wait was given up: not held after all.
      if (signal?.aborted === true) {
        await removeLock(lockDir);
        signal.throwIfAborted();
      }
      break;
    }
    const holder = await readOwner(ownerFile);
    if (await isAbandoned(lockDir, holder, staleMs)) {
      // Breaking a lock is itself racy; a rename-free rm followed by mkdir lets exactly one
      // contender win the next mkdir.
      await removeLock(lockDir);
      continue;
    }
    if (!waiting) {
      waiting = true;
      options.onWait?.(holder === undefined ? 'unknown process' : `pid ${holder.pid} on ${holder.host}`);
    }
    await sleep(pollMs, undefined, signal === undefined ? {} : { signal }).catch((err: unknown) => {
      // An aborted sleep rejects with an AbortError of its own: report the signal's reason.
      signal?.throwIfAborted();
      throw err;
    });
  }
  const heartbeat = setInterval(() => {
    const now = new Date();
    utimes(lockDir, now, now).catch(() => {});
  }, heartbeatMs);
  heartbeat.unref();
  try {
    return await fn();
  } finally {
    clearInterval(heartbeat);
    await removeLock(lockDir);
  }
}

/**
 * Removes the lock by renaming it to a private name first: deleting it in place would leave an
 * empty directory for a moment, onto which a contender's rename can land and then be deleted.
 */
async function removeLock(lockDir: string): Promise<void> {
  const tombstone = `${lockDir}.old-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    await rename(lockDir, tombstone);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return;
    throw err;
  }
  await rm(tombstone, { recursive: true, force: true });
}

async function tryCreate(lockDir: string, owner: Owner): Promise<boolean> {
  const staged = await mkdtemp(`${lockDir}.new-`);
  await writeFile(join(staged, 'owner.json'), JSON.stringify(owner));
  try {
    await rename(staged, lockDir);
    return true;
  } catch (err) {
    await rm(staged, { recursive: true, force: true });
    const code = isErrno(err) ? err.code : undefined;
    if (code === 'EEXIST' || code === 'ENOTEMPTY') return false;
    throw err;
  }
}

async function readOwner(ownerFile: string): Promise<Owner | undefined> {
  try {
    const parsed: unknown = JSON.parse(await readFile(ownerFile, 'utf8'));
    if (typeof parsed === 'object' && parsed !== null && 'pid' in parsed && 'host' in parsed) {
      const { pid, host } = parsed;
      if (typeof pid === 'number' && typeof host === 'string') return { pid, host };
    }
    return undefined;
  } catch {
    return undefined;
  }
}

async function isAbandoned(lockDir: string, holder: Owner | undefined, staleMs: number): Promise<boolean> {
  if (holder !== undefined && holder.host === hostname() && !isAlive(holder.pid)) return true;
  try {
    const info = await stat(lockDir);
    return Date.now() - info.mtimeMs > staleMs;
  } catch {
    // Vanished between mkdir and stat: the next mkdir decides.
    return false;
  }
}

/** True when a process with this pid exists (signal 0 probes without delivering). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return isErrno(err, 'EPERM');
  }
}
