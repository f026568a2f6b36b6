/**
 * A query's answer as upstream's Go library writes it, and the messages of the bounds this
 * catalogd adds (decisions 0102, 0111).
 */
import type { GraphQLError } from 'graphql';
import type { JsonValue } from '../../shared/fbc/index.ts';
import { goJson } from './schema.ts';

/**
 * `data` (null when the query did not run), then `errors` when there are any, each with
 * `message`, `locations` (an empty list when the error has none) and `path` when it has one;
 * Go's JSON (keys sorted, `<`, `>`, `&` escaped) and a final newline.
 */
export function encodeAnswer(data: JsonValue, errors: ReadonlyArray<Pick<GraphQLError, 'message' | 'locations' | 'path'>>): string {
  const json = goJson;
  const parts = [`"data":${json(data)}`];
  if (errors.length > 0) {
    const list = errors.map((e) => {
      const fields = [
        `"message":${json(e.message)}`,
        `"locations":[${(e.locations ?? []).map((l) => `{"line":${l.line},"column":${l.column}}`).join(',')}]`,
      ];
      if (e.path !== undefined) fields.push(`"path":${json([...e.path])}`);
      return `{${fields.join(',')}}`;
    });
    parts.push(`"errors":[${list.join(',')}]`);
  }
  return `{${parts.join(',')}}\n`;
}

/** The answer of a query stopped by a bound: one error, no data. */
export function boundAnswer(message: string): string {
  return encodeAnswer(null, [{ message, locations: undefined, path: undefined }]);
}

export const answerTooLarge = (maxAnswerBytes: number): string => `query answer exceeds ${maxAnswerBytes} bytes`;
