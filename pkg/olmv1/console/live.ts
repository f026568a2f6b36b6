/**
 * Live updates (decision 0141): watches of the objects the pages show, made with the user's own
 * client, feed a change feed; each browser tab holds one `text/event-stream` response of
 * `/api/events` and reads again what a change concerns. The watches start with the first
 * subscriber and stop when the console closes.
 */
import type { ServerResponse } from 'node:http';

/** What changed, as the pages group their data. */
export type ChangeTopic = 'extensions' | 'catalogs';

/** One change of a watched object. */
export interface ChangeEvent {
  topic: ChangeTopic;
  /** The watched kind (ClusterExtension, ClusterCatalog, Event, ...). */
  kind: string;
  /** The object's name; for an Event, the name of the object it is about. */
  name: string;
}

/** Starts the watches, which call `emit` on every change after their first list, until `signal` aborts. */
export type StartWatches = (emit: (e: ChangeEvent) => void, signal: AbortSignal) => void;

/** The console's change feed. */
export interface ChangeFeed {
  /** Calls `listener` on every change until the returned function is called. */
  subscribe(listener: (e: ChangeEvent) => void): () => void;
  /** Stops the watches. */
  close(): void;
}

/** A feed over `start`'s watches, started when the first listener subscribes. */
export function createChangeFeed(start: StartWatches): ChangeFeed {
  const listeners = new Set<(e: ChangeEvent) => void>();
  let running: AbortController | undefined;
  return {
    subscribe(listener) {
      listeners.add(listener);
      if (running === undefined) {
        running = new AbortController();
        start((e) => {
          for (const l of listeners) l(e);
        }, running.signal);
      }
      return () => listeners.delete(listener);
    },
    close() {
      running?.abort();
    },
  };
}

/** How often an idle stream sends a comment, so proxies keep it open (not a request: the browser sends nothing). */
const KEEPALIVE_MS = 25_000;

/** Answers `res` with the feed as server-sent events (`event: change`, its data the ChangeEvent) until the client goes. */
export function streamChanges(feed: ChangeFeed, res: ServerResponse, onClose?: () => void): void {
  res.statusCode = 200;
  res.setHeader('content-type', 'text/event-stream; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.flushHeaders();
  res.write(': watching\n\n');
  const unsubscribe = feed.subscribe((e) => res.write(`event: change\ndata: ${JSON.stringify(e)}\n\n`));
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  res.on('close', () => {
    clearInterval(keepalive);
    unsubscribe();
    onClose?.();
  });
}
