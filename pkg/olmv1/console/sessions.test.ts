import { describe, expect, it } from 'vitest';
import { bearerSignIn, jwtExpiry, type ReviewAnswer } from './bearer-sign-in.ts';
import { clusterGuard } from './cluster-guard.ts';
import { CLEAR_SESSION_COOKIE, createSessionStore, type ConsoleSession } from './sessions.ts';

const alice = { username: 'system:serviceaccount:team:alice', groups: ['system:serviceaccounts'] };

function store(o: { idleMs?: number } = {}) {
  let t = 1_000_000;
  let n = 0;
  const ended: [string, string][] = [];
  const s = createSessionStore({
    idleMs: o.idleMs ?? 30 * 60_000,
    random: () => `r${++n}`,
    now: () => t,
    onEnd: (x, why) => ended.push([x.id, why]),
  });
  return { s, ended, advance: (ms: number) => (t += ms), now: () => t };
}

describe('console sessions', () => {
  it('opens a session in an HttpOnly, Secure, SameSite=Strict __Host- cookie, with keys of its own', () => {
    const { s } = store();
    const a = s.open({ user: alice, token: 'tok-a' });
    const b = s.open({ user: alice, token: 'tok-b' });
    expect(a.setCookie).toBe(`__Host-olmv1_console=${a.session.id}; HttpOnly; Secure; SameSite=Strict; Path=/`);
    expect(new Set([a.session.id, a.session.pageKey, a.session.csrfToken, a.session.iconKey, b.session.id, b.session.csrfToken]).size).toBe(6);
    expect(s.find(`x=1; __Host-olmv1_console=${b.session.id}`)?.token).toBe('tok-b');
    expect(s.find('__Host-olmv1_console=nope')).toBeUndefined();
    expect(s.find(undefined)).toBeUndefined();
  });

  it('ends a session idle for the configured time, and not one in use', () => {
    const { s, ended, advance } = store({ idleMs: 1000 });
    const { session } = s.open({ user: alice, token: 't' });
    const cookie = `__Host-olmv1_console=${session.id}`;
    advance(999);
    expect(s.find(cookie)).toBeDefined(); // touched: idle from now on
    advance(999);
    expect(s.find(cookie)).toBeDefined();
    advance(1000);
    expect(s.find(cookie)).toBeUndefined();
    expect(ended).toEqual([[session.id, 'idle']]);
    expect(s.size).toBe(0);
  });

  it("ends a session at its credential's expiry, and sweeps idle ones", () => {
    const { s, ended, advance, now } = store({ idleMs: 10_000 });
    const a = s.open({ user: alice, token: 't', expiresAt: now() + 500 }).session;
    const b = s.open({ user: alice, token: 'u' }).session;
    advance(500);
    expect(s.find(`__Host-olmv1_console=${a.id}`)).toBeUndefined();
    advance(10_000);
    s.sweep();
    expect(ended).toEqual([
      [a.id, 'expired'],
      [b.id, 'idle'],
    ]);
  });

  it('signs out: the session is gone and the cookie cleared', () => {
    const { s, ended } = store();
    const { session } = s.open({ user: alice, token: 't' });
    const cookie = `__Host-olmv1_console=${session.id}`;
    expect(s.close(cookie)).toBe(CLEAR_SESSION_COOKIE);
    expect(CLEAR_SESSION_COOKIE).toMatch(/Max-Age=0/);
    expect(s.find(cookie)).toBeUndefined();
    expect(ended).toEqual([[session.id, 'signed-out']]);
    expect(s.close(cookie)).toBe(CLEAR_SESSION_COOKIE);
  });
});

