import { describe, expect, it } from 'vitest';
import { LimitExceededError, TerminalError, findTerminal, isLimitExceeded, wrapError } from './index.ts';

describe('isLimitExceeded', () => {
  it('finds a LimitExceededError through wrapping and inside an AggregateError (a joined error)', () => {
    const limit = new LimitExceededError('ingest timed out');
    expect(isLimitExceeded(limit)).toBe(true);
    expect(isLimitExceeded(wrapError('source catalog content', limit))).toBe(true);
    const joined = new Error('a\nb', { cause: new AggregateError([new Error('error updating status: conflict'), wrapError('x', limit)]) });
    expect(isLimitExceeded(joined)).toBe(true);
  });

  it('is false for other errors', () => {
    expect(isLimitExceeded(wrapError('source catalog content', new Error('connection refused')))).toBe(false);
    expect(isLimitExceeded(new AggregateError([new Error('a')]))).toBe(false);
    expect(isLimitExceeded('a string')).toBe(false);
  });

  it('leaves findTerminal finding the first TerminalError, now also inside an AggregateError', () => {
    const terminal = new TerminalError('bad ref', { reason: 'Blocked' });
    expect(findTerminal(new Error('joined', { cause: new AggregateError([new Error('a'), terminal]) }))).toBe(terminal);
  });
});
