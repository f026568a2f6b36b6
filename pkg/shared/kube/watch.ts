/**
 * Decoding of the API server's watch stream: one JSON event per line
 * (`{"type":"ADDED","object":{...}}`), `ERROR` events carrying a Status.
 */
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { apiErrorFromStatus, type Status } from './api-error.ts';
import type { KubeObject, WatchEvent } from '../unstructured/index.ts';

const EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']);

/** A seconds value for `timeoutSeconds` of a watch: uniformly jittered in [min, 2*min). */
export function jitteredWatchTimeoutSeconds(minSeconds = 300, random: () => number = Math.random): number {
  return Math.floor(minSeconds * (1 + random()));
}

/**
 * Yields the events of a watch response body until the server ends it (normal return).
 * Throws an ApiError for an `ERROR` event (410 Gone when the resourceVersion is too old),
 * an Error for malformed lines or a broken stream, and `signal.reason` once `signal` aborts.
 * The stream is destroyed when iteration stops for any reason.
 */
export async function* decodeWatchStream<T extends KubeObject = KubeObject>(
  body: Readable,
  signal?: AbortSignal,
): AsyncGenerator<WatchEvent<T>, void, undefined> {
  const decoder = new StringDecoder('utf8');
  let buf = '';
  try {
    try {
      for await (const chunk of body) {
        // Search only the new text for the newline; events can be megabytes long.
        let from = buf.length;
        buf += decoder.write(chunk as Buffer);
        for (let nl = buf.indexOf('\n', from); nl >= 0; nl = buf.indexOf('\n', from)) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          from = 0;
          const event = parseLine<T>(line);
          if (event !== undefined) yield event;
        }
      }
    } catch (err) {
      if (signal?.aborted === true) throw signal.reason;
      if (isDecodeError(err)) throw err;
      throw new Error(`watch stream broke: ${(err as Error).message}`, { cause: err });
    }
    if (signal?.aborted === true) throw signal.reason;
    const last = parseLine<T>(buf + decoder.end());
    if (last !== undefined) yield last;
  } finally {
    body.destroy();
  }
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
    throw decodeError(new Error(`malformed watch event: ${(err as Error).message}`, { cause: err }));
  }
  if (parsed.type === 'ERROR') throw decodeError(apiErrorFromStatus((parsed.object ?? {}) as Status, 500));
  if (typeof parsed.type !== 'string' || !EVENT_TYPES.has(parsed.type) || typeof parsed.object !== 'object' || parsed.object === null) {
    throw decodeError(new Error(`unexpected watch event type ${JSON.stringify(parsed.type)}`));
  }
  return { type: parsed.type as WatchEvent['type'], object: parsed.object as T };
}
