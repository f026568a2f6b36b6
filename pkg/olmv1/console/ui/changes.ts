/**
 * The page's one live connection (decision 0141): `/api/events`, a `text/event-stream` the
 * console feeds from its watches, read with fetch (the session key travels in a header, which
 * EventSource cannot send). Listeners hear each change; after a reconnection (with backoff, never
 * on a timer while connected) they hear a `resync`, since changes may have been missed.
 */
import type { ChangeEvent } from '../live.ts';

export type { ChangeEvent };

/** A change, or `resync` after the stream was reconnected. */
export type Change = ChangeEvent | 'resync';

/** What the data hook subscribes to. */
export interface ChangeSource {
  subscribe(listener: (c: Change) => void): () => void;
}

/** Splits server-sent event text into complete `change` events; returns them and the unfinished rest. */
export function parseEvents(buffer: string): { events: ChangeEvent[]; rest: string } {
  const blocks = buffer.split('\n\n');
  const rest = blocks.pop() ?? '';
  const events: ChangeEvent[] = [];
  for (const block of blocks) {
    let name = 'message';
    let data = '';
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) name = line.slice(6).trim();
      else if (line.startsWith('data:')) data += line.slice(5).trim();
    }
    if (name !== 'change' || data === '') continue;
    try {
      events.push(JSON.parse(data) as ChangeEvent);
    } catch {
      // Not an event of this console: skipped.
    }
  }
  return { events, rest };
}

/** The delays between reconnections, in milliseconds (doubling up to 30 s; reset once connected). */
export function reconnectDelay(attempt: number): number {
  return Math.min(30_000, 1_000 * 2 ** Math.min(attempt, 5));
}

/**
 * Keeps the stream `open` returns open until `signal` aborts, telling listeners of each change.
 * `open` answers the response body (api.ts's openEvents); `sleep` waits (the window's timer).
 */
export function connectChanges(
  open: (signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>,
  sleep: (ms: number, signal: AbortSignal) => Promise<void>,
  signal: AbortSignal,
): ChangeSource {
  const listeners = new Set<(c: Change) => void>();
  const tell = (c: Change): void => {
    for (const l of listeners) l(c);
  };
  void (async () => {
    let attempt = 0;
    let connectedBefore = false;
    while (!signal.aborted) {
      try {
        const body = await open(signal);
        if (connectedBefore) tell('resync');
        connectedBefore = true;
        attempt = 0;
        const reader = body.getReader();
        const decoder = new TextDecoder();
        let buffer = '';
        for (let r = await reader.read(); !r.done; r = await reader.read()) {
          const parsed = parseEvents(buffer + decoder.decode(r.value, { stream: true }));
          buffer = parsed.rest;
          for (const e of parsed.events) tell(e);
        }
      } catch (e) {
        // Refused for good (not allowed, nothing to watch): no reconnection; closed or unreachable: reconnect after the backoff.
        const status = (e as { status?: unknown }).status;
        if (typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429) return;
      }
      if (signal.aborted) return;
      await sleep(reconnectDelay(attempt++), signal).catch(() => undefined);
    }
  })();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** Waits `ms` (the reconnection's backoff), or until `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}
