/**
 * The console's hub index over time: read once when the console starts, so the first visit
 * finds it built or being built; after `ttlMs` a visit gets the index it has at once while a new
 * one is read behind it (stale while revalidating), so no visit waits for a catalog to be read
 * again; after `drop` (a catalog added or removed here) the next visit waits for the new read.
 * One read at a time. A read that fails leaves the last index in place and is tried again at the
 * next visit.
 */

/** The index's reads; `get` resolves to the newest one to use now. */
interface HubSnapshots<T> {
  get(): Promise<T>;
  /** The index read last, however old, without reading; undefined before the first read ends or after `drop`. */
  peek(): T | undefined;
  /** Forgets the index: the next `get` waits for a new read. */
  drop(): void;
}

interface HubSnapshotsOptions<T> {
  read(): Promise<T>;
  ttlMs: number;
  now(): number;
}

/** Keeps the index `read` gives, as the file comment says. */
export function createHubSnapshots<T>(o: HubSnapshotsOptions<T>): HubSnapshots<T> {
  let current: { value: T; at: number } | undefined;
  let pending: Promise<T> | undefined;
  let generation = 0;
  const start = (): Promise<T> => {
    if (pending !== undefined) return pending;
    const mine = ++generation;
    const startedAt = o.now();
    const p = o.read().then(
      (value) => {
        if (mine === generation) current = { value, at: startedAt };
        return value;
      },
      (err: unknown) => {
        throw err;
      },
    );
    pending = p;
    const clear = (): void => {
      if (pending === p) pending = undefined;
    };
    p.then(clear, clear);
    return p;
  };
  return {
    get() {
      if (current === undefined) return start();
      if (o.now() - current.at > o.ttlMs) start().catch(() => undefined);
      return Promise.resolve(current.value);
    },
    peek: () => current?.value,
    drop() {
      current = undefined;
      pending = undefined;
      generation++;
    },
  };
}
