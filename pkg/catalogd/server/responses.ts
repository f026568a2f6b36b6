/**
 * How this server ends a response, mirroring Go's net/http where clients can see it (`http.Error`,
 * ServeContent's 304). Every response goes out through `send`, `sendStream` or stream-body.ts,
 * which add EVERY_RESPONSE_HEADERS after those the handler set.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Duplex, type Readable, finished } from 'node:stream';
import { isErrno } from '../../shared/errors/index.ts';

/** Headers every response carries. */
const EVERY_RESPONSE_HEADERS: Readonly<Record<string, string>> = { vary: 'Accept-Encoding' };

/** The responses this server writes. */
export type Response = ServerResponse<IncomingMessage>;

/** Sets the headers every response carries. */
export function setEveryResponseHeaders(res: Response): void {
  for (const [name, value] of Object.entries(EVERY_RESPONSE_HEADERS)) res.setHeader(name, value);
}

/**
 * Ends `res` with `body` (none when undefined) and the headers set so far. A body gets a
 * Content-Length of its size, except that HEAD keeps the one the handler set (the size of the
 * body GET would get); no body gets `Content-Length: 0` where the status allows one (not on
 * 204, 304 or HEAD).
 */
export function send(res: Response, body?: string | Buffer): void {
  setEveryResponseHeaders(res);
  const head = res.req.method === 'HEAD';
  if (body === undefined) {
    if (res.statusCode >= 200 && res.statusCode !== 204 && res.statusCode !== 304 && !head) res.setHeader('content-length', '0');
    res.end();
    return;
  }
  const size = Buffer.byteLength(body);
  const declared = res.getHeader('content-length');
  if (!declared || (!head && Number(declared) !== size)) res.setHeader('content-length', size);
  res.end(body);
}

/**
 * Sends `body` as it is read, chunked; resolves once `body` has ended or the response was cut
 * short. The headers go out with the first bytes, so a body that fails before producing any
 * rejects with its error (for the request's usual error answer); one that fails later cuts the
 * response short. A response that closes first destroys `body`.
 */
export function sendStream(res: Response, body: Readable): Promise<void> {
  setEveryResponseHeaders(res);
  let open = true;
  finished(res, () => {
    if (open) body.destroy();
  });
  const done = new Promise<void>((resolve, reject) => {
    finished(body, { writable: false }, (err) => {
      open = false;
      if (err == null) return resolve();
      if (!res.headersSent && !res.destroyed) return reject(err);
      res.destroy();
      resolve();
    });
  });
  body.pipe(res);
  return done;
}

/** Go's http.Error: text/plain body `<message>\n`, nosniff, no Content-Length of the old body. */
export function httpError(res: Response, status: number, message: string): void {
  res.removeHeader('content-length');
  res.removeHeader('content-encoding');
  res.statusCode = status;
  res.setHeader('content-type', 'text/plain; charset=utf-8');
  res.setHeader('x-content-type-options', 'nosniff');
  send(res, `${message}\n`);
}

/** A 304: no body, and the entity headers removed. */
export function notModified(res: Response): void {
  res.removeHeader('content-type');
  res.removeHeader('content-length');
  res.removeHeader('content-encoding');
  res.statusCode = 304;
  send(res);
}

/** A 412 with an empty body, as ServeContent writes it. */
export function preconditionFailed(res: Response): void {
  res.statusCode = 412;
  send(res);
}

/** The standard texts used in bodies. */
export const STATUS_TEXT = {
  notFoundPage: '404 page not found',
  notFound: '404 Not Found',
  forbidden: '403 Forbidden',
  badRequest: '400 Bad Request',
  internal: '500 Internal Server Error',
  methodNotAllowed: 'Method Not Allowed',
} as const;

/** Maps a storage error to upstream's status and body (not-exist 404, permission 403, else 500). */
export function storageErrorResponse(res: Response, err: unknown): void {
  const code = isErrno(err) ? err.code : undefined;
  if (code === 'ENOENT' || code === 'ENOTDIR') return httpError(res, 404, STATUS_TEXT.notFound);
  if (code === 'EACCES' || code === 'EPERM') return httpError(res, 403, STATUS_TEXT.forbidden);
  return httpError(res, 500, STATUS_TEXT.internal);
}

/**
 * The answer to a request that never reached the handler (the server's `clientError`): a
 * request that timed out (408), headers over the size limit (431), anything else that is not
 * HTTP (400), each with a small JSON body; then the connection is closed. Nothing is written to
 * a connection that was reset or is already gone.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'Client Timeout']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'Exceeded maximum allowed HTTP header size']
        : [400, 'Bad Request', 'Client Error'];
  const body = JSON.stringify({ error: reason, message, statusCode: status });
  // A response already started on this connection (a bad request pipelined behind one being
  // answered) must not get a status line in the middle of its body.
  const current = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && current?.headersSent !== true)
    socket.write(`HTTP/1.1 ${status} ${reason}\r\nContent-Length: ${body.length}\r\nContent-Type: application/json\r\n\r\n${body}`);
  socket.destroy(err);
}
