/**
 * A JSON.parse failure told without the text parsed (issue 69): V8's SyntaxError quotes the
 * input around the error (`Unexpected token 'S', "SUPERSECRE"... is not valid JSON`), and the
 * input may be a Secret's value, which must reach no status, Event or log. Only what V8 says of
 * the place is kept.
 */

/** `not valid JSON`, with V8's position when it names one; `unexpected end of JSON input` for truncated input. */
export function jsonSyntaxProblem(err: unknown): string {
  const message = err instanceof Error ? err.message : '';
  if (message.startsWith('Unexpected end of JSON input')) return 'unexpected end of JSON input';
  const at = / at position (\d+)/.exec(message);
  return at === null ? 'not valid JSON' : `not valid JSON at position ${at[1] ?? ''}`;
}

/** JSON.parse of `text`; a syntax error is rethrown as {@link jsonSyntaxProblem}'s text, without the original (its message quotes `text`). */
export function parseJsonQuietly(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    // eslint-disable-next-line preserve-caught-error -- the SyntaxError quotes the parsed text (a Secret's bytes)
    throw new Error(jsonSyntaxProblem(err));
  }
}
