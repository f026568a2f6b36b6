import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { AccessSubject, NonResourceAccess, TokenReviewResult } from '../kube/index.ts';
import { MetricsAuth, bearerToken } from './metrics-auth.ts';

const log = pino({ level: 'silent' });
const READER: AccessSubject = { user: 'system:serviceaccount:monitoring:prometheus', groups: ['system:serviceaccounts'] };
const OTHER: AccessSubject = { user: 'system:serviceaccount:default:nobody' };

/** Reviews answered from tables, counting calls; a token 'boom' fails the TokenReview itself. */
function reviews(allowed: (s: AccessSubject, a: NonResourceAccess) => boolean = (s, a) => s.user === READER.user && a.verb === 'get') {
  const calls = { authenticate: 0, authorize: 0 };
  const tokens: Record<string, TokenReviewResult> = {
    reader: { authenticated: true, subject: READER, audiences: [] },
    other: { authenticated: true, subject: OTHER, audiences: [] },
  };
  return {
    calls,
    authenticate: async (token: string): Promise<TokenReviewResult> => {
      calls.authenticate++;
      await Promise.resolve();
      if (token === 'boom') throw new Error('tokenreviews.authentication.k8s.io is forbidden');
      return tokens[token] ?? { authenticated: false, error: 'invalid bearer token' };
    },
    authorize: async (s: AccessSubject, a: NonResourceAccess) => {
      calls.authorize++;
      await Promise.resolve();
      return { allowed: allowed(s, a), reason: '' };
    },
  };
}

describe('bearerToken', () => {
  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['  BEARER abc  ', 'abc'],
    ['Bearer abc extra', 'abc'],
    ['Bearer  abc', undefined],
    ['Bearer ', undefined],
    ['Basic dXNlcjpwYXNz', undefined],
    ['abc', undefined],
    [undefined, undefined],
  ])('%j -> %j', (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });
});

describe('MetricsAuth', () => {
  it('answers 200 to an authorized token, 401 without or with a refused token, 403 to a token without the grant', async () => {
    const auth = new MetricsAuth({ ...reviews(), log });
    expect(await auth.check('Bearer reader', 'GET', '/metrics')).toEqual({ status: 200, user: READER.user });
    expect(await auth.check(undefined, 'GET', '/metrics')).toEqual({ status: 401, message: 'Unauthorized' });
    expect(await auth.check('Bearer forged', 'GET', '/metrics')).toEqual({ status: 401, message: 'Unauthorized' });
    expect(await auth.check('Bearer other', 'GET', '/metrics')).toEqual({
      status: 403,
      message: 'Authorization denied for user system:serviceaccount:default:nobody',
    });
    // The verb is the lower-cased method: a grant of get does not cover post.
    expect((await auth.check('Bearer reader', 'POST', '/metrics')).status).toBe(403);
  });

  it('answers 500 when a review cannot be made, and does not cache that', async () => {
    const r = reviews();
    let failing = true;
    const auth = new MetricsAuth({
      ...r,
      authorize: async (s, a) => {
        if (failing) throw new Error('connect ECONNREFUSED');
        return r.authorize(s, a);
      },
      log,
    });
    expect(await auth.check('Bearer boom', 'GET', '/metrics')).toEqual({ status: 500, message: 'Authentication failed' });
    expect(await auth.check('Bearer reader', 'GET', '/metrics')).toEqual({
      status: 500,
      message: `Authorization for user ${READER.user} failed`,
    });
    failing = false;
    expect((await auth.check('Bearer reader', 'GET', '/metrics')).status).toBe(200);
  });

  it('caches token answers for a minute, allowed decisions for 5 minutes and denials for 30 seconds', async () => {
    let now = 0;
    const r = reviews();
    const auth = new MetricsAuth({ ...r, log, now: () => now });
    const scrape = (token: string) => auth.check(`Bearer ${token}`, 'GET', '/metrics');
    // A scrape every 15 s for 10 minutes: a TokenReview a minute, a SubjectAccessReview every 5.
    for (now = 0; now < 600_000; now += 15_000) expect((await scrape('reader')).status).toBe(200);
    expect(r.calls).toEqual({ authenticate: 10, authorize: 2 });
    // A refused token is remembered too; a denial for 30 s.
    for (const t of [0, 1_000, 59_000]) {
      now = 600_000 + t;
      expect((await scrape('forged')).status).toBe(401);
      expect((await scrape('other')).status).toBe(403);
    }
    expect(r.calls).toEqual({ authenticate: 12, authorize: 4 });
  });

  it('makes one review for concurrent requests with the same token', async () => {
    const r = reviews();
    const auth = new MetricsAuth({ ...r, log });
    const answers = await Promise.all(Array.from({ length: 20 }, () => auth.check('Bearer reader', 'GET', '/metrics')));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(r.calls).toEqual({ authenticate: 1, authorize: 1 });
  });

  it('keeps at most maxEntries tokens, dropping the oldest', async () => {
    const r = reviews();
    const auth = new MetricsAuth({ ...r, log, maxEntries: 2 });
    for (const t of ['a', 'b', 'c', 'a']) await auth.check(`Bearer ${t}`, 'GET', '/metrics');
    expect(r.calls.authenticate).toBe(4);
  });
});
