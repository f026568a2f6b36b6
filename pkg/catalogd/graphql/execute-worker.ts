/**
 * The worker thread that runs GraphQL queries for catalogd (decision 0111): validation,
 * execution and the encoding of the answer, so that however much synchronous work a query
 * makes (introspection, `__typename`, long lists), the main thread keeps serving, the query's
 * memory is bounded by the worker's heap limit and its time limit can end it (the main thread
 * terminates the worker). Catalog objects are read by the main thread on request (`load`), so
 * storage stays in one place; the worker only parses the bytes it is sent.
 */
import { parentPort } from 'node:worker_threads';
import { type GraphQLSchema, execute, parse, validate } from 'graphql';
import type { JsonValue } from '../../shared/fbc/index.ts';
import { answerTooLarge, boundAnswer, encodeAnswer } from './answer.ts';
import { type QueryContext, buildCatalogSchema } from './schema.ts';
import type { FromWorker, RunQuery, ToWorker } from './worker-protocol.ts';

/** Schemas kept for the versions queried last. */
const KEPT_SCHEMAS = 4;

function serve(port: NonNullable<typeof parentPort>): void {
  const schemas = new Map<number, GraphQLSchema>();
  const loads = new Map<number, (bytes: Uint8Array, lengths: number[]) => void>();
  let nextLoad = 0;
  const post = (msg: FromWorker): void => port.postMessage(msg);

  const schemaOf = (q: RunQuery): GraphQLSchema => {
    let schema = schemas.get(q.key);
    if (schema === undefined) {
      schema = buildCatalogSchema(q.shape);
      if (schemas.size >= KEPT_SCHEMAS) schemas.delete(schemas.keys().next().value ?? q.key);
    } else schemas.delete(q.key);
    schemas.set(q.key, schema);
    return schema;
  };

  const load = (schema: string, offset: number, limit: number): Promise<Array<Record<string, unknown>>> =>
    new Promise((resolve) => {
      const id = nextLoad++;
      loads.set(id, (bytes, lengths) => {
        const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        let at = 0;
        resolve(lengths.map((n) => JSON.parse(buf.toString('utf8', at, (at += n))) as Record<string, unknown>));
      });
      post({ kind: 'load', id, schema, offset, limit });
    });

  const run = async (q: RunQuery): Promise<string> => {
    const schema = schemaOf(q);
    // The main thread parsed and checked this text already (limits.ts).
    const document = parse(q.query);
    const errors = validate(schema, document);
    if (errors.length > 0) return encodeAnswer(null, errors);
    const abort = new AbortController();
    let answered = 0;
    const ctx: QueryContext = {
      load,
      spend: (bytes) => {
        answered += bytes;
        if (answered > q.maxAnswerBytes) abort.abort();
        return !abort.signal.aborted;
      },
    };
    const tooLarge = boundAnswer(answerTooLarge(q.maxAnswerBytes));
    try {
      const { variables: variableValues, operationName } = q;
      const result = await execute({ schema, document, variableValues, operationName, contextValue: ctx, abortSignal: abort.signal });
      if (abort.signal.aborted) return tooLarge;
      const answer = encodeAnswer((result.data ?? null) as JsonValue, result.errors ?? []);
      // What the resolvers do not count (introspection, `__typename`, names) is in the whole answer.
      return Buffer.byteLength(answer) > q.maxAnswerBytes ? tooLarge : answer;
    } catch (err) {
      // Aborted at the bound, or an answer longer than a string can be.
      if (abort.signal.aborted || err instanceof RangeError) return tooLarge;
      throw err;
    }
  };

  port.on('message', (msg: ToWorker) => {
    if (msg.kind === 'loaded') {
      const deliver = loads.get(msg.id);
      loads.delete(msg.id);
      deliver?.(msg.bytes, msg.lengths);
      return;
    }
    // A failure here is a defect: it ends the worker, and the main thread reports the query failed.
    void run(msg).then((answer) => post({ kind: 'answer', answer }));
  });
}

if (parentPort === null) throw new Error('execute-worker.ts runs in a worker thread');
serve(parentPort);