describe('in-cluster guard', () => {
  const host = 'console.example:8443';
  const setup = () => {
    const { s } = store();
    const session: ConsoleSession = s.open({ user: alice, token: 't' }).session;
    const cookie = `__Host-olmv1_console=${session.id}`;
    const page = { cookie, 'x-olmv1-session': session.pageKey };
    const g = (method: string, url: string, headers: Record<string, string> = {}) => clusterGuard({ method, url, headers: { host, ...headers } }, s);
    return { s, session, cookie, page, g };
  };

  it('serves the sign-in page and bundle to anyone, and sends the page without a session to sign in', () => {
    const { g } = setup();
    expect(g('GET', '/signin')).toEqual({ kind: 'public' });
    expect(g('GET', '/assets/main.js')).toEqual({ kind: 'public' });
    expect(g('GET', '/')).toEqual({ kind: 'redirect', location: '/signin' });
    expect(g('GET', '/api/hub')).toMatchObject({ kind: 'deny', status: 401 });
  });

  it('refuses a sign-in form posted from another origin (login CSRF)', () => {
    const { g } = setup();
    expect(g('POST', '/signin', { origin: 'https://evil.example' })).toMatchObject({ kind: 'deny', status: 403 });
    expect(g('POST', '/signin', { 'sec-fetch-site': 'cross-site' })).toMatchObject({ kind: 'deny', status: 403 });
    expect(g('POST', '/signin', { origin: `https://${host}` })).toEqual({ kind: 'public' });
    // A form posted under Referrer-Policy no-referrer: Origin null, and Sec-Fetch-Site says whence.
    expect(g('POST', '/signin', { origin: 'null', 'sec-fetch-site': 'same-origin' })).toEqual({ kind: 'public' });
    expect(g('POST', '/signin', { origin: 'null', 'sec-fetch-site': 'cross-site' })).toMatchObject({ kind: 'deny', status: 403 });
    expect(g('POST', '/signin', { origin: 'null' })).toMatchObject({ kind: 'deny', status: 403 });
  });

  it("lets the session's page read, and write only with its CSRF token from its own origin", () => {
    const { g, page, session, cookie } = setup();
    expect(g('GET', '/', { cookie })).toMatchObject({ kind: 'pass', session });
    expect(g('GET', '/api/hub', page)).toMatchObject({ kind: 'pass', session });
    expect(g('GET', '/api/hub', { cookie })).toMatchObject({ kind: 'deny', status: 401 });
    expect(g('GET', `/api/icons/x?k=${session.iconKey}`, { cookie })).toMatchObject({ kind: 'pass' });
    const write = { ...page, origin: `https://${host}` };
    expect(g('POST', '/api/install', write)).toMatchObject({ kind: 'deny', status: 403, message: 'missing or invalid CSRF token' });
    expect(g('POST', '/api/install', { ...write, 'x-csrf-token': 'wrong' })).toMatchObject({ kind: 'deny', status: 403 });
    expect(g('POST', '/api/install', { ...write, 'x-csrf-token': session.csrfToken })).toMatchObject({ kind: 'pass' });
    expect(g('POST', '/api/install', { ...page, 'x-csrf-token': session.csrfToken })).toMatchObject({ kind: 'deny', status: 403 });
    expect(g('POST', '/api/install', { ...write, origin: 'https://evil.example', 'x-csrf-token': session.csrfToken })).toMatchObject({
      kind: 'deny',
      status: 403,
    });
  });

  it("refuses another session's keys, and everything once signed out", () => {
    const { g, s, page, cookie } = setup();
    const other = s.open({ user: alice, token: 'u' }).session;
    expect(g('GET', '/api/hub', { ...page, 'x-olmv1-session': other.pageKey })).toMatchObject({ kind: 'deny', status: 401 });
    s.close(cookie);
    expect(g('GET', '/api/hub', page)).toMatchObject({ kind: 'deny', status: 401 });
    expect(g('GET', '/', { cookie })).toEqual({ kind: 'redirect', location: '/signin' });
  });
});

describe('bearer-token sign-in', () => {
  const jwt = (claims: object) => `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;
  const review = (answer: ReviewAnswer) => {
    const seen: string[] = [];
    return { seen, fn: (token: string) => (seen.push(token), Promise.resolve(answer)) };
  };
  const signal = new AbortController().signal;

  it('asks the API server who the token is, and keeps its expiry', async () => {
    const r = review({ ok: true, user: alice });
    const token = jwt({ exp: 2_000_000_000 });
    expect(await bearerSignIn(r.fn).signIn({ token: ` ${token}\n` }, signal)).toEqual({
      ok: true,
      value: { user: alice, token, expiresAt: 2_000_000_000_000 },
    });
    expect(r.seen).toEqual([token]);
    expect(jwtExpiry('opaque-token')).toBeUndefined();
  });

  it("refuses with the API server's words, and a malformed token without asking", async () => {
    const r = review({ ok: false, status: 401, message: 'Unauthorized' });
    expect(await bearerSignIn(r.fn).signIn({ token: 'abc' }, signal)).toEqual({
      ok: false,
      error: { status: 401, message: 'the API server refused the token: Unauthorized' },
    });
    expect(await bearerSignIn(r.fn).signIn({ token: 'two words' }, signal)).toMatchObject({ ok: false, error: { status: 400 } });
    expect(await bearerSignIn(r.fn).signIn({ token: '' }, signal)).toMatchObject({ ok: false, error: { status: 400 } });
    expect(r.seen).toEqual(['abc']);
  });
});
