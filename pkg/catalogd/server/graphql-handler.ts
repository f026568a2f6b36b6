/**
 * `POST /catalogs/<name>/api/v1/graphql` (GraphQLCatalogQueries gate), in upstream's order: the
 * body (at most 1 MiB, an object with a `query` string, else 400 `Invalid request body`), 400
 * `Query cannot be empty`, 400 `Query too large` (over 100000 bytes), then the engine: 404 for
 * no catalog, 404/403/500 for storage failures, else 200 `application/json` (gzip when accepted
 * and 1024 bytes or more). `variables` and `operationName` are passed on (upstream: `query` only).
 */
import type { IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { isErrno } from '../../shared/errors/index.ts';
import { type JsonBounds, JsonBoundsScanner } from '../../shared/jsonbounds/index.ts';
import { MIN_COMPRESS_SIZE, header, negotiateCoding } from './http-semantics.ts';
import type { StoredVersion } from '../storage/index.ts';
import type { GraphqlRequest } from '../graphql/index.ts';
import { type Response, STATUS_TEXT, httpError, send, storageErrorResponse } from './responses.ts';

/** The engine: pkg/catalogd/graphql's CatalogQueries. Resolves undefined when the catalog has no content. */
export interface GraphqlQueries {
  query(v: StoredVersion | undefined, request: GraphqlRequest): Promise<string | undefined>;
}

const MAX_BODY = 1 << 20;
const gzipAsync = promisify(gzip);
const MAX_QUERY = 100_000;
/**
 * What a request body may nest and hold before it is parsed: a query string and flat variables
 * need a few levels; 1 MiB of `[` would otherwise hold the event loop for a second (decision 0113).
 */
const BODY_BOUNDS = { maxDepth: 64, maxContainers: 10_000 } as const satisfies JsonBounds;

/** Serves one GraphQL request (the method and catalog name are checked already). */
export async function serveGraphql(req: IncomingMessage, res: Response, v: StoredVersion | undefined, engine: GraphqlQueries): Promise<void> {
  const body = await readBody(req, MAX_BODY);
  // The rest of an oversized or too deeply nested body is not read: the connection ends with this answer.
  if (body === undefined) res.setHeader('connection', 'close');
  const request = body === undefined ? undefined : parseRequest(body);
  if (request === undefined) return httpError(res, 400, 'Invalid request body');
  if (request.query === '') return httpError(res, 400, 'Query cannot be empty');
  if (Buffer.byteLength(request.query) > MAX_QUERY) return httpError(res, 400, 'Query too large');
  let answer: string | undefined;
  try {
    answer = await engine.query(v, request);
  } catch (err) {
    // A file that cannot be read answers as for the other endpoints; anything else (a catalog
    // whose schema cannot be built) is the server's 500, logged.
    const cause = err instanceof Error ? err.cause : undefined;
    if (isErrno(cause)) return storageErrorResponse(res, cause);
    throw err;
  }
  if (answer === undefined) return httpError(res, 404, STATUS_TEXT.notFound);
  res.statusCode = 200;
  res.setHeader('content-type', 'application/json');
  // Compressed as upstream's middleware compresses every answer of 1024 bytes or more.
  if (answer.length >= MIN_COMPRESS_SIZE && negotiateCoding(header(req.headers, 'accept-encoding')) === 'gzip') {
    res.setHeader('content-encoding', 'gzip');
    return send(res, await gzipAsync(answer, { level: 1 }));
  }
  send(res, answer);
}

/**
 * The body, or undefined when it is longer than `max` bytes or nests past BODY_BOUNDS (the rest
 * is not read; Go's decoder refuses what nests past its own bound with the same answer).
 */
async function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  const scanner = new JsonBoundsScanner(BODY_BOUNDS);
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max || !scanner.push(chunk)) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The request a body carries, as Go's decoder reads it into upstream's struct; undefined when it does not decode. */
function parseRequest(body: Buffer): GraphqlRequest | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (value === null) return { query: '' };
  if (typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { query, variables, operationName } = value as Record<string, unknown>;
  if (query !== undefined && query !== null && typeof query !== 'string') return undefined;
  const request: GraphqlRequest = { query: query ?? '' };
  if (variables !== null && typeof variables === 'object' && !Array.isArray(variables)) request.variables = variables as Record<string, unknown>;
  if (typeof operationName === 'string' && operationName !== '') request.operationName = operationName;
  return request;
}
