/**
 * Decoding of the API server's watch stream: one JSON event per line
 * (`{"type":"ADDED","object":{...}}`), `ERROR` events carrying a Status.
 */
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { apiErrorFromStatus, type Status } from './api-error.ts';
import type { KubeObject, WatchEvent } from '../unstructured/index.ts';
import { errorMessage } from '../errors/index.ts';

const EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']);

/** A seconds value for `timeoutSeconds` of a watch: uniformly jittered in [min, 2*min). */
export function jitteredWatchTimeoutSeconds(minSeconds = 300, random: () => number = Math.random): number {
  return Math.floor(minSeconds * (1 + random()));
}

/**
 * Yields the events of a watch body until the server ends it. Throws an ApiError for an `ERROR`
 * event (410 Gone: too old), an Error for malformed lines or a broken stream, `signal.reason`
 * on abort. The stream is destroyed when iteration stops.
 */
export async function* decodeWatchStream<T extends KubeObject = KubeObject>(
  body: Readable,
  signal?: AbortSignal,
): AsyncGenerator<WatchEvent<T>, void, undefined> {
  const lines = new EventLines<T>();
  const ready: WatchEvent<T>[] = [];
  const collect = (ev: WatchEvent<T>): void => void ready.push(ev);
  try {
    try {
      for await (const chunk of body) {
        let failure: unknown;
        try {
          lines.write(chunk as Buffer, collect);
        } catch (err) {
          failure = err;
        }
        // The events before a bad line of the chunk still go out first.
        yield* ready.splice(0);
        if (failure !== undefined) throw failure;
      }
    } catch (err) {
      if (signal?.aborted === true) throw signal.reason;
      if (isDecodeError(err)) throw err;
      throw new Error(`watch stream broke: ${errorMessage(err)}`, { cause: err });
    }
    if (signal?.aborted === true) throw signal.reason;
    lines.end(collect);
    yield* ready.splice(0);
  } finally {
    body.destroy();
  }
}

/** The events of a watch body's bytes, a complete line at a time (both decoders' splitting). */
class EventLines<T extends KubeObject> {
  readonly #decoder = new StringDecoder('utf8');
  #buf = '';

  /** Hands each event whose line `chunk` completes to `onEvent`; throws on a malformed line or an ERROR event. */
  write(chunk: Buffer, onEvent: (event: WatchEvent<T>) => void): void {
    // Search only the new text for the newline; events can be megabytes long.
    let from = this.#buf.length;
    this.#buf += this.#decoder.write(chunk);
    for (let nl = this.#buf.indexOf('\n', from); nl >= 0; nl = this.#buf.indexOf('\n', from)) {
      const line = this.#buf.slice(0, nl);
      this.#buf = this.#buf.slice(nl + 1);
      from = 0;
      const event = parseLine<T>(line);
      if (event !== undefined) onEvent(event);
    }
  }

  /** The body ended: hands over an event on a last line without a newline. */
  end(onEvent: (event: WatchEvent<T>) => void): void {
    const event = parseLine<T>(this.#buf + this.#decoder.end());
    this.#buf = '';
    if (event !== undefined) onEvent(event);
  }
}

/**
 * The push form of decodeWatchStream: hands each event to `onEvent` as its line arrives and
 * resolves when the server ends the watch. No promise is made per event (with thousands of
 * watches, the async form's promise chains kept the old generation collecting at rest).
 * Rejects as decodeWatchStream throws, and with what `onEvent` throws.
 */
export function pushWatchEvents<T extends KubeObject = KubeObject>(
  body: Readable,
  onEvent: (event: WatchEvent<T>) => void,
  signal?: AbortSignal,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const lines = new EventLines<T>();
    let settled = false;
    const settle = (err: unknown): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      body.off('data', onData);
      body.destroy();
      if (err === undefined) resolve();
      else reject(err);
    };
    const onData = (chunk: Buffer): void => {
      try {
        lines.write(chunk, onEvent);
      } catch (err) {
        settle(err);
      }
    };
    const onAbort = (): void => settle(signal?.reason);
    // `on`, not `once`, throughout: settle() acts once, an error after settling must not go
    // unhandled, and `once` costs a wrapper per listener (thousands of watches stay open).
    body.on('data', onData);
    body.on('end', () => {
      if (settled) return;
      try {
        lines.end(onEvent);
        settle(undefined);
      } catch (err) {
        settle(err);
      }
    });
    body.on('error', (err: Error) =>
      settle(signal?.aborted === true ? signal.reason : new Error(`watch stream broke: ${err.message}`, { cause: err })),
    );
    body.on('close', () => {
      if (signal?.aborted === true) settle(signal.reason);
      else settle(new Error('watch stream broke: Premature close'));
    });
    if (signal?.aborted === true) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const DECODE_ERROR = Symbol('watch-decode-error');

function isDecodeError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && DECODE_ERROR in err;
}

function decodeError(err: Error): Error {
  return Object.assign(err, { [DECODE_ERROR]: true });
}

function parseLine<T extends KubeObject>(raw: string): WatchEvent<T> | undefined {
  const line = raw.trim();
  if (line === '') return undefined;
  let parsed: { type?: unknown; object?: unknown };
  try {
    parsed = JSON.parse(line) as { type?: unknown; object?: unknown };
  } catch (err) {
    throw decodeError(new Error(`malformed watch event: ${errorMessage(err)}`, { cause: err }));
  }
  if (parsed.type === 'ERROR') throw decodeError(apiErrorFromStatus((parsed.object ?? {}) as Status, 500));
  if (typeof parsed.type !== 'string' || !EVENT_TYPES.has(parsed.type) || typeof parsed.object !== 'object' || parsed.object === null) {
    throw decodeError(new Error(`unexpected watch event type ${JSON.stringify(parsed.type)}`));
  }
  return { type: parsed.type as WatchEvent['type'], object: parsed.object as T };
}
