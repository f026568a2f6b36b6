import { describe, expect, it } from 'vitest';
import { findChallenge, parseAuthChallenges } from './auth-challenge.ts';

describe('parseAuthChallenges', () => {
  it('parses a registry bearer challenge', () => {
    const got = parseAuthChallenges('Bearer realm="https://auth.example.io/token",service="registry.example.io",scope="repository:ns/app:pull,push"');
    expect(got).toEqual([
      {
        scheme: 'bearer',
        params: { realm: 'https://auth.example.io/token', service: 'registry.example.io', scope: 'repository:ns/app:pull,push' },
      },
    ]);
  });

  it('parses basic, unquoted values, escapes, odd spacing and case', () => {
    const got = parseAuthChallenges('  BASIC   Realm = "Registry \\"Realm\\"" ,  charset=UTF-8 ');
    expect(got).toEqual([{ scheme: 'basic', params: { realm: 'Registry "Realm"', charset: 'UTF-8' } }]);
  });

  it('splits several challenges in one value and across header lines', () => {
    const got = parseAuthChallenges(['Basic realm="r1", Bearer realm="https://t/x",service="s"', 'Negotiate']);
    expect(got.map((c) => c.scheme)).toEqual(['basic', 'bearer', 'negotiate']);
    expect(findChallenge(got, 'Bearer')?.params).toEqual({ realm: 'https://t/x', service: 's' });
    expect(findChallenge(got, 'digest')).toBeUndefined();
  });

  it('returns nothing for a missing header and survives garbage', () => {
    expect(parseAuthChallenges(undefined)).toEqual([]);
    expect(() => parseAuthChallenges('=="",,,"unterminated')).not.toThrow();
  });
});
