import { request } from 'node:https';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSelfSignedCertificate } from '../localstack/index.ts';
import { bearerSignIn } from './bearer-sign-in.ts';
import { startClusterConsole } from './cluster-server.ts';
import type { ConsoleSources } from './sources.ts';

let dir: string;
let ca: string;
let running: Awaited<ReturnType<typeof startClusterConsole>>;
/** The tokens of each session's backend, and the backends closed. */
const backends: string[] = [];
const closed: string[] = [];
const deletes: [string, string][] = [];
/** The catalogs read from catalogd, by name, and the digest catalog "shared" serves now. */
const catalogReads: string[] = [];
let digest = 'r@sha256:a';
const EMPTY = { packages: [], channels: [], bundles: [], deprecations: [], others: [] };
const TILE = {
  displayName: 'P',
  provider: '',
  description: '',
  hasIcon: false,
  defaultChannel: 'stable',
  version: '1.0.0',
  categories: [],
  capabilities: '',
  infrastructure: [],
  installModes: [],
  keywords: [],
  arch: ['amd64'],
  os: ['linux'],
  support: '',
};

/** A source acting as `token`: "viewer" may read, not delete (the API server's words). */
function sourcesAs(token: string): ConsoleSources {
  const forbidden = () =>
    Object.assign(new Error(`clusterextensions.olm.operatorframework.io "x" is forbidden: User "${token}" cannot delete resource`), { status: 403 });
  return {
    // Both list catalog "shared"; only the admin may list "admins-only".
    listCatalogs: async () => [
      { name: 'shared', baseURL: 'https://catalogd.test/catalogs/shared', digestRef: digest },
      ...(token === 'admin' ? [{ name: 'admins-only', baseURL: 'https://catalogd.test/catalogs/admins-only', digestRef: 'r@sha256:b' }] : []),
    ],
    loadCatalog: async (name) => {
      catalogReads.push(name);
      return { packageNames: [`${name}-pkg`], load: () => EMPTY, tiles: [{ ...TILE, catalog: name, name: `${name}-pkg` }] };
    },
    listExtensions: async () => [{ metadata: { name: `seen-by-${token}` } }],
    getExtension: async () => ({}),
    extensionEvents: async () => [],
    releaseHistory: async () => [],
    crdPreview: async (extension) => ({ extension, crds: [], refusals: [], unchecked: [] }),
    installerObjects: async () => [],
    deleteExtension: async (name, uid) => {
      if (token === 'viewer') throw forbidden();
      deletes.push([name, uid]);
    },
    installState: () => ({ state: 'waiting', progress: '' }),
    install: async () => ({ ok: false, error: 'not here' }),
  } as ConsoleSources;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const url = new URL(path, running.origin);
  return new Promise((resolve, reject) => {
    const req = request(url, { method, ca, headers: { host: url.host, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const form = (o: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded', origin: running.origin },
  body: new URLSearchParams(o).toString(),
});

/** Signs in with `token`: the cookie and the page's key. */
async function signIn(token: string): Promise<{ cookie: string; key: string }> {
  const f = form({ token });
  const a = await call('POST', '/signin', f.headers, f.body);
  expect(a.status).toBe(303);
  const setCookie = String(a.headers['set-cookie']);
  return { cookie: setCookie.split(';')[0] ?? '', key: String(a.headers.location).split('=')[1] ?? '' };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cluster-console-'));
  await writeFile(join(dir, 'main.css'), 'body{}');
  const cert = await createSelfSignedCertificate(dir, { name: 'serving', commonName: '127.0.0.1', ipAddresses: ['127.0.0.1'] });
  ca = cert.certPem;
  let n = 0;
  running = await startClusterConsole({
    host: '127.0.0.1',
    port: 0,
    tls: { certPath: cert.certPath, keyPath: cert.keyPath },
    tokenSignIn: bearerSignIn(async (token) =>
      token === 'admin' || token === 'viewer'
        ? { ok: true, user: { username: `system:serviceaccount:t:${token}`, groups: [] } }
        : { ok: false, status: 401, message: 'Unauthorized' },
    ),
    oidc: {
      begin: () => ({
        url: 'https://issuer.test/oauth2/auth?state=s1',
        pending: { state: 's1', nonce: 'n1', verifier: 'v1', createdAt: Date.now() },
      }),
      signIn: {
        method: 'oidc',
        signIn: async (cb) =>
          cb.pending?.state === cb.state && cb.code === 'c1'
            ? { ok: true, value: { user: { username: 'admin@example.test', groups: ['admins'] }, token: 'admin' } }
            : { ok: false, error: { status: 400, message: 'sign-in state does not match: start again' } },
      },
    },
    backend: (s) => {
      backends.push(s.token);
      return Promise.resolve({ sources: sourcesAs(s.token), close: () => void closed.push(s.token) });
    },
    idleMs: 60_000,
    assetsDir: dir,
    log: pino({ level: 'silent' }),
    catalogTtlMs: 30_000,
    random: () => `r${++n}x`.padEnd(20, 'x'),
    now: () => Date.now(),
  });
});

afterAll(async () => {
  await running.close();
  await rm(dir, { recursive: true, force: true });
});

describe('in-cluster console', () => {
  it('serves the sign-in page over HTTPS, and sends the console without a session to it', async () => {
    const page = await call('GET', '/');
    expect(page).toMatchObject({ status: 303, headers: { location: '/signin' } });
    const signin = await call('GET', '/signin');
    expect(signin.status).toBe(200);
    expect(signin.body).toContain('<form method="post" action="/signin"');
    expect(signin.headers['content-security-policy']).toContain("script-src 'self'");
    expect((await call('GET', '/api/extensions')).status).toBe(401);
    expect((await call('GET', '/assets/main.css')).status).toBe(200);
  });

  it('refuses a token the API server refuses, with its words, and opens no session', async () => {
    const f = form({ token: 'stolen' });
    const a = await call('POST', '/signin', f.headers, f.body);
    expect(a.status).toBe(401);
    expect(a.body).toContain('the API server refused the token: Unauthorized');
    expect(a.headers['set-cookie']).toBeUndefined();
    expect(running.sessions()).toBe(0);
  });

  it('refuses a sign-in form posted from another origin', async () => {
    const a = await call('POST', '/signin', { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' }, 'token=admin');
    expect(a.status).toBe(403);
  });

  it("acts with each session's own token, and shows the API server's refusal", async () => {
    const admin = await signIn('admin');
    const viewer = await signIn('viewer');
    const asAdmin = { cookie: admin.cookie, 'x-olmv1-session': admin.key };
    const asViewer = { cookie: viewer.cookie, 'x-olmv1-session': viewer.key };
    expect(JSON.parse((await call('GET', '/api/extensions', asAdmin)).body)).toMatchObject({ extensions: [{ name: 'seen-by-admin' }] });
    expect(JSON.parse((await call('GET', '/api/extensions', asViewer)).body)).toMatchObject({ extensions: [{ name: 'seen-by-viewer' }] });
    // The admin's page key with the viewer's cookie: nothing.
    expect((await call('GET', '/api/extensions', { ...asViewer, 'x-olmv1-session': admin.key })).status).toBe(401);
    const { csrfToken } = JSON.parse((await call('GET', '/api/session', asViewer)).body) as { csrfToken: string };
    const write = { ...asViewer, origin: running.origin, 'content-type': 'application/json' };
    expect((await call('POST', '/api/extensions/x/uninstall', write, '{"uid":"u1"}')).status).toBe(403);
    const refused = await call('POST', '/api/extensions/x/uninstall', { ...write, 'x-csrf-token': csrfToken }, '{"uid":"u1"}');
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('is forbidden: User \\"viewer\\" cannot delete resource');
    expect(deletes).toEqual([]);
    expect(backends).toEqual(['admin', 'viewer']);
  });

  it('reads a catalog once for all sessions per content digest, and shows each session only the catalogs it may list', async () => {
    const hubOf = async (token: string): Promise<string[]> => {
      const { cookie, key } = await signIn(token);
      const h = JSON.parse((await call('GET', '/api/hub', { cookie, 'x-olmv1-session': key })).body) as { tiles: { name: string }[] };
      return h.tiles.map((t) => t.name).sort();
    };
    // The sessions of the tests before read too: every session shares the first read.
    expect(await hubOf('admin')).toEqual(['admins-only-pkg', 'shared-pkg']);
    expect(await hubOf('viewer')).toEqual(['shared-pkg']);
    expect(await hubOf('admin')).toEqual(['admins-only-pkg', 'shared-pkg']);
    expect(catalogReads.sort()).toEqual(['admins-only', 'shared']);
    // New content (a new digest): read again, once.
    digest = 'r@sha256:c';
    expect(await hubOf('viewer')).toEqual(['shared-pkg']);
    expect(await hubOf('viewer')).toEqual(['shared-pkg']);
    expect(catalogReads.filter((n) => n === 'shared')).toHaveLength(2);
  });

  it('signs in through the OpenID Connect issuer: the callback opens a session only in the browser that started it, once', async () => {
    expect((await call('GET', '/signin')).body).toContain('href="/signin/oidc"');
    const start = await call('GET', '/signin/oidc');
    expect(start.status).toBe(303);
    expect(start.headers.location).toBe('https://issuer.test/oauth2/auth?state=s1');
    const pending = String(start.headers['set-cookie']);
    expect(pending).toMatch(/^__Host-olmv1_oidc=[^;]+; HttpOnly; Secure; SameSite=Lax; Path=\//);
    const cookie = pending.split(';')[0] ?? '';
    // An attacker's code and state in another browser (login CSRF): no pending sign-in there.
    const foreign = await call('GET', '/signin/oidc/callback?code=c1&state=s1');
    expect(foreign.status).toBe(400);
    expect(foreign.body).toContain('sign-in state does not match');
    expect(foreign.headers['set-cookie']).toBeUndefined();
    const back = await call('GET', '/signin/oidc/callback?code=c1&state=s1', { cookie });
    // A page of the console's that opens the console: a redirect would continue the issuer's
    // cross-site navigation, in which the browser does not send the SameSite=Strict session cookie.
    expect(back.status).toBe(200);
    expect(back.headers.location).toBeUndefined();
    expect(back.body).toMatch(/<meta http-equiv="refresh" content="0; url=\/#olmv1-session=[^"]+">/);
    expect(String(back.headers['set-cookie'])).toContain('__Host-olmv1_console=');
    // The pending sign-in is spent: the same return again opens nothing.
    expect((await call('GET', '/signin/oidc/callback?code=c1&state=s1', { cookie })).status).toBe(400);
  });

  it('signs out with the CSRF token of the sign-out form: the session and its backend are gone', async () => {
    const s = await signIn('admin');
    const page = await call('GET', '/signout', { cookie: s.cookie });
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
    expect(page.body).toContain('system:serviceaccount:t:admin');
    const before = running.sessions();
    const wrong = form({ csrf: 'nope' });
    expect((await call('POST', '/signout', { ...wrong.headers, cookie: s.cookie }, wrong.body)).status).toBe(403);
    expect((await call('GET', '/api/extensions', { cookie: s.cookie, 'x-olmv1-session': s.key })).status).toBe(200);
    const right = form({ csrf });
    const out = await call('POST', '/signout', { ...right.headers, cookie: s.cookie }, right.body);
    expect(out).toMatchObject({ status: 303, headers: { location: '/signin' } });
    expect(String(out.headers['set-cookie'])).toContain('Max-Age=0');
    expect(running.sessions()).toBe(before - 1);
    expect((await call('GET', '/api/extensions', { cookie: s.cookie, 'x-olmv1-session': s.key })).status).toBe(401);
    expect(closed).toContain('admin');
  });
});
