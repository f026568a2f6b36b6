import { describe, expect, it } from 'vitest';
import { TerminalError, wrapError } from '../errors/index.ts';
import { MAX_CONDITION_MESSAGE_BYTES, TRUNCATION_SUFFIX } from './conditions.ts';
import { RETRYING_REASON, progressingFromError } from './error-condition.ts';

describe('progressingFromError', () => {
  it.each([
    ['a plain error is retried', new Error('connection refused'), { status: 'True', reason: RETRYING_REASON, message: 'connection refused' }],
    ['a thrown string is retried', 'just text', { status: 'True', reason: 'Retrying', message: 'just text' }],
    ['a terminal error is Blocked', new TerminalError('bad image reference'), { status: 'False', reason: 'Blocked', message: 'bad image reference' }],
    [
      'a terminal error keeps its own reason',
      new TerminalError('spec.config is invalid', { reason: 'InvalidConfiguration' }),
      { status: 'False', reason: 'InvalidConfiguration', message: 'spec.config is invalid' },
    ],
    [
      'a wrapped terminal error stays terminal, with the wrapped text',
      wrapError('error for resolved bundle "b" with version "1.0.0"', new TerminalError('no way')),
      { status: 'False', reason: 'Blocked', message: 'error for resolved bundle "b" with version "1.0.0": terminal error: no way' },
    ],
    [
      'socket details are removed',
      new Error('Get "https://registry.example/v2/": read tcp 1.2.3.4:5->6.7.8.9:443: read: connection reset by peer'),
      { status: 'True', reason: 'Retrying', message: 'Get "https://registry.example/v2/": read: connection reset by peer' },
    ],
    [
      'write and IPv6 socket details too',
      new Error('write tcp [::1]:51234->[fd00::1]:443: broken pipe'),
      { status: 'True', reason: 'Retrying', message: 'broken pipe' },
    ],
  ])('%s', (_name, err, want) => {
    expect(progressingFromError(err)).toEqual(want);
  });

  it('keeps a message of exactly 32768 bytes and truncates a longer one with the suffix', () => {
    const exact = 'x'.repeat(MAX_CONDITION_MESSAGE_BYTES);
    expect(progressingFromError(new Error(exact)).message).toBe(exact);
    const long = progressingFromError(new Error('y'.repeat(MAX_CONDITION_MESSAGE_BYTES + 1))).message;
    expect(Buffer.byteLength(long)).toBe(MAX_CONDITION_MESSAGE_BYTES);
    expect(long.endsWith(TRUNCATION_SUFFIX)).toBe(true);
    expect(long.startsWith('y'.repeat(1000))).toBe(true);
  });

  it('sanitizes before truncating and never splits a multi-byte character', () => {
    const prefix = 'read tcp 10.0.0.1:51234->10.0.0.2:443: ';
    const message = progressingFromError(new Error(prefix + 'é'.repeat(MAX_CONDITION_MESSAGE_BYTES))).message;
    expect(message.startsWith('éé')).toBe(true);
    expect(message).not.toContain('\uFFFD');
    expect(Buffer.byteLength(message)).toBeLessThanOrEqual(MAX_CONDITION_MESSAGE_BYTES);
    expect(message.endsWith(TRUNCATION_SUFFIX)).toBe(true);
  });
});
