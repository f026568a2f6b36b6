import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, guard, SESSION_COOKIE, type GuardRequest } from './security.ts';

const c = { token: 't'.repeat(43), csrfToken: 'c'.repeat(43), hostPort: '127.0.0.1:8080' };
const req = (o: Partial<GuardRequest> & { headers?: GuardRequest['headers'] }): GuardRequest => ({
  method: 'GET',
  url: '/',
  ...o,
  headers: { host: '127.0.0.1:8080', ...o.headers },
});
const cookie = `${SESSION_COOKIE}=${c.token}`;

describe('console guard', () => {
  it('refuses a request without the session, with a wrong token, or for another Host', () => {
    expect(guard(req({}), c)).toMatchObject({ kind: 'deny', status: 401 });
    expect(guard(req({ url: '/?token=nope' }), c)).toMatchObject({ kind: 'deny', status: 403 });
    expect(guard(req({ headers: { cookie: `${SESSION_COOKIE}=nope` } }), c)).toMatchObject({ kind: 'deny', status: 401 });
    expect(guard(req({ headers: { host: 'evil.example:8080', cookie } }), c)).toMatchObject({ kind: 'deny', status: 400 });
  });

  it('moves the URL token to an HttpOnly SameSite=Strict cookie and cleans the URL', () => {
    expect(guard(req({ url: `/?token=${c.token}&x=1` }), c)).toEqual({
      kind: 'redirect',
      location: '/?x=1',
      setCookie: `${cookie}; HttpOnly; SameSite=Strict; Path=/`,
    });
    expect(guard(req({ headers: { cookie: `a=b; ${cookie}` } }), c)).toEqual({ kind: 'pass' });
    expect(guard(req({ headers: { host: 'localhost:8080', cookie } }), c)).toEqual({ kind: 'pass' });
  });

  it('lets a write through only with the CSRF token from the same origin', () => {
    const post = (h: Record<string, string>) => guard(req({ method: 'POST', headers: { cookie, ...h } }), c);
    expect(post({ origin: 'http://127.0.0.1:8080' })).toMatchObject({ kind: 'deny', status: 403 });
    expect(post({ origin: 'http://evil.example', 'x-csrf-token': c.csrfToken })).toMatchObject({ kind: 'deny', status: 403 });
    expect(post({ origin: 'http://127.0.0.1:8080', 'x-csrf-token': c.csrfToken, 'sec-fetch-site': 'cross-site' })).toMatchObject({ kind: 'deny' });
    expect(post({ origin: 'http://127.0.0.1:8080', 'x-csrf-token': c.csrfToken })).toEqual({ kind: 'pass' });
    expect(post({ 'sec-fetch-site': 'same-origin', 'x-csrf-token': c.csrfToken })).toEqual({ kind: 'pass' });
  });

  it('has a policy without inline script or remote sources', () => {
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe|\*|https?:/);
  });
});
