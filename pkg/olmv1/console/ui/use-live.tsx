/**
 * The pages' one data hook: reads a document of the console API, and reads it again when the
 * live stream (changes.ts) reports a change of a topic it depends on (coalesced: one read for a
 * burst of changes) or after a reconnection. No page polls; a read that failed (not refused) is
 * read again with the stream's backoff until one succeeds.
 */
import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { getJson, openEvents, retryable } from './api.ts';
import { connectChanges, reconnectDelay, sleep, type ChangeSource, type ChangeEvent } from './changes.ts';

const NONE: ChangeSource = { subscribe: () => () => undefined };
const Changes = createContext<ChangeSource>(NONE);

/** Gives the pages below it the page's live connection. */
export function ChangesProvider({ source, children }: { source: ChangeSource; children: ReactNode }) {
  return <Changes.Provider value={source}>{children}</Changes.Provider>;
}

/** How long a burst of changes is gathered before the one read again. */
const COALESCE_MS = 150;

/** The state of one API document. */
interface Live<T> {
  data: T | undefined;
  /** The last read's failure (cleared by a read that succeeds); an ApiFailure carries the status. */
  error: Error | undefined;
  /** Reads again now (after an action of the page). */
  reload(): void;
}

/**
 * `path`'s document, read now and again on every change of `topics`; with `stream`, also on every
 * event of that change stream of its own (the objects of a release: watched only while shown).
 */
export function useLive<T>(path: string, topics: readonly ChangeEvent['topic'][], stream?: string): Live<T> {
  const shared = useContext(Changes);
  const [own, setOwn] = useState<ChangeSource | undefined>();
  useEffect(() => {
    if (stream === undefined) return;
    const ac = new AbortController();
    setOwn(connectChanges((signal) => openEvents(signal, stream), sleep, ac.signal));
    return () => ac.abort();
  }, [stream]);
  const [data, setData] = useState<T | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const [tick, setTick] = useState(0);
  // Failed reads in a row: a read that failed for a while (the console or the API server busy or
  // restarting) is read again after the stream's backoff, since no change may come to trigger it.
  const failures = useRef(0);
  const topicKey = topics.join(',');
  useEffect(() => {
    const ac = new AbortController();
    let retry: ReturnType<typeof setTimeout> | undefined;
    getJson<T>(path, ac.signal).then(
      (r) => {
        // A read replaced by a newer one (its effect cleaned up) sets nothing: its answer may be older.
        if (ac.signal.aborted) return;
        failures.current = 0;
        setData(r);
        setError(undefined);
      },
      (e: unknown) => {
        if (ac.signal.aborted) return;
        setError(e instanceof Error ? e : new Error(String(e)));
        if (retryable(e)) retry = setTimeout(() => setTick((t) => t + 1), reconnectDelay(failures.current++));
      },
    );
    return () => {
      ac.abort();
      if (retry !== undefined) clearTimeout(retry);
    };
  }, [path, tick]);
  useEffect(() => {
    let pending: ReturnType<typeof setTimeout> | undefined;
    const wanted = new Set(topicKey.split(','));
    const schedule = (): void => {
      if (pending !== undefined) return;
      pending = setTimeout(() => {
        pending = undefined;
        setTick((t) => t + 1);
      }, COALESCE_MS);
    };
    const unsubscribe = [
      shared.subscribe((c) => (c === 'resync' || wanted.has(c.topic) ? schedule() : undefined)),
      ...(own === undefined ? [] : [own.subscribe(schedule)]),
    ];
    return () => {
      for (const u of unsubscribe) u();
      if (pending !== undefined) clearTimeout(pending);
    };
  }, [shared, own, topicKey]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, reload };
}
