import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, guard, newSessionSecrets, sessionCookieName, type GuardRequest } from './security.ts';

const secrets = { token: 't'.repeat(43), cookie: 'b'.repeat(43), pageKey: 'k'.repeat(43), csrfToken: 'c'.repeat(43), iconKey: 'i'.repeat(43) };
const c = { secrets, hostPort: '127.0.0.1:8080' };
const req = (o: Partial<GuardRequest> & { headers?: GuardRequest['headers'] }): GuardRequest => ({
  method: 'GET',
  url: '/',
  ...o,
  headers: { host: '127.0.0.1:8080', ...o.headers },
});
const cookie = `olmv1_console_8080=${secrets.cookie}`;
/** What the console's page sends with every API request. */
const page = { cookie, 'x-olmv1-session': secrets.pageKey };

describe('console guard', () => {
  it('refuses a request without the session, with a wrong token, or for another Host', () => {
    expect(guard(req({}), c)).toMatchObject({ kind: 'deny', status: 401 });
    expect(guard(req({ url: '/?token=nope' }), c)).toMatchObject({ kind: 'deny', status: 403 });
    expect(guard(req({ headers: { cookie: 'olmv1_console_8080=nope' } }), c)).toMatchObject({ kind: 'deny', status: 401 });
    expect(guard(req({ headers: { host: 'evil.example:8080', cookie } }), c)).toMatchObject({ kind: 'deny', status: 400 });
    expect(guard(req({ url: '/api/hub', headers: { ...page, host: '127.0.0.1:9090' } }), c)).toMatchObject({ kind: 'deny', status: 400 });
  });

  it('signs in with the URL token: a cookie named for this port, the page key in the fragment, the URL cleaned', () => {
    expect(sessionCookieName(8080)).toBe('olmv1_console_8080');
    expect(guard(req({ url: `/?token=${secrets.token}&x=1` }), c)).toEqual({
      kind: 'redirect',
      location: `/?x=1#olmv1-session=${secrets.pageKey}`,
      setCookie: `${cookie}; HttpOnly; SameSite=Strict; Path=/`,
    });
    // The token is not one-time: each visit signs a browser in.
    expect(guard(req({ url: `/?token=${secrets.token}` }), c)).toMatchObject({ kind: 'redirect', location: `/#olmv1-session=${secrets.pageKey}` });
  });

  it('opens the page and its bundle with the cookie alone, and nothing of the API', () => {
    expect(guard(req({ headers: { cookie: `a=b; ${cookie}` } }), c)).toEqual({ kind: 'pass' });
    expect(guard(req({ headers: { host: 'localhost:8080', cookie } }), c)).toEqual({ kind: 'pass' });
    expect(guard(req({ url: '/assets/main.js', headers: { cookie } }), c)).toEqual({ kind: 'pass' });
    expect(guard(req({ url: '/favicon.ico', headers: { cookie } }), c)).toEqual({ kind: 'pass' });
    // A navigation from another port (a link on its page) still gets the page: the page is no secret.
    expect(guard(req({ headers: { cookie, 'sec-fetch-site': 'same-site' } }), c)).toEqual({ kind: 'pass' });
    for (const url of ['/api/session', '/api/hub', '/api/extensions/x', '/api/icons/c/p'])
      expect(guard(req({ url, headers: { cookie } }), c), url).toMatchObject({ kind: 'deny', status: 401 });
    // A write replayed with the cookie, the console's Origin and a guessed CSRF token: refused before the CSRF check.
    const replay = { cookie, origin: 'http://127.0.0.1:8080', 'sec-fetch-site': 'same-origin', 'x-csrf-token': secrets.csrfToken };
    expect(guard(req({ method: 'POST', url: '/api/catalogs', headers: replay }), c)).toMatchObject({ kind: 'deny', status: 401 });
  });

  it('lets the API through only with the page key, and an icon with the icon key', () => {
    expect(guard(req({ url: '/api/hub', headers: page }), c)).toEqual({ kind: 'pass' });
    expect(guard(req({ url: '/api/hub', headers: { ...page, 'x-olmv1-session': 'k'.repeat(42) } }), c)).toMatchObject({ kind: 'deny', status: 403 });
    // The key without the cookie is not a session either.
    expect(guard(req({ url: '/api/hub', headers: { 'x-olmv1-session': secrets.pageKey } }), c)).toMatchObject({ kind: 'deny', status: 401 });
    expect(guard(req({ url: `/api/icons/c/p?k=${secrets.iconKey}`, headers: { cookie } }), c)).toEqual({ kind: 'pass' });
    expect(guard(req({ url: '/api/icons/c/p?k=nope', headers: { cookie } }), c)).toMatchObject({ kind: 'deny', status: 403 });
    // The icon key opens icons only, and only to read.
    expect(guard(req({ url: `/api/hub?k=${secrets.iconKey}`, headers: { cookie } }), c)).toMatchObject({ kind: 'deny', status: 401 });
    const post = { cookie, origin: 'http://127.0.0.1:8080', 'x-csrf-token': secrets.csrfToken };
    expect(guard(req({ method: 'POST', url: `/api/icons/c/p?k=${secrets.iconKey}`, headers: post }), c)).toMatchObject({ kind: 'deny', status: 401 });
  });

  it("takes this port's cookie among the others of the host, never another port's", () => {
    expect(guard(req({ url: '/api/hub', headers: { ...page, cookie: `olmv1_console_8080=junk; ${cookie}` } }), c)).toEqual({ kind: 'pass' });
    expect(guard(req({ headers: { cookie: `olmv1_console_9090=${secrets.cookie}` } }), c)).toMatchObject({ kind: 'deny', status: 401 });
  });

  it('refuses requests from another origin (another port included) or site, even with the session', () => {
    for (const origin of ['http://127.0.0.1:9090', 'http://evil.example', 'null'])
      expect(guard(req({ url: '/api/hub', headers: { ...page, origin } }), c), origin).toMatchObject({ kind: 'deny', status: 403 });
    for (const site of ['same-site', 'cross-site'])
      expect(guard(req({ url: '/api/hub', headers: { ...page, 'sec-fetch-site': site } }), c), site).toMatchObject({ kind: 'deny', status: 403 });
    expect(guard(req({ url: '/api/hub', headers: { ...page, 'sec-fetch-site': 'same-origin' } }), c)).toEqual({ kind: 'pass' });
    expect(guard(req({ url: '/api/hub', headers: { ...page, origin: 'http://127.0.0.1:8080' } }), c)).toEqual({ kind: 'pass' });
  });

  it('lets a write through only with the CSRF token from the same origin', () => {
    const post = (h: Record<string, string>) => guard(req({ method: 'POST', url: '/api/catalogs', headers: { ...page, ...h } }), c);
    expect(post({ origin: 'http://127.0.0.1:8080' })).toMatchObject({ kind: 'deny', status: 403 });
    expect(post({ origin: 'http://evil.example', 'x-csrf-token': secrets.csrfToken })).toMatchObject({ kind: 'deny', status: 403 });
    expect(post({ origin: 'http://127.0.0.1:8080', 'x-csrf-token': secrets.csrfToken, 'sec-fetch-site': 'cross-site' })).toMatchObject({
      kind: 'deny',
    });
    expect(post({ 'x-csrf-token': secrets.csrfToken })).toMatchObject({ kind: 'deny', status: 403 });
    expect(post({ origin: 'http://127.0.0.1:8080', 'x-csrf-token': secrets.csrfToken })).toEqual({ kind: 'pass' });
    expect(post({ 'sec-fetch-site': 'same-origin', 'x-csrf-token': secrets.csrfToken })).toEqual({ kind: 'pass' });
  });

  it('makes every secret of its own', () => {
    let n = 0;
    const s = newSessionSecrets(() => `s${n++}`);
    expect(new Set(Object.values(s)).size).toBe(5);
  });

  it('has a policy without inline script or remote sources', () => {
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe|\*|https?:/);
  });
});
