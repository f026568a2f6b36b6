/**
 * The closed-loop load generator: N keep-alive clients, each sending its next request as soon as
 * the previous response has been read completely, on raw sockets with a minimal HTTP/1.1 client.
 *
 * On this 2-core machine the generator shares the CPU with the server under test. Node's http
 * client spent about as much CPU per request as the server (~65 µs), leaving the server less
 * than it would have behind separate clients. This one writes a fixed request and parses only
 * what it must (status line, Content-Length or chunked framing, Content-Encoding): ~30 µs per
 * gzip package answer, half that cost, while measuring the same request-to-last-byte latency.
 *
 * Contract: GET only, no pipelining (one request in flight per connection), responses framed by
 * Content-Length or chunked transfer coding; anything else counts as an error and the
 * connection is replaced.
 */
import net from 'node:net';
import type { LoadResult } from './http-load.ts';

/** Options of {@link closedLoop}. */
export interface ClosedLoopOptions {
  /** `http://host:port` of the server. */
  origin: string;
  clients: number;
  warmupMs: number;
  durationMs: number;
  /** The next request target (path and query). */
  nextPath: () => string;
  headers?: Record<string, string>;
}

const CRLF2 = Buffer.from('\r\n\r\n');

/** One response being read: framing state and what was counted so far. */
interface ResponseState {
  head: Buffer | undefined;
  status: number;
  gzip: boolean;
  /** Body bytes still expected (Content-Length), or -1 for chunked. */
  remaining: number;
  bytes: number;
  /** Chunked: bytes of the current chunk still to skip, incl. its trailing CRLF. */
  chunkLeft: number;
  /** Chunked: partial chunk-size line carried between reads. */
  sizeLine: string;
  /** Chunked: the last (empty) chunk was seen; its CRLF ends the response. */
  last: boolean;
  done: boolean;
}

function freshState(): ResponseState {
  return { head: undefined, status: 0, gzip: false, remaining: 0, bytes: 0, chunkLeft: 0, sizeLine: '', last: false, done: false };
}

/**
 * Feeds `data` to `st`; returns false on a framing it does not understand. Sets `st.done` when
 * the response is complete. Bytes after the end of a response are a protocol error here (no
 * pipelining), so they also return false.
 */
function feed(st: ResponseState, data: Buffer): boolean {
  let body = data;
  if (st.status === 0) {
    const buf = st.head === undefined ? data : Buffer.concat([st.head, data]);
    const end = buf.indexOf(CRLF2);
    if (end < 0) {
      st.head = buf;
      return true;
    }
    const head = buf.toString('latin1', 0, end).toLowerCase();
    st.status = Number(head.slice(9, 12));
    st.gzip = /\r\ncontent-encoding: *gzip/.test(head);
    const length = /\r\ncontent-length: *(\d+)/.exec(head);
    if (length !== null) st.remaining = Number(length[1]);
    else if (/\r\ntransfer-encoding: *chunked/.test(head)) st.remaining = -1;
    else return false;
    st.head = undefined;
    body = buf.subarray(end + 4);
  }
  if (st.remaining >= 0) {
    if (body.length > st.remaining) return false;
    st.remaining -= body.length;
    st.bytes += body.length;
    st.done = st.remaining === 0;
    return true;
  }
  return feedChunked(st, body);
}

function feedChunked(st: ResponseState, body: Buffer): boolean {
  let i = 0;
  while (i < body.length) {
    if (st.chunkLeft > 0) {
      const take = Math.min(st.chunkLeft, body.length - i);
      // The last two bytes of chunkLeft are the chunk's CRLF, not body.
      st.bytes += Math.max(0, Math.min(take, st.chunkLeft - 2));
      st.chunkLeft -= take;
      i += take;
      if (st.last && st.chunkLeft === 0) {
        st.done = true;
        // Nothing may follow the response (no pipelining, no trailers from these servers).
        return i === body.length;
      }
      continue;
    }
    const nl = body.indexOf(10, i);
    if (nl < 0) {
      st.sizeLine += body.toString('latin1', i);
      return true;
    }
    const line = (st.sizeLine + body.toString('latin1', i, nl)).trim();
    st.sizeLine = '';
    i = nl + 1;
    const size = Number.parseInt(line, 16);
    if (!Number.isFinite(size)) return false;
    // The last chunk is empty: only its CRLF (possibly in the next read) is left.
    st.last = size === 0;
    st.chunkLeft = size + 2;
  }
  return true;
}

/** Runs `clients` raw keep-alive connections, each a closed request loop. */
export async function closedLoop(opts: ClosedLoopOptions): Promise<LoadResult> {
  const url = new URL(opts.origin);
  const extra = Object.entries(opts.headers ?? {})
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  const start = performance.now();
  const recordFrom = start + opts.warmupMs;
  const end = recordFrom + opts.durationMs;
  const result: LoadResult = { latencies: [], requests: 0, bytes: 0, errors: 0, non200: 0, elapsedMs: opts.durationMs, gzipShare: 0 };
  let gzip = 0;

  function client(): Promise<void> {
    return new Promise<void>((resolve) => {
      let socket: net.Socket;
      let st = freshState();
      let sent = 0;
      const send = (): void => {
        if (performance.now() >= end) {
          socket.destroy();
          resolve();
          return;
        }
        st = freshState();
        sent = performance.now();
        socket.write(`GET ${opts.nextPath()} HTTP/1.1\r\nhost: ${url.host}\r\n${extra}\r\n`, 'latin1');
      };
      const fail = (): void => {
        // Counted when it happens in the recorded phase, also for a connection never made.
        if (performance.now() >= recordFrom) result.errors++;
        socket.destroy();
        connect();
      };
      const connect = (): void => {
        // Events of a socket already replaced by fail() are ignored.
        const s = net.connect({ host: url.hostname, port: Number(url.port), noDelay: true });
        socket = s;
        s.once('connect', send);
        s.on('data', (data: Buffer) => {
          if (s !== socket) return;
          if (!feed(st, data)) return fail();
          if (!st.done) return;
          const now = performance.now();
          if (sent >= recordFrom && now <= end) {
            result.latencies.push(now - sent);
            result.requests++;
            result.bytes += st.bytes;
            if (st.status !== 200) result.non200++;
            if (st.gzip) gzip++;
          }
          send();
        });
        s.once('error', () => undefined);
        s.once('close', () => {
          if (s !== socket) return;
          if (performance.now() >= end) resolve();
          else if (!st.done) fail();
        });
      };
      connect();
    });
  }
  await Promise.all(Array.from({ length: opts.clients }, () => client()));
  result.gzipShare = result.requests === 0 ? 0 : gzip / result.requests;
  return result;
}
