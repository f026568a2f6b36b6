import { describe, expect, it } from 'vitest';
import { TerminalError, wrapError } from '../errors/index.ts';
import { ApiError } from '../kube/index.ts';
import { PanicError } from './reconciler.ts';
import { logErrorSerializer } from './log-error.ts';

/** What pino writes for the serialized value. */
function logged(err: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(logErrorSerializer(err))) as Record<string, unknown>;
}

describe('logErrorSerializer', () => {
  it.each([
    ['a plain Error (resolution failure)', new Error('no bundles found for package "foo" matching version "9.9.9"')],
    ['a TerminalError', new TerminalError('invalid image reference', { reason: 'Blocked' })],
    ['a wrapped failure with causes', wrapError('pulling bundle', wrapError('fetching manifest', new Error('connection refused')))],
    ['an AggregateError', new AggregateError([new Error('a'), new Error('b')], 'two failures')],
  ])('expected failure, %s: message and cause chain, no stack', (_name, err) => {
    const out = logged(err);
    expect(JSON.stringify(out)).not.toContain('"stack"');
    expect(out.message).toBe(err.message);
    if (err.cause !== undefined) expect(out.cause).toMatchObject({ message: (err.cause as Error).message });
  });

  it('keeps the type and own fields of an ApiError', () => {
    const out = logged(new ApiError(403, 'Forbidden', 'secrets is forbidden'));
    expect(out).toMatchObject({ type: 'ApiError', message: 'secrets is forbidden', status: 403, reason: 'Forbidden' });
    expect(out).not.toHaveProperty('stack');
  });

  it.each([
    ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'spec')")],
    ['a PanicError', new PanicError('reconciler changed spec')],
    ['a RangeError', new RangeError('Invalid array length')],
    ['a programming error as a cause', wrapError('reconciling', new ReferenceError('x is not defined'))],
  ])('programming error, %s: stacks kept', (_name, err) => {
    const out = logged(err);
    expect(out.stack).toEqual(expect.stringContaining(err.message));
    if (err.cause !== undefined) expect(out.cause).toMatchObject({ stack: expect.stringContaining('ReferenceError') });
  });

  it('serializes thrown values that are not errors as pino does', () => {
    expect(logErrorSerializer('boom')).toBe('boom');
    expect(logged({ message: 'x' })).toEqual({ type: 'Object', message: 'x' });
  });
});
