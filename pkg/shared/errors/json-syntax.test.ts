import { describe, expect, it } from 'vitest';
import { jsonSyntaxProblem, parseJsonQuietly } from './json-syntax.ts';

const problem = (text: string): string => {
  try {
    JSON.parse(text);
  } catch (err) {
    return jsonSyntaxProblem(err);
  }
  throw new Error('parsed');
};

describe('jsonSyntaxProblem', () => {
  it('tells what is wrong without a byte of the input', () => {
    for (const text of ['SUPERSECRET-VALUE', '{"password": SUPERSECRET}', '{"a":1} SUPERSECRET', '"SUPERSECRET\u0001"', '{SUPERSECRET']) {
      expect(problem(text)).toMatch(/^not valid JSON( at position \d+)?$/);
      expect(problem(text)).not.toMatch(/SUPER|SECRET|S'/);
    }
    expect(problem('{"password": "SUPERSECRET')).toBe('not valid JSON at position 25');
    expect(problem('')).toBe('unexpected end of JSON input');
    expect(problem('{"a":1} x')).toBe('not valid JSON at position 8');
  });

  it('parseJsonQuietly parses JSON and throws the quiet problem otherwise, with no cause that quotes the input', () => {
    expect(parseJsonQuietly('{"a":[1]}')).toEqual({ a: [1] });
    let thrown: unknown;
    try {
      parseJsonQuietly('SUPERSECRET');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).message).toBe('not valid JSON');
    expect((thrown as Error).cause).toBeUndefined();
  });
});
