/**
 * Response helpers mirroring Go's net/http where clients can see the difference: `http.Error`
 * bodies and headers, and the 304 header stripping of ServeContent.
 */
import type { FastifyReply } from 'fastify';

/** Headers every response carries (the server's onSend hook adds them; streamed bodies too). */
export const EVERY_RESPONSE_HEADERS: Readonly<Record<string, string>> = { vary: 'Accept-Encoding' };

/** Go's http.Error: text/plain body `<message>\n`, nosniff, no Content-Length of the old body. */
export function httpError(reply: FastifyReply, status: number, message: string): FastifyReply {
  reply.removeHeader('content-length');
  reply.removeHeader('content-encoding');
  return reply.code(status).header('content-type', 'text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').send(`${message}\n`);
}

/** A 304: no body, and the entity headers removed. */
export function notModified(reply: FastifyReply): FastifyReply {
  reply.removeHeader('content-type');
  reply.removeHeader('content-length');
  reply.removeHeader('content-encoding');
  return reply.code(304).send();
}

/** A 412 with an empty body, as ServeContent writes it. */
export function preconditionFailed(reply: FastifyReply): FastifyReply {
  return reply.code(412).send();
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
export function storageErrorResponse(reply: FastifyReply, err: unknown): FastifyReply {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return httpError(reply, 404, STATUS_TEXT.notFound);
  if (code === 'EACCES' || code === 'EPERM') return httpError(reply, 403, STATUS_TEXT.forbidden);
  return httpError(reply, 500, STATUS_TEXT.internal);
}
