import { describe, expect, it } from 'vitest';
import { parseDuration, parseListenAddress } from './flags.ts';

describe('parseDuration', () => {
  it.each([
    ['12h', 43_200_000],
    ['1h30m', 5_400_000],
    ['90s', 90_000],
    ['250ms', 250],
    ['1.5s', 1500],
  ])('%s', (v, ms) => expect(parseDuration(v)).toBe(ms));
  it.each(['', '12', 'h', '5d', '1h x'])('rejects %j', (v) => expect(() => parseDuration(v)).toThrow(/invalid duration/));
});

describe('parseListenAddress', () => {
  it('parses host, empty host and IPv6 forms', () => {
    expect(parseListenAddress('127.0.0.1:8443')).toEqual({ host: '127.0.0.1', port: 8443 });
    expect(parseListenAddress(':8081')).toEqual({ host: '0.0.0.0', port: 8081 });
    expect(parseListenAddress('[::1]:0')).toEqual({ host: '::1', port: 0 });
  });
  it('rejects malformed addresses', () => {
    expect(() => parseListenAddress('8080')).toThrow(/invalid address/);
    expect(() => parseListenAddress('host:99999')).toThrow(/invalid address/);
  });
});
