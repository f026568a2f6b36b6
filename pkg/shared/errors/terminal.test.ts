import { describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { TerminalError, errorMessage, findTerminal, isErrno, isTerminal, sanitizeNetworkError, wrapError } from './index.ts';

describe('TerminalError', () => {
  it('survives wrapping and keeps its reason', () => {
    const inner = new TerminalError('bad ref', { reason: 'InvalidConfiguration' });
    const wrapped = wrapError('source catalog content', inner);
    // As in Go, the terminal error prints its "terminal error: " marker where it was wrapped.
    expect(wrapped.message).toBe('source catalog content: terminal error: bad ref');
    expect(wrapError('outer', wrapped).message).toBe('outer: source catalog content: terminal error: bad ref');
    expect(isTerminal(wrapped)).toBe(true);
    expect(findTerminal(wrapped)?.reason).toBe('InvalidConfiguration');
  });

  it('does not mark ordinary errors terminal', () => {
    const wrapped = wrapError('error storing fbc', new Error('disk full'));
    expect(isTerminal(wrapped)).toBe(false);
    expect(wrapped.cause).toBeInstanceOf(Error);
  });
});

describe('errorMessage and isErrno', () => {
  it('reads the message of any thrown value', () => {
    expect(errorMessage(new Error('disk full'))).toBe('disk full');
    expect(errorMessage('plain string')).toBe('plain string');
    expect(errorMessage(undefined)).toBe('undefined');
  });

  it('recognizes a system error by its code', async () => {
    const err: unknown = await readFile('/nonexistent/olmv1-errno-test').catch((e: unknown) => e);
    expect(isErrno(err)).toBe(true);
    expect(isErrno(err, 'ENOENT')).toBe(true);
    expect(isErrno(err, 'EPERM')).toBe(false);
  });

  it('rejects values without a string code', () => {
    expect(isErrno(new Error('no code'))).toBe(false);
    expect(isErrno({ code: 'ENOENT', message: 'not an Error' })).toBe(false);
    expect(isErrno(Object.assign(new Error('numeric'), { code: 2 }))).toBe(false);
    expect(isErrno(undefined, 'ENOENT')).toBe(false);
  });
});

describe('sanitizeNetworkError', () => {
  it('removes ephemeral socket details for IPv4 and IPv6', () => {
    expect(sanitizeNetworkError('Get "x": read tcp 10.0.0.1:51234->10.0.0.2:443: connection reset')).toBe('Get "x": connection reset');
    expect(sanitizeNetworkError('write udp [::1]:5000->[fe80::1]:53: refused')).toBe('refused');
  });

  it('leaves other text untouched', () => {
    expect(sanitizeNetworkError('no bundles found for package "foo"')).toBe('no bundles found for package "foo"');
  });
});
