// `olmv1 console` in a real browser (issue 62): Debian's chromium driven by playwright-core
// against the real API server, registry and catalogd serving the example catalog, a hostile
// catalog and a generated one. The console runs as the real command (cmd/olmv1/console.ts) with
// the admin kubeconfig; the tests browse, search, filter and open packages, check the session
// token, CSP and CSRF guards, that the session stays in its console (a listener on another local
// port replaying the browser's cookies acts as nobody; a second console leaves the first signed
// in), prove that hostile catalog content runs no script, run axe-core on each page and drive the
// hub by keyboard; they open an extension's detail (conditions, Events,
// release history, the objects of its release with their health, and a refusal in the row of an
// object the user may not read), refuse an uninstall without the CSRF token, show a restricted user's
// refusal from a second console running as that user, and uninstall with the preview of what is
// deleted and kept, and opted in, with its CRDs and their custom resources (as olmv1 uninstall
// --delete-crds, refused without CSRF); they show an upgrade plan and approve it, roll back to a
// revision (refused without CSRF, and with the command's refusal), a package's permissions, the
// cluster-upgrade gate, and add and remove a ClusterCatalog (refused without CSRF, and for a
// restricted user). Screenshots go to docs/images/console-*.png.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createKubeconfigLookup, connectCluster } from '../../cmd/olmv1/cluster-access.ts';
import { fetchBundleFiles } from '../../cmd/olmv1/bundle-image.ts';
import { runConsole } from '../../cmd/olmv1/console.ts';
import { createCatalogClient } from '../../pkg/operator-controller/catalogclient/index.ts';
import { Manifest, createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import { APPROVED_BUNDLE_ANNOTATION, CLUSTER_EXTENSION, OWNER_KIND_LABEL, OWNER_NAME_LABEL } from '../../pkg/shared/api/index.ts';
import { UPGRADEABLE_ANNOTATION, UPGRADEABLE_MESSAGE_ANNOTATION } from '../../pkg/operator-controller/gating/index.ts';
import { connect, isNotFound, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { requestServiceAccountToken, serviceAccountKubeconfig } from '../envtest/index.ts';
import { startCatalogd, type TestCatalogd } from '../support/catalogd.ts';
import { condition, pushCatalog, waitForCatalog, writeCatalogFiles } from '../support/catalogs.ts';
import { hostileCatalog, manyCatalog, XSS } from '../support/console-catalogs.ts';
import { installOlmConfig } from '../support/olm-config.ts';
import { bundleFiles, packageCatalog, pushBundle } from '../support/extensions.ts';
import { testTempDir, withTempDir } from '../support/temp-dir.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SHOTS = join(REPO, 'docs', 'images');
const id = randomBytes(3).toString('hex');
const LABEL = 'test.olmv1/console-suite';
const CATALOGS = { example: `example-${id}`, hostile: `hostile-${id}`, many: `many-${id}`, install: `inst-${id}` };
/** The package the install form installs: a real bundle image in the test registry. */
const INSTALL_PKG = `inst-${id}`;
/** Its bundle images, 1.0.0 then 1.1.0. */
const installImages: string[] = [];

let kube: KubeContext;
let catalogd: TestCatalogd;
let browser: Browser;
let url = '';
let origin = '';
const stop = new AbortController();
let consoleRun: Promise<number> | undefined;
const catalogClient = createCatalogClient();
/** Undone in afterAll, last first. */
const cleanup: (() => Promise<unknown>)[] = [];

/** Starts `olmv1 console` with `kubeconfig` (as the real command) until `signal` aborts; resolves with its URL. */
async function startConsoleAs(kubeconfig: string, signal: AbortSignal, args: string[] = []): Promise<{ url: string; run: Promise<number> }> {
  let printed = '';
  const lookup = createKubeconfigLookup({}, tmpdir());
  const run = runConsole(
    ['--kubeconfig', kubeconfig, ...args],
    { stdout: { write: (s: string) => (printed += s) }, stderr: { write: (s: string) => process.stderr.write(s) } },
    {
      signal,
      catalogClient,
      connectCluster: (flags) => connectCluster(flags, lookup, 1),
      fetchBundle: (ref, access) => fetchBundleFiles(ref, { insecureRegistries: ['127.0.0.1', 'localhost'], ...access }),
      cacheDir: join(tmpdir(), 'olmv1-console-test-bundle'),
      lockFile: join(REPO, 'package-lock.json'),
    },
  );
  const deadline = Date.now() + 60_000;
  while (!printed.includes('\n') && Date.now() < deadline) await Promise.race([run, new Promise((r) => setTimeout(r, 100))]);
  return { url: printed.trim(), run };
}

/** What the restricted users of these tests may do: read extensions, catalogs, CRDs, Events and namespaces; nothing else. */
const VIEWER_RULES = [
  { apiGroups: ['olm.operatorframework.io'], resources: ['clusterextensions', 'clustercatalogs'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['get', 'list'] },
  { apiGroups: [''], resources: ['events', 'namespaces'], verbs: ['get', 'list'] },
];

/** A second `olmv1 console` running as a new ServiceAccount `user` (in default) bound to `rules` cluster-wide; removed in afterAll. */
async function restrictedConsole(user: string, rules: object[], signal: AbortSignal): Promise<{ url: string; run: Promise<number> }> {
  const cp = inject('envtestControlPlane');
  const c = kube.client;
  const rbac = 'rbac.authorization.k8s.io/v1';
  await c.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: user, namespace: 'default' } });
  cleanup.push(() => c.delete({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: 'default', name: user }));
  await c.create({ apiVersion: rbac, kind: 'ClusterRole', metadata: { name: user }, rules });
  cleanup.push(() => c.delete({ apiVersion: rbac, kind: 'ClusterRole', name: user }));
  await c.create({
    apiVersion: rbac,
    kind: 'ClusterRoleBinding',
    metadata: { name: user },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: user },
    subjects: [{ kind: 'ServiceAccount', name: user, namespace: 'default' }],
  });
  cleanup.push(() => c.delete({ apiVersion: rbac, kind: 'ClusterRoleBinding', name: user }));
  const kubeconfig = join(await testTempDir('console-user-'), 'kubeconfig');
  await writeFile(kubeconfig, serviceAccountKubeconfig(cp, await requestServiceAccountToken(cp, 'default', user)));
  const started = await startConsoleAs(kubeconfig, signal);
  expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/);
  return started;
}

async function publish(name: string, dir: string): Promise<void> {
  const ref = `${inject('envtestRegistries').anonymous.host}/console/${name}:v1`;
  await pushCatalog(dir, ref);
  await kube.client.create({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name, labels: { [LABEL]: id } },
    spec: { source: { type: 'Image', image: { ref } } },
  });
}

beforeAll(async () => {
  const cp = inject('envtestControlPlane');
  await installOlmConfig(cp);
  kube = await connect({ kind: 'file', path: cp.kubeconfigPath });
  catalogd = await startCatalogd(cp, { leaderElect: false, logLevel: process.env.OLMV1_TEST_LOG ?? 'silent' });
  await publish(CATALOGS.example, join(REPO, 'examples', 'example-operator', 'catalog'));
  await withTempDir('console-fbc-', async (dir) => publish(CATALOGS.hostile, await writeCatalogFiles(dir, hostileCatalog())));
  await withTempDir('console-fbc-', async (dir) => publish(CATALOGS.many, await writeCatalogFiles(dir, manyCatalog(40))));
  const registry = inject('envtestRegistries').anonymous.host;
  const image = await pushBundle(bundleFiles({ pkg: INSTALL_PKG, version: '1.0.0' }), `${registry}/console/${INSTALL_PKG}-bundle:v1.0.0`);
  // 1.1.0: what the upgrade plan of an extension at 1.0.0 pulls, and the head whose permissions the package page shows.
  const next = await pushBundle(bundleFiles({ pkg: INSTALL_PKG, version: '1.1.0' }), `${registry}/console/${INSTALL_PKG}-bundle:v1.1.0`);
  installImages.push(image, next);
  const installCatalog = packageCatalog(INSTALL_PKG, {
    defaultChannel: 'stable',
    channels: [{ name: 'stable', entries: [{ version: '1.0.0' }, { version: '1.1.0', replaces: '1.0.0' }] }],
    bundles: [
      { version: '1.0.0', image },
      { version: '1.1.0', image: next },
    ],
  });
  await withTempDir('console-fbc-', async (dir) => publish(CATALOGS.install, await writeCatalogFiles(dir, installCatalog)));
  await Promise.all(Object.values(CATALOGS).map((n) => waitForCatalog(kube.client, n, (cc) => condition(cc, 'Serving')?.status === 'True', 90_000)));
  // An extension of the example package: the hub marks it Installed, the Installed page lists it.
  await kube.client.create({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name: `example-${id}`, labels: { [LABEL]: id } },
    spec: {
      namespace: 'default',
      serviceAccount: { name: 'default' },
      source: { sourceType: 'Catalog', catalog: { packageName: 'example-operator' } },
    },
  });

  const started = await startConsoleAs(cp.kubeconfigPath, stop.signal);
  consoleRun = started.run;
  url = started.url;
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
  origin = new URL(url).origin;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 240_000);

afterAll(async () => {
  for (const f of cleanup.reverse()) await f().catch(() => undefined);
  await browser?.close();
  stop.abort('SIGTERM');
  await consoleRun;
  catalogClient.close();
  if (kube !== undefined) {
    for (const kind of ['ClusterExtension', 'ClusterCatalog'])
      for (const o of (await kube.client.list({ apiVersion: 'olm.operatorframework.io/v1', kind }, { labelSelector: `${LABEL}=${id}` })).items)
        await kube.client.delete({ apiVersion: 'olm.operatorframework.io/v1', kind, name: o.metadata.name ?? '' }).catch(() => undefined);
  }
  await catalogd?.destroy();
  kube?.close();
});

/** A page in a fresh context, with what it did that a hostile catalog could cause. */
interface Watched {
  page: Page;
  context: BrowserContext;
  dialogs: string[];
  errors: string[];
  foreign: string[];
}

async function open(start = url): Promise<Watched> {
  const home = new URL(start).origin;
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const w: Watched = { page, context, dialogs: [], errors: [], foreign: [] };
  page.on('dialog', (d) => {
    w.dialogs.push(d.message());
    void d.dismiss();
  });
  page.on('console', (m) => (m.type() === 'error' ? w.errors.push(m.text()) : undefined));
  page.on('pageerror', (e) => w.errors.push(e.message));
  // A request the page's CSP blocked never leaves the browser: only the others count.
  const foreign = new Map<unknown, string>();
  page.on('request', (r) => (r.url().startsWith(`${home}/`) ? undefined : foreign.set(r, r.url())));
  page.on('requestfailed', (r) => (/^(csp|net::ERR_BLOCKED_BY_CSP)$/i.test(r.failure()?.errorText ?? '') ? foreign.delete(r) : undefined));
  Object.defineProperty(w, 'foreign', {
    get: () => [...foreign.entries()].map(([r, u]) => `${u} (${(r as { failure(): { errorText: string } | null }).failure()?.errorText ?? 'sent'})`),
  });
  await page.goto(start);
  return w;
}

/** axe-core's violations on `page`: the serious and critical ones, or (`all`) every one. */
async function axe(page: Page, impacts: 'serious' | 'all' = 'serious'): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's CSP (no inline script) stays in force.
  await page.evaluate(await readFile(join(REPO, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
  const result = await page.evaluate(async () => {
    const a = (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } })
      .axe;
    return (await a.run()).violations;
  });
  return result
    .filter((v) => impacts === 'all' || v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

const tile = (page: Page, pkg: string) => page.locator(`[data-package="${pkg}"]`);

describe('olmv1 console in a real browser', () => {
  it('serves nothing without the session token; signs in with a port-bound strict cookie and a page key, and guards writes', async () => {
    for (const path of ['/', '/api/hub', '/assets/main.js', '/api/session']) {
      const res = await fetch(`${origin}${path}`, { redirect: 'manual' });
      expect(res.status, path).toBe(401);
      expect(await res.text()).not.toContain('<');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    }
    expect((await fetch(`${origin}/?token=wrong`, { redirect: 'manual' })).status).toBe(403);
    const first = await fetch(url, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toMatch(/^\/#olmv1-session=[A-Za-z0-9_-]{43}$/);
    const cookie = first.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(new RegExp(`^olmv1_console_${new URL(origin).port}=`));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\//);
    const { auth, csrfToken } = await session();
    // The cookie alone (what every port of 127.0.0.1 receives) opens the page, never the API.
    expect((await fetch(`${origin}/api/session`, { headers: { cookie: auth.cookie } })).status).toBe(401);
    const page = await fetch(`${origin}/`, { headers: { cookie: auth.cookie } });
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    for (const d of ["default-src 'self'", "script-src 'self'", "frame-ancestors 'none'", "object-src 'none'"]) expect(csp).toContain(d);
    expect(csp).not.toContain('unsafe');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await page.text()).not.toMatch(/<script>/);
    // Writes: the CSRF token and the same origin, both required.
    const post = (headers: Record<string, string>) => fetch(`${origin}/api/anything`, { method: 'POST', headers: { ...auth, ...headers } });
    expect((await post({ origin })).status).toBe(403);
    expect((await post({ origin: 'http://evil.invalid', 'x-csrf-token': csrfToken })).status).toBe(403);
    expect((await post({ origin, 'x-csrf-token': csrfToken })).status).toBe(404);
    // Another Host (DNS rebinding) is refused even with the cookie.
    const rebound = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${origin}/api/hub`, { headers: { ...auth, host: `evil.invalid:${new URL(origin).port}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(rebound).toBe(400);
  });

  it("keeps the session in its console: another local port given the browser's cookies cannot act as the user, and a second console leaves the first signed in", async () => {
    // A listener on another port of 127.0.0.1, where a catalog's link may lead: it keeps what the browser sends it.
    const received: string[] = [];
    const listener = createServer((req, res) => {
      received.push(req.headers.cookie ?? '');
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end('<!doctype html><html lang="en"><title>elsewhere</title><p>elsewhere</p></html>');
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const elsewhere = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/`;
    const catalogRef = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', name: `stolen-${id}` };
    cleanup.push(() => kube.client.delete(catalogRef));
    const stopSecond = new AbortController();
    let second: Promise<number> | undefined;
    try {
      const w = await open();
      const { page } = w;
      await expect.poll(() => tile(page, 'example-operator').count(), { timeout: 30_000 }).toBe(1);
      // The user follows a link of the page to the other port.
      // (A string: this file is typed without the DOM.)
      await page.evaluate(
        `(() => { const a = document.createElement('a'); a.href = ${JSON.stringify(elsewhere)}; a.textContent = 'elsewhere'; document.body.append(a); a.click(); })()`,
      );
      await expect.poll(() => received.length, { timeout: 15_000 }).toBeGreaterThan(0);
      // The navigation there ends before the next one starts (else page.goto below is interrupted by it).
      await page.waitForURL(elsewhere, { timeout: 15_000 });
      const cookies = received.join('; ');
      expect(cookies).toContain(`olmv1_console_`);
      // It replays them as a script would, with the console's Origin: read the CSRF token, create a ClusterCatalog.
      const replay = { cookie: cookies, origin, 'sec-fetch-site': 'same-origin' };
      const read = await fetch(`${origin}/api/session`, { headers: replay });
      const csrfToken = read.ok ? ((await read.json()) as { csrfToken: string }).csrfToken : '';
      const write = await fetch(`${origin}/api/catalogs`, {
        method: 'POST',
        headers: { ...replay, 'x-csrf-token': csrfToken, 'content-type': 'application/json' },
        body: JSON.stringify({ name: catalogRef.name, image: 'quay.example/catalog:latest' }),
      });
      expect.soft(await absent(kube.client.get(catalogRef))).toBe('absent');
      expect.soft([read.status, write.status]).toEqual([401, 401]);

      // Back in the console (a new load: the key comes from this origin's storage), still signed in.
      await page.goto(`${origin}/#/catalogs`);
      await expect.poll(() => page.locator('main').innerText(), { timeout: 15_000 }).toContain(CATALOGS.example);
      // A second console on another port, signed into in the same browser.
      const cp = inject('envtestControlPlane');
      const started = await startConsoleAs(cp.kubeconfigPath, stopSecond.signal);
      second = started.run;
      const other = await w.context.newPage();
      await other.goto(started.url);
      await other.goto(`${new URL(started.url).origin}/#/catalogs`);
      await expect.poll(() => other.locator('main').innerText(), { timeout: 15_000 }).toContain(CATALOGS.example);
      // The first is still signed in: a reload reads its API as before.
      await page.reload();
      await expect.poll(() => page.locator('main').innerText(), { timeout: 15_000 }).toContain(CATALOGS.example);
      expect(await page.locator('main').innerText()).not.toContain('No session');
      await w.context.close();
    } finally {
      stopSecond.abort('SIGTERM');
      await second;
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
  });

  it('shows the hub, searches and filters it, opens a package with its upgrade graph, and lists the installed extension', async () => {
    const w = await open();
    const { page } = w;
    expect(page.url()).toBe(`${origin}/`);
    await expect.poll(() => tile(page, 'example-operator').count(), { timeout: 30_000 }).toBe(1);
    const example = tile(page, 'example-operator');
    await expect.poll(() => example.innerText()).toContain('Example Operator');
    const text = await example.innerText();
    expect(text).toContain('OLM v1 examples');
    expect(text).toContain('Installed');
    // An <img> sends no header: the icon's URL carries the session's icon key.
    expect(await example.locator('img').getAttribute('src')).toMatch(
      new RegExp(`^/api/icons/${CATALOGS.example}/example-operator\\?k=[A-Za-z0-9_-]{43}$`),
    );
    // Paging: 40 generated packages, 24 a page.
    expect(await page.locator('[data-package^="many-"]').count()).toBeLessThanOrEqual(24);
    await page.screenshot({ path: join(SHOTS, 'console-hub.png') });

    await page.getByLabel('Filter by keyword').fill('greeting');
    await expect.poll(() => page.locator('[data-package]').count()).toBe(1);
    await page.getByLabel('Filter by keyword').fill('');
    // The filter panel's checkboxes (issue 71): one value of each filter.
    const check = (facet: string, value: string) => page.locator(`[data-facet="${facet}"][data-value="${value}"] input`).check();
    await check('catalog', CATALOGS.many);
    await check('category', 'Security');
    await check('provider', 'Globex');
    // Security: i % 5 == 3; Globex: i % 3 == 1 -> 13, 28.
    await expect
      .poll(async () => (await page.locator('[data-package]').evaluateAll((els) => els.map((e) => e.getAttribute('data-package')))).sort())
      .toEqual(['many-13', 'many-28']);
    await check('infrastructure', 'Disconnected');
    await expect.poll(() => page.locator('[data-package]').evaluateAll((els) => els.map((e) => e.getAttribute('data-package')))).toEqual(['many-28']);
    expect(await axe(page)).toEqual([]);

    await page.goto(`${origin}/#/package/${CATALOGS.example}/example-operator`);
    const stable = page.locator('svg[data-channel="stable"]');
    await expect.poll(() => stable.count(), { timeout: 15_000 }).toBe(1);
    expect(await stable.locator('[data-head="true"]').getAttribute('data-entry')).toBe('example-operator.v1.0.0');
    expect(await stable.locator('[data-deprecated="true"]').getAttribute('data-entry')).toBe('example-operator.v0.1.0');
    expect(await stable.locator('path.edge').count()).toBeGreaterThanOrEqual(3);
    expect(await page.locator('svg[data-channel="candidate"] [data-entry]').count()).toBe(4);
    const body = await page.locator('main').innerText();
    for (const s of [
      'Greeting (demo.example.com/v1)',
      'Developer Tools',
      'Basic Install',
      'olmv1-examples@example.com',
      'Disconnected'.toLowerCase(),
    ])
      expect(body.toLowerCase()).toContain(s.toLowerCase());
    expect(await page.locator('.olmv1-markdown strong').first().innerText()).toBe('Greeting');
    expect(await axe(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 1500 });
    await page.screenshot({ path: join(SHOTS, 'console-package.png') });
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.goto(`${origin}/#/installed`);
    const row = page.locator(`[data-extension="example-${id}"]`);
    await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(1);
    expect(await row.innerText()).toContain('example-operator');
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'console-installed.png') });
    expect(w.dialogs).toEqual([]);
    expect(w.foreign).toEqual([]);
    await w.context.close();
  });

  it('renders a hostile catalog as text: no dialog, no script error, no request elsewhere', async () => {
    const w = await open();
    const { page } = w;
    await expect.poll(() => tile(page, 'xss-pkg').count(), { timeout: 30_000 }).toBe(1);
    expect(await tile(page, 'xss-pkg').innerText()).toContain(XSS.displayName);
    // The HTML "icon" is not served at all; the SVG one only as an image.
    expect(await tile(page, 'xss-html-icon').locator('img').count()).toBe(0);
    await page.goto(`${origin}/#/package/${CATALOGS.hostile}/xss-pkg`);
    await expect.poll(() => page.locator('h1').first().innerText(), { timeout: 15_000 }).toContain(XSS.displayName);
    await page.screenshot({ path: join(SHOTS, 'console-hostile.png') });
    const main = await page.locator('main').innerText();
    expect(main).toContain('<img src=x onerror=alert("md-img")>');
    expect(main).toContain(XSS.provider);
    expect(await page.locator('a[href^="javascript:"], a[href^="data:"], a[href=""], [onerror], [onload], [onmouseover]').count()).toBe(0);
    expect(await page.locator('main script, main iframe, main object, main embed').count()).toBe(0);
    expect(await page.locator('a[href="https://example.com/docs"]').count()).toBe(1);
    // Clicking the (neutralised) links runs nothing.
    for (const name of ['js link', 'click me']) {
      const l = page.getByText(name, { exact: true });
      if ((await l.count()) > 0) await l.first().click();
    }
    const { auth, iconKey } = await session();
    const iconPath = `/api/icons/${CATALOGS.hostile}/xss-pkg?k=${iconKey}`;
    const icon = await fetch(`${origin}${iconPath}`, { headers: { cookie: auth.cookie } });
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(icon.headers.get('content-security-policy')).toContain('sandbox');
    expect(w.dialogs).toEqual([]);
    expect(w.foreign).toEqual([]);
    expect(w.errors).toEqual([]);
    // Opened as a document, the scripted SVG is sandboxed by its own CSP: its script is blocked
    // and its remote image refused (the browser says both), nothing runs, nothing is fetched.
    await page.goto(`${origin}${iconPath}`);
    await expect.poll(() => w.errors.length).toBeGreaterThan(0);
    expect(
      w.errors.filter(
        (e) => !/^Blocked script execution .* sandboxed|violates the following Content Security Policy directive: "default-src 'none'"/.test(e),
      ),
    ).toEqual([]);
    expect(w.dialogs).toEqual([]);
    expect(w.foreign).toEqual([]);
    await w.context.close();
  });

  it('works by keyboard only: search, open a package, fill the install form, choose an existing ServiceAccount, preview, download the YAML, install', async () => {
    // What the install is for: an existing ServiceAccount in an existing namespace (olmv1 install --service-account).
    const name = `kbd-${id}`;
    const namespace = `kbd-ns-${id}`;
    const c = kube.client;
    await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    cleanup.push(() => c.delete({ apiVersion: 'v1', kind: 'Namespace', name: namespace }));
    await c.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'kbd-installer', namespace } });
    cleanup.push(() => c.delete({ ...CLUSTER_EXTENSION, name }).catch(() => undefined));

    const w = await open();
    const { page } = w;
    /** Presses `key` until `focused` (evaluated in the page) holds, at most `max` times. */
    const pressUntil = async (focused: string, key = 'Tab', max = 80): Promise<boolean> => {
      for (let i = 0; i < max; i++) {
        if (await page.evaluate<boolean>(focused)) return true;
        await page.keyboard.press(key);
      }
      return page.evaluate<boolean>(focused);
    };
    const focusedId = (elementId: string) => `document.activeElement?.id === ${JSON.stringify(elementId)}`;
    await expect.poll(() => tile(page, 'example-operator').count(), { timeout: 30_000 }).toBe(1);
    expect(await pressUntil(`document.activeElement?.getAttribute('aria-label') === 'Filter by keyword'`, 'Tab', 30)).toBe(true);
    await page.keyboard.type(INSTALL_PKG);
    await expect.poll(() => page.locator('[data-package]').count()).toBe(1);
    expect(await pressUntil(`document.activeElement?.closest('[data-package=${JSON.stringify(INSTALL_PKG)}]') != null`, 'Tab', 40)).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.url()).toContain('#/package/');
    await expect.poll(() => page.locator('svg[data-channel="stable"]').count(), { timeout: 15_000 }).toBe(1);

    // The package's "Install…" link opens the form.
    expect(await pressUntil(`document.activeElement?.textContent?.trim() === 'Install…'`)).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.url()).toBe(`${origin}/#/install/${CATALOGS.install}/${INSTALL_PKG}`);
    await expect.poll(() => page.locator('#install-name').count(), { timeout: 15_000 }).toBe(1);
    // Name and namespace replace their defaults (select all, type); the installer checkbox by Space.
    expect(await pressUntil(focusedId('install-name'))).toBe(true);
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type(name);
    await page.keyboard.press('Tab');
    expect(await page.evaluate<boolean>(focusedId('install-namespace'))).toBe(true);
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type(namespace);
    expect(await pressUntil(focusedId('install-existing-sa'), 'Tab', 20)).toBe(true);
    await page.keyboard.press('Space');
    expect(await page.locator('#install-existing-sa').isChecked()).toBe(true);
    await page.keyboard.press('Tab');
    expect(await page.evaluate<boolean>(focusedId('install-service-account'))).toBe(true);
    await page.keyboard.type('kbd-installer');
    // Enter in a field previews (olmv1 install --service-account ... --dry-run).
    await page.keyboard.press('Enter');
    const preview = page.locator('[data-install-yaml]');
    await expect.poll(() => preview.count(), { timeout: 60_000 }).toBe(1);
    const yaml = await preview.locator('.pf-v6-c-code-block__code').innerText();
    expect(yaml).toContain('kind: ClusterExtension');
    expect(yaml).toContain('name: kbd-installer');
    // Only the ClusterExtension: the namespace exists, and nothing of the installer RBAC is created.
    expect(yaml.match(/^kind: /gm)).toEqual(['kind: ']);
    expect(
      await c.get({ ...CLUSTER_EXTENSION, name }).then(
        () => 'there',
        (e: unknown) => (isNotFound(e) ? 'absent' : String(e)),
      ),
    ).toBe('absent');

    // Download saves the preview as NAME.yaml (a Blob URL download, under the unchanged CSP).
    expect(await pressUntil(`document.activeElement?.hasAttribute('data-install-download') === true`, 'Tab', 20)).toBe(true);
    const downloading = page.waitForEvent('download');
    await page.keyboard.press('Enter');
    const download = await downloading;
    expect(download.suggestedFilename()).toBe(`${name}.yaml`);
    expect((await readFile(await download.path(), 'utf8')).trim()).toBe(yaml.trim());

    // Back to Install, and Enter: olmv1 install writes the ClusterExtension naming the ServiceAccount.
    expect(await pressUntil(`document.activeElement?.textContent?.trim() === 'Install'`, 'Shift+Tab', 20)).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.url(), { timeout: 60_000 }).toBe(`${origin}/#/installed/${name}`);
    const ce = await c.get({ ...CLUSTER_EXTENSION, name });
    expect(ce.spec).toMatchObject({ namespace, serviceAccount: { name: 'kbd-installer' }, source: { catalog: { packageName: INSTALL_PKG } } });
    expect(ce.metadata.labels).toMatchObject({ 'olm.operatorframework.io/installed-by': 'olmv1', 'olm.operatorframework.io/installed-for': name });
    // As olmv1 install --service-account writes it: no ServiceAccount, role or binding of its own.
    const rbac = 'rbac.authorization.k8s.io/v1';
    for (const kind of [
      { apiVersion: 'v1', kind: 'ServiceAccount' },
      { apiVersion: rbac, kind: 'ClusterRole' },
      { apiVersion: rbac, kind: 'ClusterRoleBinding' },
      { apiVersion: rbac, kind: 'Role' },
      { apiVersion: rbac, kind: 'RoleBinding' },
    ])
      expect((await c.listAll(kind, { labelSelector: `olm.operatorframework.io/installed-for=${name}` })).items, kind.kind).toEqual([]);
    expect(await c.get({ apiVersion: 'v1', kind: 'ServiceAccount', namespace, name: 'kbd-installer' })).toBeDefined();
    await expect.poll(() => page.locator('main').innerText(), { timeout: 15_000 }).toContain('waiting for operator-controller');
    expect(w.dialogs).toEqual([]);
    // Nothing refused by the CSP, the download included (the hub's packages without an icon are 404s).
    expect(w.errors.filter((e) => !/status of 404/.test(e))).toEqual([]);
    expect(w.foreign).toEqual([]);
    await w.context.close();
    // Gone again before the other tests count installed packages.
    await c.delete({ ...CLUSTER_EXTENSION, name });
  });
});

describe('olmv1 console: an installed extension', () => {
  const name = `detail-${id}`;
  const group = `c${id}.console.test`;
  const crdName = `widgets.${group}`;
  const releases = () => createReleaseStore({ client: kube.client, namespace: 'olmv1-system' });
  const ceRef = { ...CLUSTER_EXTENSION, name };
  let uid = '';

  beforeAll(async () => {
    const c = kube.client;
    const ignoreExists = (e: unknown) => {
      if ((e as { status?: number }).status !== 409) throw e;
    };
    // What operator-controller would have left: no controller runs in this stack, so the test
    // writes the extension's status, its release records, a CRD it owns with two custom
    // resources, an Event about it and the installer ServiceAccount "olmv1 install" labels.
    const ce = await c.create({
      ...CLUSTER_EXTENSION,
      metadata: { name, labels: { [LABEL]: id } },
      spec: {
        namespace: 'default',
        serviceAccount: { name: `${name}-installer` },
        source: { sourceType: 'Catalog', catalog: { packageName: 'example-operator' } },
      },
    });
    uid = ce.metadata.uid ?? '';
    const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const cond = (type: string, status: string, reason: string, message: string) => ({
      type,
      status,
      reason,
      message,
      lastTransitionTime: at,
      observedGeneration: 1,
    });
    await c.patch(
      ceRef,
      {
        status: {
          conditions: [
            cond('Installed', 'True', 'Succeeded', 'Installed bundle example-operator.v0.2.0 successfully'),
            cond('Progressing', 'True', 'Succeeded', 'Desired state reached'),
            cond('UpgradeAvailable', 'True', 'ApprovalRequired', 'example-operator.v1.0.0 is offered; approve it with "olmv1 upgrade approve"'),
          ],
          install: { bundle: { name: 'example-operator.v0.2.0', version: '0.2.0' } },
        },
      },
      'merge',
      { subresource: 'status' },
    );
    await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'olmv1-system' } }).catch(ignoreExists);
    const crd: KubeObject = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: crdName, labels: { [OWNER_KIND_LABEL]: 'ClusterExtension', [OWNER_NAME_LABEL]: name } },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
        ],
      },
    };
    await c.create(crd);
    cleanup.push(() => c.delete({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: crdName }));
    const established = async () => {
      const got = await c.get({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: crdName });
      const conditions = (got.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
      if (!conditions.some((x) => x.type === 'Established' && x.status === 'True')) throw new Error(`CRD ${crdName} is not Established yet`);
    };
    await vi.waitFor(established, { timeout: 30_000, interval: 200 });
    // The API server serves the new kind a moment after Established: create until it does.
    for (const w of ['one', 'two'])
      await vi.waitFor(
        () =>
          c.create({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: w, namespace: 'default' } }).catch((e: unknown) => {
            if ((e as { status?: number }).status !== 409) throw e;
          }),
        { timeout: 30_000, interval: 200 },
      );
    const bundle = (version: string) => ({
      package: 'example-operator',
      name: `example-operator.v${version}`,
      version,
      image: `quay.example/example-operator:v${version}`,
    });
    const objects: KubeObject[] = [
      { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: crdName } },
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'example-operator-controller', namespace: 'default' } },
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'example-operator', namespace: 'default' } },
    ];
    const store = releases();
    cleanup.push(() => store.deleteAll(name));
    for (const [revision, version, status, description] of [
      [1, '0.1.0', 'superseded', 'Install complete'],
      [2, '0.2.0', 'deployed', 'Upgrade complete'],
    ] as const)
      await store.create({
        extension: name,
        extensionUID: uid,
        revision,
        status,
        namespace: 'default',
        bundle: bundle(version),
        manifest: Manifest.ofObjects(objects),
        properties: [],
        description,
        firstDeployed: at,
        lastDeployed: at,
      });
    await c.create({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${name}.hold`, namespace: 'default' },
      involvedObject: { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension', name, uid },
      type: 'Normal',
      reason: 'UpgradeAvailable',
      message: 'Hold: example-operator.v1.0.0 waits for approval',
      count: 3,
      firstTimestamp: at,
      lastTimestamp: at,
      source: { component: 'operator-controller' },
    });
    cleanup.push(() => c.delete({ apiVersion: 'v1', kind: 'Event', namespace: 'default', name: `${name}.hold` }));
    await c.create({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: {
        name: `${name}-installer`,
        namespace: 'default',
        labels: { 'olm.operatorframework.io/installed-by': 'olmv1', 'olm.operatorframework.io/installed-for': name },
      },
    });
    cleanup.push(() => c.delete({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: 'default', name: `${name}-installer` }));
    // The release's Deployment, available as its controller would report it (no controller runs here);
    // its ServiceAccount stays absent.
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'example-operator' };
    await c.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'example-operator', namespace: 'default' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'example-operator' } },
        template: { metadata: { labels: { app: 'example-operator' } }, spec: { containers: [{ name: 'manager', image: 'quay.example/m:v1' }] } },
      },
    });
    cleanup.push(() => c.delete(deployment));
    await c.patch(
      deployment,
      {
        status: {
          observedGeneration: 1,
          replicas: 1,
          updatedReplicas: 1,
          readyReplicas: 1,
          availableReplicas: 1,
          conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }],
        },
      },
      'merge',
      { subresource: 'status' },
    );
  });

  /** The rows of the page's table `label`: each cell's text. */
  const cells = (page: Page, label: string) =>
    page
      .getByRole('table', { name: label })
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent ?? '')));

  it("lists the deployed release's objects with their health as the health step judges them, read as the user", async () => {
    const w = await open();
    const { page } = w;
    await page.goto(`${origin}/#/installed/${name}`);
    await expect.poll(() => page.locator('[data-release-objects="ready"]').count(), { timeout: 15_000 }).toBe(1);
    expect(await cells(page, 'Objects of the release')).toEqual([
      ['CustomResourceDefinition', crdName, 'Healthy', ''],
      ['ServiceAccount', 'default/example-operator-controller', 'Not found', 'serviceaccounts "example-operator-controller" not found'],
      ['Deployment', 'default/example-operator', 'Healthy', ''],
    ]);
    expect(await page.locator('[data-release-verdict]').innerText()).toContain(
      'Revision 2 (example-operator.v0.2.0, version 0.2.0), read as you. As the health step judges them: Healthy True (Healthy): All available: 1 CustomResourceDefinition, 1 Deployment',
    );
    // The Deployment's rollout stalls: the next read says why, in the health step's words.
    await kube.client.patch(
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'example-operator' },
      {
        status: {
          conditions: [
            { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' },
          ],
        },
      },
      'merge',
      { subresource: 'status' },
    );
    await expect
      .poll(() => cells(page, 'Objects of the release').then((rows) => rows[2]), { timeout: 15_000 })
      .toEqual([
        'Deployment',
        'default/example-operator',
        'Unhealthy',
        'Available=False MinimumReplicasUnavailable: Deployment does not have minimum availability.',
      ]);
    expect(await page.locator('[data-release-verdict]').innerText()).toContain(
      'Healthy False (Unhealthy): Deployment default/example-operator: Available=False',
    );
    expect(await axe(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 1400 });
    await page.screenshot({ path: join(SHOTS, 'console-release-objects.png') });
    expect(w.dialogs).toEqual([]);
    expect(w.errors).toEqual([]);
    await w.context.close();
  });

  it("shows, for an object the user may not read, the API server's refusal in its row", async () => {
    // May read the release records (Secrets) besides what a viewer reads; not Deployments nor ServiceAccounts.
    const stopReader = new AbortController();
    const secrets = { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] };
    const started = await restrictedConsole(`console-reader-${id}`, [...VIEWER_RULES, secrets], stopReader.signal);
    try {
      const w = await open(started.url);
      const { page } = w;
      await page.goto(`${new URL(started.url).origin}/#/installed/${name}`);
      await expect.poll(() => page.locator('[data-release-objects="ready"]').count(), { timeout: 15_000 }).toBe(1);
      const rows = await cells(page, 'Objects of the release');
      expect(rows[0]).toEqual(['CustomResourceDefinition', crdName, 'Healthy', '']);
      expect(rows[2]?.slice(0, 3)).toEqual(['Deployment', 'default/example-operator', 'Not readable']);
      expect(rows[2]?.[3]).toMatch(
        /^deployments\.apps "example-operator" is forbidden: User "system:serviceaccount:default:console-reader-[0-9a-f]+" cannot get resource "deployments"/,
      );
      expect(rows[1]?.[2]).toBe('Not readable');
      expect(await page.locator('[data-release-verdict]').innerText()).toContain(
        'Not every object the health step judges could be read, so no verdict.',
      );
      // The rest of the page is there: a refusal is the object's, not the page's.
      expect(await page.getByRole('table', { name: 'Conditions' }).count()).toBe(1);
      expect(w.dialogs).toEqual([]);
      await w.context.close();
    } finally {
      stopReader.abort('SIGTERM');
      await started.run;
    }
  });

  it('shows its conditions, Events and release history, and UpgradeAvailable on the Installed list', async () => {
    const w = await open();
    const { page } = w;
    await page.goto(`${origin}/#/installed`);
    const row = page.locator(`[data-extension="${name}"]`);
    await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(1);
    expect(await row.innerText()).toContain('True (ApprovalRequired)');
    // This stack has no Node: the list says why Healthy is not True, as the extension's page does (issue 71).
    await expect.poll(() => page.locator('[data-no-ready-node]').count(), { timeout: 15_000 }).toBe(1);
    expect(await page.locator('[data-no-ready-node]').innerText()).toContain('No Node of the cluster is Ready');
    await row.getByRole('link', { name }).click();
    await expect.poll(() => page.url()).toBe(`${origin}/#/installed/${name}`);
    const conditions = page.getByRole('table', { name: 'Conditions' });
    await expect.poll(() => conditions.count(), { timeout: 15_000 }).toBe(1);
    const conditionText = await conditions.innerText();
    for (const s of ['Installed', 'Succeeded', 'UpgradeAvailable', 'ApprovalRequired', 'approve it with "olmv1 upgrade approve"'])
      expect(conditionText).toContain(s);
    const history = page.getByRole('table', { name: 'Release history' });
    const revisions = await history
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));
    expect(revisions.map((r) => [r[0], r[2], r[3], r[4], r[5], r[7]])).toEqual([
      ['2', 'deployed', 'example-operator.v0.2.0', '0.2.0', '3', ''],
      ['1', 'superseded', 'example-operator.v0.1.0', '0.1.0', '3', 'Roll back to revision 1…'],
    ]);
    const events = await page.getByRole('table', { name: 'Events' }).innerText();
    expect(events).toContain('UpgradeAvailable');
    expect(events).toContain('Hold: example-operator.v1.0.0 waits for approval');
    expect(await page.locator('main').innerText()).toContain('0.2.0');
    expect(await axe(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 1100 });
    await page.screenshot({ path: join(SHOTS, 'console-extension.png') });
    expect(w.dialogs).toEqual([]);
    expect(w.errors).toEqual([]);
    expect(w.foreign).toEqual([]);
    await w.context.close();
  });

  it('refuses an uninstall without the CSRF token or from another origin, and changes nothing', async () => {
    const { auth, csrfToken } = await session();
    const post = (headers: Record<string, string>) =>
      fetch(`${origin}/api/extensions/${name}/uninstall`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ uid }),
      });
    expect((await post({ origin })).status).toBe(403);
    expect((await post({ origin: 'http://evil.invalid', 'x-csrf-token': csrfToken })).status).toBe(403);
    expect((await post({ 'sec-fetch-site': 'cross-site', 'x-csrf-token': csrfToken })).status).toBe(403);
    expect((await kube.client.get(ceRef)).metadata.uid).toBe(uid);
  });

  it("shows a restricted user the API server's refusal, and deletes nothing", async () => {
    // May read extensions, catalogs, CRDs and Events; may not delete anything, nor read the release records.
    const stopViewer = new AbortController();
    const started = await restrictedConsole(`console-viewer-${id}`, VIEWER_RULES, stopViewer.signal);
    try {
      const w = await open(started.url);
      const { page } = w;
      const viewerOrigin = new URL(started.url).origin;
      await page.goto(`${viewerOrigin}/#/installed/${name}`);
      await expect.poll(() => page.getByRole('table', { name: 'Conditions' }).count(), { timeout: 15_000 }).toBe(1);
      // The release records are Secrets it may not read: the page says so, as the API server does.
      expect(await page.locator('main').innerText()).toMatch(/release history: .*forbidden/);
      await page.getByRole('button', { name: 'Uninstall…' }).click();
      await expect.poll(() => page.locator('[data-uninstall-preview="ready"]').count(), { timeout: 15_000 }).toBe(1);
      await page.getByRole('button', { name: 'Uninstall', exact: true }).click();
      const refusal = page.locator('[data-uninstall-error]');
      await expect.poll(() => refusal.count(), { timeout: 15_000 }).toBe(1);
      expect(await refusal.innerText()).toMatch(
        /clusterextensions\.olm\.operatorframework\.io "detail-[0-9a-f]+" is forbidden: User "system:serviceaccount:default:console-viewer-[0-9a-f]+" cannot delete resource "clusterextensions"/,
      );
      expect(await axe(page)).toEqual([]);
      await page.setViewportSize({ width: 1280, height: 1300 });
      await page.screenshot({ path: join(SHOTS, 'console-uninstall-refused.png') });
      expect((await kube.client.get(ceRef)).metadata.uid).toBe(uid);
      expect(w.dialogs).toEqual([]);
      expect(w.foreign).toEqual([]);
      await w.context.close();
    } finally {
      stopViewer.abort('SIGTERM');
      await started.run;
    }
  });

  it('uninstalls after a preview of what is deleted and what is kept (the CRD and its custom resources)', async () => {
    const w = await open();
    const { page } = w;
    await page.goto(`${origin}/#/installed/${name}`);
    await page.getByRole('button', { name: 'Uninstall…' }).click();
    await expect.poll(() => page.locator('[data-uninstall-preview="ready"]').count(), { timeout: 15_000 }).toBe(1);
    const deleted = await page.getByRole('list', { name: 'Deleted' }).locator('li').allInnerTexts();
    expect(deleted).toEqual([
      `ClusterExtension ${name}`,
      'ServiceAccount default/example-operator-controller',
      'Deployment default/example-operator',
    ]);
    const kept = await page.getByRole('list', { name: 'Kept' }).locator('li').allInnerTexts();
    expect(kept).toEqual([`CustomResourceDefinition ${crdName}: 2 in default`, `ServiceAccount default/${name}-installer`, 'Namespace default']);
    // The heading of the preview has the focus: the keyboard goes on to its buttons.
    expect(await page.evaluate<string>(`document.activeElement?.id ?? ''`)).toBe('uninstall-heading');
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'console-uninstall.png') });
    await page.getByRole('button', { name: 'Uninstall', exact: true }).click();
    await expect
      .poll(
        () =>
          page
            .locator('[data-extension-gone]')
            .innerText()
            .catch(() => ''),
        { timeout: 30_000 },
      )
      .toContain(`ClusterExtension ${name} is uninstalled`);
    await expect
      .poll(() =>
        kube.client.get(ceRef).then(
          () => 'there',
          (e: unknown) => (isNotFound(e) ? 'gone' : String(e)),
        ),
      )
      .toBe('gone');
    // Kept: the CRD and both of its custom resources.
    expect((await kube.client.listAll({ apiVersion: `${group}/v1`, kind: 'Widget' })).items.map((o) => o.metadata.name).sort()).toEqual([
      'one',
      'two',
    ]);
    expect(w.dialogs).toEqual([]);
    // The page learns that the extension is gone from the API's 404, which the browser logs.
    expect(w.errors.filter((e) => !/status of 404/.test(e))).toEqual([]);
    await w.context.close();
  });
});

describe('olmv1 console: uninstall that deletes the CRDs too (olmv1 uninstall --delete-crds)', () => {
  const name = `gone-${id}`;
  const group = `g${id}.console.test`;
  const crdName = `gadgets.${group}`;
  /** A CRD of another extension in the same group: it and its custom resource must stay. */
  const otherCrd = `things.${group}`;
  const teamB = `team-b-${id}`;
  const ceRef = { ...CLUSTER_EXTENSION, name };
  const crdRef = (n: string) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: n });
  let uid = '';

  /** The names (namespace/name) of the custom resources of `kind`; once its CRD is gone the API server serves no such kind. */
  const customResources = (kind: string) =>
    kube.client.listAll({ apiVersion: `${group}/v1`, kind }).then(
      (l) => l.items.map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`).sort(),
      () => 'no such kind',
    );
  const crdThere = (n: string) =>
    kube.client.get(crdRef(n)).then(
      () => 'there',
      (e: unknown) => (isNotFound(e) ? 'gone' : String(e)),
    );

  beforeAll(async () => {
    const c = kube.client;
    const ignoreExists = (e: unknown) => {
      if ((e as { status?: number }).status !== 409) throw e;
    };
    // As in the detail tests, no operator-controller runs: the test writes what it would have left.
    const ce = await c.create({
      ...CLUSTER_EXTENSION,
      metadata: { name, labels: { [LABEL]: id } },
      spec: {
        namespace: 'default',
        serviceAccount: { name: `${name}-installer` },
        source: { sourceType: 'Catalog', catalog: { packageName: 'example-operator' } },
      },
    });
    cleanup.push(() => c.delete(ceRef).catch(() => undefined));
    uid = ce.metadata.uid ?? '';
    await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'olmv1-system' } }).catch(ignoreExists);
    await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: teamB } });
    cleanup.push(() => c.delete({ apiVersion: 'v1', kind: 'Namespace', name: teamB }));
    const crd = (crdNameOf: string, plural: string, kind: string, owner: string): KubeObject => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: crdNameOf, labels: { [OWNER_KIND_LABEL]: 'ClusterExtension', [OWNER_NAME_LABEL]: owner } },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
        versions: [
          { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
        ],
      },
    });
    for (const [n, plural, kind, owner] of [
      [crdName, 'gadgets', 'Gadget', name],
      [otherCrd, 'things', 'Thing', `other-${id}`],
    ] as const) {
      await c.create(crd(n, plural, kind, owner));
      cleanup.push(() => c.delete(crdRef(n)).catch(() => undefined));
    }
    // The API server serves the new kinds a moment after they are Established: create until it does.
    for (const [kind, ns, cr] of [
      ['Gadget', 'default', 'a'],
      ['Gadget', 'default', 'b'],
      ['Gadget', teamB, 'c'],
      ['Thing', 'default', 'kept'],
    ] as const)
      await vi.waitFor(
        () =>
          c.create({ apiVersion: `${group}/v1`, kind, metadata: { name: cr, namespace: ns } }).catch((e: unknown) => {
            if ((e as { status?: number }).status !== 409) throw e;
          }),
        { timeout: 30_000, interval: 200 },
      );
  });

  it('refuses the deletion without the CSRF token, and changes nothing', async () => {
    const { auth, csrfToken } = await session();
    const preview = (await (await fetch(`${origin}/api/extensions/${name}/crd-deletion`, { headers: auth })).json()) as {
      preview: { digest: string; customResourceDefinitions: { name: string }[] };
    };
    expect(preview.preview.customResourceDefinitions.map((c) => c.name)).toEqual([crdName]);
    const post = (headers: Record<string, string>) =>
      fetch(`${origin}/api/extensions/${name}/uninstall`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ uid, deleteCrds: preview.preview.digest }),
      });
    expect((await post({ origin })).status).toBe(403);
    expect((await post({ origin: 'http://evil.invalid', 'x-csrf-token': csrfToken })).status).toBe(403);
    expect((await kube.client.get(ceRef)).metadata.uid).toBe(uid);
    expect(await crdThere(crdName)).toBe('there');
    expect(await customResources('Gadget')).toEqual(['default/a', 'default/b', `${teamB}/c`]);
  });

  it("refuses, with olmv1 uninstall --delete-crds's message, a CRD another extension's release includes", async () => {
    const store = createReleaseStore({ client: kube.client, namespace: 'olmv1-system' });
    const other = `other-${id}`;
    const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await store.create({
      extension: other,
      extensionUID: 'other-uid',
      revision: 1,
      status: 'deployed',
      namespace: 'default',
      bundle: { package: 'other', name: 'other.v1.0.0', version: '1.0.0', image: 'quay.example/other:v1' },
      manifest: Manifest.ofObjects([{ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: crdName } }]),
      properties: [],
      description: 'Install complete',
      firstDeployed: at,
      lastDeployed: at,
    });
    try {
      const w = await open();
      const { page } = w;
      await page.goto(`${origin}/#/installed/${name}`);
      await page.getByRole('button', { name: 'Uninstall…' }).click();
      await expect.poll(() => page.locator('[data-uninstall-preview="ready"]').count(), { timeout: 15_000 }).toBe(1);
      await page.getByLabel('Also delete the CustomResourceDefinitions and their custom resources').check();
      const refusal = page.locator('[data-crd-refusal]');
      await expect.poll(() => refusal.count(), { timeout: 30_000 }).toBe(1);
      const text = await refusal.innerText();
      expect(text).toContain(`refusing to delete the CustomResourceDefinitions of ClusterExtension "${name}"; nothing was deleted`);
      expect(text).toContain(`CustomResourceDefinition ${crdName}: the release of ClusterExtension "${other}" includes it`);
      expect(await page.getByRole('button', { name: 'Uninstall and delete the CustomResourceDefinitions' }).isDisabled()).toBe(true);
      expect(await axe(page)).toEqual([]);
      await w.context.close();
    } finally {
      await store.deleteAll(other);
    }
    expect(await crdThere(crdName)).toBe('there');
  });

  it('previews the CRDs with their custom resources per namespace, then deletes exactly those', async () => {
    const w = await open();
    const { page } = w;
    await page.goto(`${origin}/#/installed/${name}`);
    await page.getByRole('button', { name: 'Uninstall…' }).click();
    await expect.poll(() => page.locator('[data-uninstall-preview="ready"]').count(), { timeout: 15_000 }).toBe(1);
    // The default keeps them.
    expect(await page.getByRole('list', { name: 'Kept' }).innerText()).toContain(`CustomResourceDefinition ${crdName}: 2 in default, 1 in ${teamB}`);
    await page.getByLabel('Also delete the CustomResourceDefinitions and their custom resources').check();
    await expect.poll(() => page.locator('[data-crd-deletion="ready"]').count(), { timeout: 30_000 }).toBe(1);
    const rows = await page
      .getByRole('table', { name: 'CustomResourceDefinitions deleted' })
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));
    expect(rows).toEqual([
      [crdName, 'Gadget', 'default', '2'],
      [crdName, 'Gadget', teamB, '1'],
    ]);
    expect(await page.getByRole('list', { name: 'Kept' }).innerText()).not.toContain(crdName);
    expect(await axe(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 1200 });
    await page.screenshot({ path: join(SHOTS, 'console-uninstall-crds.png') });
    await page.getByRole('button', { name: 'Uninstall and delete the CustomResourceDefinitions' }).click();
    const done = page.locator('[data-crds-deleted]');
    await expect
      .poll(() => done.innerText().catch(() => ''), { timeout: 60_000 })
      .toContain('Deleted 1 CustomResourceDefinition and 3 custom resources');
    expect(await page.locator('[data-extension-gone]').innerText()).toContain(`ClusterExtension ${name} is uninstalled`);
    await expect
      .poll(() =>
        kube.client.get(ceRef).then(
          () => 'there',
          (e: unknown) => (isNotFound(e) ? 'gone' : String(e)),
        ),
      )
      .toBe('gone');
    // Gone: the CRD and its three custom resources; kept: the other extension's CRD and its custom resource.
    expect(await crdThere(crdName)).toBe('gone');
    expect(await customResources('Gadget')).toBe('no such kind');
    expect(await crdThere(otherCrd)).toBe('there');
    expect(await customResources('Thing')).toEqual(['default/kept']);
    expect(w.dialogs).toEqual([]);
    expect(w.errors.filter((e) => !/status of 404/.test(e))).toEqual([]);
    await w.context.close();
  });
});

describe('olmv1 console: the install form', () => {
  const namespace = `inst-ns-${id}`;
  const ceRef = { ...CLUSTER_EXTENSION, name: INSTALL_PKG };

  afterAll(async () => {
    const c = kube.client;
    await c.delete(ceRef).catch(() => undefined);
    for (const kind of [
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' },
    ])
      for (const o of (await c.listAll(kind, { labelSelector: `olm.operatorframework.io/installed-for=${INSTALL_PKG}` })).items)
        await c.delete({ ...kind, name: o.metadata.name ?? '' }).catch(() => undefined);
    await c.delete({ apiVersion: 'v1', kind: 'Namespace', name: namespace }).catch(() => undefined);
  });

  it('refuses an install request without the CSRF token, and creates nothing', async () => {
    const { auth } = await session();
    const res = await fetch(`${origin}/api/install`, {
      method: 'POST',
      headers: { ...auth, origin, 'content-type': 'application/json' },
      body: JSON.stringify({ catalog: CATALOGS.install, package: INSTALL_PKG, name: INSTALL_PKG, namespace }),
    });
    expect(res.status).toBe(403);
    expect(
      await kube.client.get(ceRef).then(
        () => 'there',
        (e: unknown) => (isNotFound(e) ? 'absent' : String(e)),
      ),
    ).toBe('absent');
  });

  it('previews the YAML olmv1 install would create (least-privilege ServiceAccount and RBAC), then creates it and follows the extension', async () => {
    const w = await open();
    const { page } = w;
    await page.goto(`${origin}/#/package/${CATALOGS.install}/${INSTALL_PKG}`);
    await page.getByRole('link', { name: 'Install…' }).click();
    await expect.poll(() => page.url()).toBe(`${origin}/#/install/${CATALOGS.install}/${INSTALL_PKG}`);
    await expect.poll(() => page.getByLabel(/^Namespace/).count(), { timeout: 15_000 }).toBe(1);
    // By keyboard: the namespace field, a channel, the update policy, then Enter previews.
    await page.getByLabel(/^Namespace/).fill(namespace);
    await page.getByLabel('Channel').selectOption('stable');
    await page.getByLabel('Update policy').selectOption('Manual');
    // The version range is behind the Advanced disclosure (issue 71).
    await page.getByRole('button', { name: /^Advanced/ }).click();
    await page.getByLabel('Version range').focus();
    await page.keyboard.type('1.0.x');
    await page.keyboard.press('Enter');
    const preview = page.locator('[data-install-yaml]');
    await expect.poll(() => preview.count(), { timeout: 60_000 }).toBe(1);
    const yaml = await preview.locator('.pf-v6-c-code-block__code').innerText();
    for (const s of [
      'kind: Namespace',
      'kind: ServiceAccount',
      `name: ${INSTALL_PKG}-installer`,
      'kind: ClusterRole',
      'kind: ClusterExtension',
      'olm.operatorframework.io/update-policy: Manual',
      'version: 1.0.x',
      '- stable',
    ])
      expect(yaml).toContain(s);
    // The RBAC is least privilege: no wildcard.
    expect(yaml).not.toMatch(/- '\*'|- "\*"/);
    expect(
      await kube.client.get(ceRef).then(
        () => 'there',
        (e: unknown) => (isNotFound(e) ? 'absent' : String(e)),
      ),
    ).toBe('absent');
    expect(await axe(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 1400 });
    await page.screenshot({ path: join(SHOTS, 'console-install.png') });
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.getByRole('button', { name: 'Install', exact: true }).click();
    await expect.poll(() => page.url(), { timeout: 60_000 }).toBe(`${origin}/#/installed/${INSTALL_PKG}`);
    const ce = await kube.client.get(ceRef);
    expect((ce.spec as { serviceAccount?: { name?: string }; namespace?: string }).serviceAccount?.name).toBe(`${INSTALL_PKG}-installer`);
    expect((ce.spec as { namespace?: string }).namespace).toBe(namespace);
    expect(ce.metadata.labels?.['olm.operatorframework.io/installed-by']).toBe('olmv1');
    expect(ce.metadata.annotations?.['olm.operatorframework.io/update-policy']).toBe('Manual');
    const sa = await kube.client.get({ apiVersion: 'v1', kind: 'ServiceAccount', namespace, name: `${INSTALL_PKG}-installer` });
    expect(sa.metadata.labels?.['olm.operatorframework.io/installed-for']).toBe(INSTALL_PKG);
    // The extension's page follows it; no operator-controller runs in this stack, so it stays unreconciled.
    await expect.poll(() => page.locator('main').innerText(), { timeout: 15_000 }).toContain('waiting for operator-controller');
    expect(await page.locator('[data-install-progress="waiting"]').count()).toBe(1);
    expect(await page.locator('main').innerText()).toContain('No conditions yet');
    expect(w.dialogs).toEqual([]);
    expect(w.errors).toEqual([]);
    expect(w.foreign).toEqual([]);
    await w.context.close();
  });

  it("shows a user who may not create the RBAC the API server's refusal, and creates nothing", async () => {
    const other = `inst-denied-${id}`;
    const stopUser = new AbortController();
    const started = await restrictedConsole(`console-installer-${id}`, VIEWER_RULES, stopUser.signal);
    try {
      const w = await open(started.url);
      const { page } = w;
      await page.goto(`${new URL(started.url).origin}/#/install/${CATALOGS.install}/${INSTALL_PKG}`);
      // A new console: its first page reads every catalog of the shared cluster (other files' too) first.
      await expect.poll(() => page.locator('#install-name').count(), { timeout: 60_000 }).toBe(1);
      await page.locator('#install-name').fill(other);
      await page.getByLabel(/^Namespace/).fill(other);
      await page.getByRole('button', { name: 'Preview' }).click();
      await expect.poll(() => page.locator('[data-install-yaml]').count(), { timeout: 60_000 }).toBe(1);
      await page.getByRole('button', { name: 'Install', exact: true }).click();
      const refusal = page.locator('[data-install-error]');
      await expect.poll(() => refusal.count(), { timeout: 60_000 }).toBe(1);
      expect(await refusal.innerText()).toMatch(
        /is forbidden: User "system:serviceaccount:default:console-installer-[0-9a-f]+" cannot create resource/,
      );
      expect(await axe(page)).toEqual([]);
      expect(page.url()).toContain('#/install/');
      expect(
        await kube.client.get({ ...CLUSTER_EXTENSION, name: other }).then(
          () => 'there',
          (e: unknown) => (isNotFound(e) ? 'absent' : String(e)),
        ),
      ).toBe('absent');
      expect(
        await kube.client.get({ apiVersion: 'v1', kind: 'Namespace', name: other }).then(
          () => 'there',
          (e: unknown) => (isNotFound(e) ? 'absent' : String(e)),
        ),
      ).toBe('absent');
      expect(w.dialogs).toEqual([]);
      await w.context.close();
    } finally {
      stopUser.abort('SIGTERM');
      await started.run;
    }
  });
});

/**
 * What the main console's page holds after signing in with `start` (default: the printed URL),
 * got as a script that follows the sign-in would: the session cookie and the key the redirect
 * hands the page in its fragment (`auth`, the headers of every API request), and the CSRF token
 * and icon key `/api/session` answers for them.
 */
async function session(start = url): Promise<{ auth: { cookie: string; 'x-olmv1-session': string }; csrfToken: string; iconKey: string }> {
  const first = await fetch(start, { redirect: 'manual' });
  const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const location = first.headers.get('location') ?? '';
  const auth = { cookie, 'x-olmv1-session': location.slice(location.indexOf('#olmv1-session=') + '#olmv1-session='.length) };
  const answer = await fetch(`${new URL(start).origin}/api/session`, { headers: auth });
  expect(answer.status).toBe(200);
  const { csrfToken, iconKey } = (await answer.json()) as { csrfToken: string; iconKey: string };
  return { auth, csrfToken, iconKey };
}

const absent = (p: Promise<unknown>) =>
  p.then(
    () => 'there',
    (e: unknown) => (isNotFound(e) ? 'absent' : String(e)),
  );

describe('olmv1 console: the upgrade plan and Approve', () => {
  const name = `upg-${id}`;
  const ceRef = { ...CLUSTER_EXTENSION, name };

  beforeAll(async () => {
    // An extension at 1.0.0 of the install package under the Manual update policy. No
    // operator-controller runs in this stack: the test writes its status and deployed release.
    const c = kube.client;
    const ce = await c.create({
      ...CLUSTER_EXTENSION,
      metadata: { name, labels: { [LABEL]: id }, annotations: { 'olm.operatorframework.io/update-policy': 'Manual' } },
      spec: {
        namespace: 'default',
        serviceAccount: { name: 'default' },
        source: { sourceType: 'Catalog', catalog: { packageName: INSTALL_PKG, channels: ['stable'] } },
      },
    });
    const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await c.patch(
      ceRef,
      {
        status: {
          conditions: [
            {
              type: 'Installed',
              status: 'True',
              reason: 'Succeeded',
              message: `Installed bundle ${INSTALL_PKG}.v1.0.0 successfully`,
              lastTransitionTime: at,
            },
            {
              type: 'UpgradeAvailable',
              status: 'True',
              reason: 'ApprovalRequired',
              message: `${INSTALL_PKG}.v1.1.0 waits for approval`,
              lastTransitionTime: at,
            },
          ],
          install: { bundle: { name: `${INSTALL_PKG}.v1.0.0`, version: '1.0.0' } },
        },
      },
      'merge',
      { subresource: 'status' },
    );
    await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'olmv1-system' } }).catch((e: unknown) => {
      if ((e as { status?: number }).status !== 409) throw e;
    });
    const store = createReleaseStore({ client: c, namespace: 'olmv1-system' });
    cleanup.push(() => store.deleteAll(name));
    await store.create({
      extension: name,
      extensionUID: ce.metadata.uid ?? '',
      revision: 1,
      status: 'deployed',
      namespace: 'default',
      bundle: { package: INSTALL_PKG, name: `${INSTALL_PKG}.v1.0.0`, version: '1.0.0', image: installImages[0] ?? '' },
      manifest: Manifest.ofObjects([
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: `${INSTALL_PKG}-controller`, namespace: 'default' } },
      ]),
      properties: [],
      description: 'Install complete',
      firstDeployed: at,
      lastDeployed: at,
    });
  });

  it('refuses an approval without the CSRF token or from another origin, and annotates nothing', async () => {
    const { auth, csrfToken } = await session();
    const post = (headers: Record<string, string>) =>
      fetch(`${origin}/api/extensions/${name}/approve`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ version: '1.1.0' }),
      });
    expect((await post({ origin })).status).toBe(403);
    expect((await post({ origin: 'http://evil.invalid', 'x-csrf-token': csrfToken })).status).toBe(403);
    expect((await kube.client.get(ceRef)).metadata.annotations?.[APPROVED_BUNDLE_ANNOTATION]).toBeUndefined();
  });

  it('shows the plan olmv1 upgrade plan prints, and Approve writes the approval of exactly that bundle', async () => {
    const w = await open();
    const { page } = w;
    await page.goto(`${origin}/#/installed/${name}`);
    await page.getByRole('button', { name: 'Show upgrade plan' }).click();
    await expect.poll(() => page.locator('[data-upgrade-plan="ready"]').count(), { timeout: 60_000 }).toBe(1);
    const summary = await page.locator('[data-plan-summary]').innerText();
    expect(summary).toContain(`Next: ${INSTALL_PKG}.v1.1.0 (1.1.0) from catalog ${CATALOGS.install}, installed ${INSTALL_PKG}.v1.0.0 (1.0.0).`);
    expect(summary).toContain('Update policy Manual: held for approval.');
    const text = await page.locator('[data-plan-details]').innerText();
    expect(text).toContain(`${INSTALL_PKG}.v1.1.0`);
    // No CLI hint beside the buttons (issue 71): the command is behind the Equivalent command disclosure.
    expect(text).not.toContain('olmv1 upgrade approve');
    await page.locator('[data-plan-details]').getByRole('button', { name: 'Equivalent command' }).click();
    expect(await page.locator('[data-plan-details] [data-equivalent-command]').innerText()).toContain(`olmv1 upgrade approve ${name} 1.1.0`);
    // The objects the upgrade changes are a table with a row per object (kind, name, namespace, change).
    const objectRows = page.getByRole('table', { name: 'Objects the upgrade changes' }).locator('tbody tr');
    expect(await objectRows.count()).toBeGreaterThan(0);
    expect((await objectRows.first().locator('td').allInnerTexts()).length).toBe(4);
    expect(await axe(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 1400 });
    await page.screenshot({ path: join(SHOTS, 'console-upgrade-plan.png') });
    // Approve: the request the page makes, and the annotation it writes.
    const request = page.waitForRequest((r) => r.url() === `${origin}/api/extensions/${name}/approve`);
    await page.getByRole('button', { name: `Approve ${INSTALL_PKG}.v1.1.0` }).click();
    const sent = await request;
    expect(sent.method()).toBe('POST');
    expect(sent.postDataJSON()).toEqual({ version: '1.1.0' });
    expect(sent.headers()['x-csrf-token']).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await expect.poll(() => page.locator('[data-approved]').count(), { timeout: 60_000 }).toBe(1);
    expect(await page.locator('[data-approved]').innerText()).toContain(`${APPROVED_BUNDLE_ANNOTATION}=${INSTALL_PKG}.v1.1.0`);
    expect((await kube.client.get(ceRef)).metadata.annotations?.[APPROVED_BUNDLE_ANNOTATION]).toBe(`${INSTALL_PKG}.v1.1.0`);
    expect(w.dialogs).toEqual([]);
    expect(w.errors).toEqual([]);
    expect(w.foreign).toEqual([]);
    await w.context.close();
  });

  /** What operator-controller records once it has installed `version` (none runs in this stack): the deployed revision before it superseded, `revision` deployed. */
  const recordInstall = async (revision: number, version: string, image: string) => {
    const c = kube.client;
    const store = createReleaseStore({ client: c, namespace: 'olmv1-system' });
    const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    for (const r of await store.history(name)) if (r.status === 'deployed') await store.update({ ...r, status: 'superseded' });
    await store.create({
      extension: name,
      extensionUID: (await c.get(ceRef)).metadata.uid ?? '',
      revision,
      status: 'deployed',
      namespace: 'default',
      bundle: { package: INSTALL_PKG, name: `${INSTALL_PKG}.v${version}`, version, image },
      manifest: Manifest.ofObjects([
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: `${INSTALL_PKG}-controller`, namespace: 'default' } },
      ]),
      properties: [],
      description: 'Upgrade complete',
      firstDeployed: at,
      lastDeployed: at,
    });
    await c.patch(ceRef, { status: { install: { bundle: { name: `${INSTALL_PKG}.v${version}`, version } } } }, 'merge', { subresource: 'status' });
  };
  const catalogSpec = async () => ((await kube.client.get(ceRef)).spec as { source: { catalog: Record<string, unknown> } }).source.catalog;

  it('after the approved upgrade, refuses a rollback without the CSRF token or from another origin, and patches nothing', async () => {
    await recordInstall(2, '1.1.0', installImages[1] ?? '');
    const before = (await kube.client.get(ceRef)).metadata.resourceVersion;
    const { auth, csrfToken } = await session();
    const post = (headers: Record<string, string>) =>
      fetch(`${origin}/api/extensions/${name}/rollback`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ revision: 1 }),
      });
    expect((await post({ origin })).status).toBe(403);
    expect((await post({ origin: 'http://evil.invalid', 'x-csrf-token': csrfToken })).status).toBe(403);
    expect((await post({ 'sec-fetch-site': 'cross-site', 'x-csrf-token': csrfToken })).status).toBe(403);
    const after = await kube.client.get(ceRef);
    expect(after.metadata.resourceVersion).toBe(before);
    expect((await catalogSpec()).version).toBeUndefined();
  });

  it('rolls back to revision 1 after a confirmation, as olmv1 release rollback does; the history then shows the new revision', async () => {
    const w = await open();
    const { page } = w;
    await page.goto(`${origin}/#/installed/${name}`);
    // The plan of the upgraded extension, shown before the rollback (issue 71: it must not outlive the revision it describes).
    await page.getByRole('button', { name: 'Show upgrade plan' }).click();
    const summary = page.locator('[data-plan-summary]');
    await expect.poll(() => summary.innerText().catch(() => ''), { timeout: 60_000 }).toContain(`Up to date at ${INSTALL_PKG}.v1.1.0 (1.1.0).`);
    // Revision 1 is superseded by the upgrade: it has the button, the deployed revision 2 has none.
    const button = page.getByRole('button', { name: 'Roll back to revision 1…' });
    await expect.poll(() => button.count(), { timeout: 15_000 }).toBe(1);
    expect(await page.getByRole('button', { name: /Roll back to revision 2/ }).count()).toBe(0);
    await button.click();
    const heading = page.locator('#rollback-heading');
    expect(await heading.innerText()).toBe(`Roll back ${name} to revision 1 (${INSTALL_PKG}.v1.0.0, version 1.0.0)?`);
    // The confirmation has the focus; nothing is written before it is confirmed.
    expect(await page.evaluate<string>(`document.activeElement?.id ?? ''`)).toBe('rollback-heading');
    expect((await catalogSpec()).version).toBeUndefined();
    expect(await axe(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 1400 });
    await page.screenshot({ path: join(SHOTS, 'console-rollback-confirm.png') });
    const request = page.waitForRequest((r) => r.url() === `${origin}/api/extensions/${name}/rollback`);
    await page.getByRole('button', { name: 'Roll back', exact: true }).click();
    const sent = await request;
    expect(sent.postDataJSON()).toEqual({ revision: 1 });
    expect(sent.headers()['x-csrf-token']).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const done = page.locator('[data-rollback-done="1"]');
    await expect.poll(() => done.count(), { timeout: 60_000 }).toBe(1);
    const report = await done.innerText();
    expect(report).toContain(
      `Rolling back ${name} from the deployed revision 2 (${INSTALL_PKG}.v1.1.0, version 1.1.0) to revision 1 (${INSTALL_PKG}.v1.0.0, version 1.0.0).`,
    );
    expect(report).toContain('The pin holds upgrades.');
    // The spec as the command patches it: the version pinned, SelfCertified, that bundle approved.
    const ce = await kube.client.get(ceRef);
    expect(await catalogSpec()).toMatchObject({ version: '1.0.0', upgradeConstraintPolicy: 'SelfCertified' });
    expect(ce.metadata.annotations?.[APPROVED_BUNDLE_ANNOTATION]).toBe(`${INSTALL_PKG}.v1.0.0`);
    // operator-controller would now install 1.0.0 and record revision 3: the page shows it without a reload.
    await recordInstall(3, '1.0.0', installImages[0] ?? '');
    const history = () =>
      page
        .getByRole('table', { name: 'Release history' })
        .locator('tbody tr')
        .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].slice(0, 5).map((td) => td.textContent ?? '')))
        .then((rows) => rows.map((r) => [r[0], r[2], r[4]]));
    await expect.poll(history, { timeout: 15_000 }).toEqual([
      ['3', 'deployed', '1.0.0'],
      ['2', 'superseded', '1.1.0'],
      ['1', 'superseded', '1.0.0'],
    ]);
    // The plan shown is read again for the revision now installed, without a click.
    await expect.poll(() => summary.innerText(), { timeout: 30_000 }).toContain(`Up to date at ${INSTALL_PKG}.v1.0.0 (1.0.0).`);
    await page.screenshot({ path: join(SHOTS, 'console-rollback.png') });
    expect(w.dialogs).toEqual([]);
    expect(w.errors).toEqual([]);
    expect(w.foreign).toEqual([]);
    await w.context.close();
  });

  it("shows olmv1 release rollback's refusal as it prints it, and patches nothing", async () => {
    const w = await open();
    const { page } = w;
    await page.goto(`${origin}/#/installed/${name}`);
    // Revision 1's bundle is the deployed one's: the command refuses to roll back to it.
    const button = page.getByRole('button', { name: 'Roll back to revision 1…' });
    await expect.poll(() => button.count(), { timeout: 15_000 }).toBe(1);
    const before = (await kube.client.get(ceRef)).metadata.resourceVersion;
    await button.click();
    await page.getByRole('button', { name: 'Roll back', exact: true }).click();
    const refusal = page.locator('[data-rollback-error]');
    await expect.poll(() => refusal.count(), { timeout: 60_000 }).toBe(1);
    const text = await refusal.innerText();
    expect(text).toContain(`revision 1 of "${name}" installed ${INSTALL_PKG}.v1.0.0, the bundle the deployed revision 3 runs`);
    expect(text).toContain(`Revisions ("olmv1 release history ${name}")`);
    expect((await kube.client.get(ceRef)).metadata.resourceVersion).toBe(before);
    expect(w.dialogs).toEqual([]);
    await w.context.close();
  });

  it('has no axe violation, of any impact, on any page: hub, package, install form, Installed, the extension with its plan and its rollback and uninstall dialogs, Catalogs, Cluster, Namespace', async () => {
    const w = await open();
    const { page } = w;
    const found: string[] = [];
    /** Runs axe on `hash` once `ready` shows; every violation, whatever its impact, is kept with the page's name. */
    const check = async (what: string, ready: () => Promise<number>) => {
      await expect.poll(ready, { timeout: 30_000 }).toBeGreaterThan(0);
      await expect.poll(() => page.locator('.pf-v6-c-spinner').count(), { timeout: 30_000 }).toBe(0);
      for (const v of await axe(page, 'all')) found.push(`${what}: ${v}`);
    };
    const visit = async (hash: string, what: string, ready: () => Promise<number>) => {
      await page.goto(`${origin}/#/${hash}`);
      await check(what, ready);
    };
    await visit('', 'hub', () => page.locator('[data-package]').count());
    await visit(`package/${CATALOGS.install}/${INSTALL_PKG}`, 'package', () => page.getByRole('link', { name: 'Install…' }).count());
    await visit(`install/${CATALOGS.install}/${INSTALL_PKG}`, 'install form', () => page.getByLabel(/^Namespace/).count());
    await visit('installed', 'Installed', () => page.locator(`[data-extension="${name}"]`).count());
    await visit(`installed/${name}`, 'extension', () => page.getByRole('table', { name: 'Release history' }).count());
    await page.getByRole('button', { name: 'Show upgrade plan' }).click();
    await check('extension with its upgrade plan', () => page.locator('[data-upgrade-plan="ready"]').count());
    await page.getByRole('button', { name: 'Roll back to revision 1…' }).click();
    await check('rollback dialog', () => page.locator('#rollback-heading').count());
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Uninstall…' }).click();
    await check('uninstall dialog', () => page.getByRole('button', { name: 'Uninstall', exact: true }).count());
    await page.getByRole('button', { name: 'Cancel' }).click();
    await visit('catalogs', 'Catalogs', () => page.getByRole('heading', { name: 'Catalogs', level: 1 }).count());
    await visit('cluster', 'Cluster', () => page.getByRole('heading', { name: 'Cluster upgrade', level: 1 }).count());
    await visit('namespaces/default', 'Namespace', () => page.getByRole('heading', { name: 'Namespace default', level: 1 }).count());
    expect(found).toEqual([]);
    expect(w.dialogs).toEqual([]);
    await w.context.close();
  });
});

describe('olmv1 console: the permissions a package needs', () => {
  it('shows the RBAC olmv1 rbac computes for the head bundle, and why when its image cannot be pulled', async () => {
    const w = await open();
    const { page } = w;
    await page.goto(`${origin}/#/package/${CATALOGS.install}/${INSTALL_PKG}`);
    await expect.poll(() => page.getByLabel('Install namespace').count(), { timeout: 15_000 }).toBe(1);
    await page.getByLabel('Install namespace').fill('team-a');
    await page.getByRole('button', { name: 'Show permissions' }).click();
    await expect.poll(() => page.locator('[data-permissions="ready"]').count(), { timeout: 60_000 }).toBe(1);
    const yaml = await page.locator('[data-rbac-yaml]').innerText();
    for (const s of ['kind: ServiceAccount', `name: ${INSTALL_PKG}-installer`, 'namespace: team-a', 'kind: ClusterRole', 'kind: ClusterRoleBinding'])
      expect(yaml).toContain(s);
    expect(yaml).not.toMatch(/- '\*'|- "\*"/);
    expect(await page.locator('[data-permissions]').innerText()).toContain(installImages[1] ?? '');
    expect(await axe(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 1200 });
    await page.evaluate(`document.getElementById('permissions-heading').scrollIntoView()`);
    await page.screenshot({ path: join(SHOTS, 'console-permissions.png') });
    // The example catalog's images are at a registry this stack does not run: the page says why.
    await page.goto(`${origin}/#/package/${CATALOGS.example}/example-operator`);
    await expect.poll(() => page.getByLabel('Install namespace').count(), { timeout: 15_000 }).toBe(1);
    await page.getByRole('button', { name: 'Show permissions' }).click();
    await expect.poll(() => page.locator('[data-permissions-error]').count(), { timeout: 60_000 }).toBe(1);
    const why = await page.locator('[data-permissions-error]').innerText();
    expect(why).toContain('head bundle image 127.0.0.1:5001/olmv1/example-operator-bundle:v1.0.0');
    expect(why).toContain('ECONNREFUSED');
    expect(w.dialogs).toEqual([]);
    expect(w.foreign).toEqual([]);
    await w.context.close();
  });
});

describe('olmv1 console: the Cluster page', () => {
  const ceRef = { ...CLUSTER_EXTENSION, name: `example-${id}` };

  it('shows the cluster-upgrade gate of olmv1 status: blocked by an Upgradeable=False hold, and why', async () => {
    await kube.client.patch(
      ceRef,
      { metadata: { annotations: { [UPGRADEABLE_ANNOTATION]: 'False', [UPGRADEABLE_MESSAGE_ANNOTATION]: 'migrating storage, wait for v2' } } },
      'merge',
    );
    const w = await open();
    const { page } = w;
    await page.goto(`${origin}/#/cluster`);
    await expect
      .poll(
        () =>
          page
            .locator('[data-cluster-verdict]')
            .getAttribute('data-cluster-verdict')
            .catch(() => ''),
        { timeout: 30_000 },
      )
      .toBe('1');
    const main = await page.locator('main').innerText();
    expect(main).toContain('Upgrade blocked');
    const blockers = await page.getByRole('table', { name: 'Blockers' }).innerText();
    expect(blockers).toContain(`example-${id}`);
    expect(blockers).toContain('Upgradeable=False');
    expect(blockers).toContain('migrating storage, wait for v2');
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'console-cluster.png') });
    // The hold lifted: the page follows (it reads the gate again every 15 s) and the upgrade is allowed.
    await kube.client.patch(
      ceRef,
      { metadata: { annotations: { [UPGRADEABLE_ANNOTATION]: null, [UPGRADEABLE_MESSAGE_ANNOTATION]: null } } },
      'merge',
    );
    await expect.poll(() => page.getByRole('table', { name: 'Blockers' }).count(), { timeout: 45_000 }).toBe(0);
    expect(await page.locator('[data-cluster-verdict]').getAttribute('data-cluster-verdict')).toBe('0');
    expect(await page.locator('main').innerText()).toContain('Upgrade allowed');
    expect(w.dialogs).toEqual([]);
    expect(w.errors).toEqual([]);
    await w.context.close();
  });
});

describe('olmv1 console: the Cluster page with --cluster-version', () => {
  const name = `gate-${id}`;

  it("shows an installed bundle's olm.maxOpenShiftVersion blocking the next minor", async () => {
    const c = kube.client;
    const ce = await c.create({
      ...CLUSTER_EXTENSION,
      metadata: { name, labels: { [LABEL]: id } },
      spec: {
        namespace: 'default',
        serviceAccount: { name: 'default' },
        source: { sourceType: 'Catalog', catalog: { packageName: 'example-operator' } },
      },
    });
    const store = createReleaseStore({ client: c, namespace: 'olmv1-system' });
    cleanup.push(() => store.deleteAll(name));
    const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await store.create({
      extension: name,
      extensionUID: ce.metadata.uid ?? '',
      revision: 1,
      status: 'deployed',
      namespace: 'default',
      bundle: { package: 'example-operator', name: 'example-operator.v0.3.0', version: '0.3.0', image: 'quay.example/example-operator:v0.3.0' },
      manifest: Manifest.ofObjects([]),
      properties: [{ type: 'olm.maxOpenShiftVersion', value: '4.16' }],
      description: 'Install complete',
      firstDeployed: at,
      lastDeployed: at,
    });
    const stopGate = new AbortController();
    const started = await startConsoleAs(inject('envtestControlPlane').kubeconfigPath, stopGate.signal, ['--cluster-version', '4.16']);
    try {
      const w = await open(started.url);
      const { page } = w;
      await page.goto(`${new URL(started.url).origin}/#/cluster`);
      await expect
        .poll(
          () =>
            page
              .locator('[data-cluster-verdict]')
              .getAttribute('data-cluster-verdict')
              .catch(() => ''),
          { timeout: 30_000 },
        )
        .toBe('1');
      expect(await page.locator('main').innerText()).toContain('Cluster version 4.16, next minor 4.17');
      const blockers = await page.getByRole('table', { name: 'Blockers' }).innerText();
      expect(blockers).toContain(name);
      expect(blockers).toContain('olm.maxOpenShiftVersion');
      expect(blockers).toContain('example-operator.v0.3.0 allows OpenShift up to 4.16');
      const extensions = await page.getByRole('table', { name: 'Extensions' }).innerText();
      // Its version is the ClusterExtension's status (none here: no operator-controller); its maximum the release's.
      expect(extensions).toMatch(new RegExp(`${name}\\s+example-operator\\s+-\\s+4\\.16`));
      expect(await axe(page)).toEqual([]);
      expect(w.dialogs).toEqual([]);
      // The hub it opened first asks for icons some packages do not have (404): nothing else.
      expect(w.errors.filter((e) => !/status of 404/.test(e))).toEqual([]);
      await w.context.close();
    } finally {
      stopGate.abort('SIGTERM');
      await started.run;
    }
  });
});

describe('olmv1 console: the Catalogs page', () => {
  const added = `added-${id}`;
  const ref = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', name: added };

  afterAll(async () => {
    await kube.client.delete(ref).catch(() => undefined);
  });

  it('refuses an add or remove without the CSRF token or from another origin, and changes nothing', async () => {
    const { auth, csrfToken } = await session();
    const add = await fetch(`${origin}/api/catalogs`, {
      method: 'POST',
      headers: { ...auth, origin, 'content-type': 'application/json' },
      body: JSON.stringify({ name: added, image: 'quay.example/catalog:latest' }),
    });
    expect(add.status).toBe(403);
    expect(await absent(kube.client.get(ref))).toBe('absent');
    const remove = await fetch(`${origin}/api/catalogs/${CATALOGS.example}/remove`, {
      method: 'POST',
      headers: { ...auth, origin: 'http://evil.invalid', 'x-csrf-token': csrfToken, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(remove.status).toBe(403);
    expect(await absent(kube.client.get({ ...ref, name: CATALOGS.example }))).toBe('there');
  });

  it('lists the catalogs with their status, adds one through olmv1 catalog add, and removes it after a confirmation', async () => {
    const w = await open();
    const { page } = w;
    await page.goto(`${origin}/#/catalogs`);
    const row = (n: string) => page.locator('tr', { has: page.locator(`[data-catalog="${n}"]`) });
    await expect.poll(() => row(CATALOGS.example).count(), { timeout: 15_000 }).toBe(1);
    const example = await row(CATALOGS.example).innerText();
    expect(example).toContain('True (Available)');
    expect(example).toContain('Available');
    expect(example).toMatch(/\d{4}-\d\d-\d\dT/);
    expect(example).toContain(`/console/${CATALOGS.example}`);

    await page.getByLabel('Name').fill(added);
    await page.getByLabel('Image').fill(`${inject('envtestRegistries').anonymous.host}/console/${CATALOGS.example}:v1`);
    await page.getByLabel('Priority').fill('-5');
    await page.getByLabel('Poll interval').fill('10m');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await expect.poll(() => page.locator('[data-catalog-done]').count(), { timeout: 30_000 }).toBe(1);
    const spec = (await kube.client.get(ref)).spec as { priority?: number; source?: { image?: { pollIntervalMinutes?: number } } };
    expect(spec.priority).toBe(-5);
    expect(spec.source?.image?.pollIntervalMinutes).toBe(10);
    // catalogd unpacks it; the page shows it serving without a reload.
    await expect
      .poll(
        () =>
          row(added)
            .innerText()
            .catch(() => ''),
        { timeout: 90_000 },
      )
      .toContain('True (Available)');
    const text = await row(added).innerText();
    expect(text).toContain('10m');
    expect(text).toContain('-5');
    expect(await axe(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 1100 });
    await page.locator('h1').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'console-catalogs.png') });

    await row(added)
      .getByRole('button', { name: `Remove ${added}…` })
      .click();
    // Nothing is removed before the confirmation.
    expect(await absent(kube.client.get(ref))).toBe('there');
    await row(added)
      .getByRole('button', { name: `Remove ${added}`, exact: true })
      .click();
    await expect.poll(() => absent(kube.client.get(ref)), { timeout: 60_000 }).toBe('absent');
    await expect.poll(() => row(added).count(), { timeout: 15_000 }).toBe(0);
    expect(w.dialogs).toEqual([]);
    expect(w.errors).toEqual([]);
    expect(w.foreign).toEqual([]);
    await w.context.close();
  });

  it('shows a ClusterCatalog created and deleted through the API without a reload, and asks for nothing on a timer', async () => {
    const liveRef = { ...ref, name: `live-${id}` };
    const w = await open();
    const { page } = w;
    await page.goto(`${origin}/#/catalogs`);
    const row = (n: string) => page.locator('tr', { has: page.locator(`[data-catalog="${n}"]`) });
    await expect.poll(() => row(CATALOGS.example).count(), { timeout: 15_000 }).toBe(1);
    await page.evaluate(() => Object.assign(globalThis, { notReloaded: true }));
    const requests: string[] = [];
    page.on('request', (r) => requests.push(`${r.method()} ${new URL(r.url()).pathname}`));
    // An idle page asks for nothing: a window longer than the 5-second poll the live stream replaced.
    await new Promise((resolve) => setTimeout(resolve, 7_000));
    expect(requests).toEqual([]);
    try {
      await kube.client.create({
        apiVersion: ref.apiVersion,
        kind: ref.kind,
        metadata: { name: liveRef.name },
        spec: { source: { type: 'Image', image: { ref: `${inject('envtestRegistries').anonymous.host}/console/${CATALOGS.example}:v1` } } },
      });
      await expect.poll(() => row(liveRef.name).count(), { timeout: 5_000 }).toBe(1);
      await kube.client.delete(liveRef);
      await expect.poll(() => row(liveRef.name).count(), { timeout: 30_000 }).toBe(0);
    } finally {
      await kube.client.delete(liveRef).catch(() => undefined);
    }
    // Each change was read once it happened, by the page's one data read: no other request, no reload.
    expect(new Set(requests)).toEqual(new Set(['GET /api/catalogs']));
    expect(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).toBe(true);
    expect(w.errors).toEqual([]);
    await w.context.close();
  });

  it("shows a restricted user the API server's refusal of an add, and creates nothing", async () => {
    const stopViewer = new AbortController();
    const started = await restrictedConsole(`console-cataloger-${id}`, VIEWER_RULES, stopViewer.signal);
    try {
      const w = await open(started.url);
      const { page } = w;
      await page.goto(`${new URL(started.url).origin}/#/catalogs`);
      await expect.poll(() => page.locator(`[data-catalog="${CATALOGS.example}"]`).count(), { timeout: 15_000 }).toBe(1);
      await page.getByLabel('Name').fill(added);
      await page.getByLabel('Image').fill('quay.example/catalog:latest');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      const refusal = page.locator('[data-catalog-error]');
      await expect.poll(() => refusal.count(), { timeout: 30_000 }).toBe(1);
      expect(await refusal.innerText()).toMatch(
        /is forbidden: User "system:serviceaccount:default:console-cataloger-[0-9a-f]+" cannot create resource "clustercatalogs"/,
      );
      expect(await absent(kube.client.get(ref))).toBe('absent');
      expect(await axe(page)).toEqual([]);
      await w.context.close();
    } finally {
      stopViewer.abort('SIGTERM');
      await started.run;
    }
  });
});

describe("olmv1 console: issue 71's bugs", () => {
  const ext = `bugs-${id}`;
  const twin = `twin-${id}`;
  const TWIN = { a: `twin-a-${id}`, b: `twin-b-${id}` };
  const image = (c: string) => `${inject('envtestRegistries').anonymous.host}/console/${twin}-${c}:v1.0.0`;
  const stopOwn = new AbortController();
  let own: { url: string; run: Promise<number> } | undefined;
  const at = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const cond = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    reason,
    message,
    lastTransitionTime: at(),
    observedGeneration: 1,
  });
  const event = (name: string, uid: string, message: string) => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'default' },
    involvedObject: { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension', name: ext, uid },
    type: 'Warning',
    reason: 'Retrying',
    message,
    count: 1,
    firstTimestamp: at(),
    lastTimestamp: at(),
    source: { component: 'operator-controller' },
  });
  const extension = async (name: string, pkg: string, status: object) => {
    const ce = await kube.client.create({
      ...CLUSTER_EXTENSION,
      metadata: { name, labels: { [LABEL]: id } },
      spec: { namespace: 'default', serviceAccount: { name: 'default' }, source: { sourceType: 'Catalog', catalog: { packageName: pkg } } },
    });
    await kube.client.patch({ ...CLUSTER_EXTENSION, name }, { status }, 'merge', { subresource: 'status' });
    return ce.metadata.uid ?? '';
  };

  beforeAll(async () => {
    // One package served by two catalogs, with bundles of the same name and different images.
    for (const c of ['a', 'b'] as const)
      await withTempDir('console-fbc-', async (dir) =>
        publish(
          TWIN[c],
          await writeCatalogFiles(
            dir,
            packageCatalog(twin, {
              defaultChannel: 'stable',
              channels: [{ name: 'stable', entries: [{ version: '1.0.0' }] }],
              bundles: [{ version: '1.0.0', image: image(c) }],
            }),
          ),
        ),
      );
    await Promise.all(Object.values(TWIN).map((n) => waitForCatalog(kube.client, n, (cc) => condition(cc, 'Serving')?.status === 'True', 90_000)));
    // Installed from catalog b, as operator-controller reports it.
    await extension(twin, twin, {
      conditions: [
        cond('Installed', 'True', 'Succeeded', `Installed bundle ${image('b')} successfully`),
        cond('Progressing', 'True', 'Succeeded', 'Desired state reached'),
      ],
      install: { bundle: { name: `${twin}.v1.0.0`, version: '1.0.0' } },
    });
    // Installed at 0.1.0 and failing to upgrade: operator-controller retries.
    const uid = await extension(ext, 'example-operator', {
      conditions: [
        cond('Installed', 'True', 'Succeeded', 'Installed bundle quay.example/example-operator:v0.1.0 successfully'),
        cond('Progressing', 'True', 'Retrying', 'pulling bundle quay.example/example-operator:v0.2.0: manifest unknown'),
      ],
      install: { bundle: { name: 'example-operator.v0.1.0', version: '0.1.0' } },
    });
    // An Event of a deleted extension of the same name (another uid), and one of this one.
    for (const [n, u, m] of [
      [`${ext}.old`, '00000000-0000-4000-8000-000000000000', 'about the deleted extension of that name'],
      [`${ext}.now`, uid, 'about this extension'],
    ] as const) {
      await kube.client.create(event(n, u, m));
      cleanup.push(() => kube.client.delete({ apiVersion: 'v1', kind: 'Event', namespace: 'default', name: n }));
    }
    // A console started now reads the twin catalogs at once.
    own = await startConsoleAs(inject('envtestControlPlane').kubeconfigPath, stopOwn.signal);
  }, 180_000);

  afterAll(async () => {
    stopOwn.abort('SIGTERM');
    await own?.run;
  });

  it("lists only this extension's Events (by uid), and shows a failing, retrying extension as such, not as installing", async () => {
    const w = await open(own?.url);
    const { page } = w;
    await page.goto(`${new URL(own?.url ?? '').origin}/#/installed/${ext}`);
    const events = page.getByRole('table', { name: 'Events' });
    await expect.poll(() => events.innerText(), { timeout: 15_000 }).toContain('about this extension');
    expect(await events.innerText()).not.toContain('about the deleted extension');
    const banner = page.locator('[data-install-progress]');
    expect(await banner.getAttribute('data-install-progress')).toBe('retrying');
    expect(await banner.innerText()).toMatch(/Failing: operator-controller is retrying \(version 0\.1\.0 stays installed\)[\s\S]*manifest unknown/);
    expect(await page.getByText('Installing', { exact: true }).count()).toBe(0);
    const progressing = page.locator('.pf-v6-c-label', { hasText: 'True (Retrying)' });
    expect(await progressing.getAttribute('class')).toMatch(/pf-m-orange/);
    // This API server has no kubelet: with no Ready Node, the page says why nothing can be healthy.
    const ready = (await kube.client.listAll({ apiVersion: 'v1', kind: 'Node' })).items.filter((n) =>
      ((n.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? []).some(
        (c) => c.type === 'Ready' && c.status === 'True',
      ),
    );
    expect(await page.locator('[data-no-ready-node]').count()).toBe(ready.length === 0 ? 1 : 0);
    if (ready.length === 0)
      expect(await page.locator('[data-no-ready-node]').innerText()).toContain('No Node of the cluster is Ready, so no Pod runs');
    expect(await axe(page)).toEqual([]);
    await w.context.close();
  });

  it('says Installed only on the tile and page of the catalog the extension was installed from', async () => {
    const w = await open(own?.url);
    const { page } = w;
    await page.getByLabel('Filter by keyword').fill(twin);
    const tileOf = (c: string) => page.locator(`#${`tile-${c}-${twin}`.replace(/[^A-Za-z0-9_-]/g, '_')}`);
    await expect.poll(() => tileOf(TWIN.b).count(), { timeout: 30_000 }).toBe(1);
    expect(await tileOf(TWIN.b).innerText()).toContain('Installed');
    expect(await tileOf(TWIN.a).innerText()).not.toContain('Installed');
    await w.context.close();
  });

  it('fits the Catalogs page in 1366 px, draws no filter arrow over its label, and asks for no missing icon', async () => {
    const home = new URL(own?.url ?? '').origin;
    const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    const page = await context.newPage();
    const missing: string[] = [];
    page.on('response', (r) => (r.status() === 404 ? missing.push(r.url()) : undefined));
    await page.goto(own?.url ?? '');
    await expect.poll(() => page.locator('[data-package]').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    // Each filter's chosen text ends at least 8 px left of its arrow.
    // (A string: these tests are typed without the DOM.)
    const selects = await page.evaluate<{ text: string; fits: boolean }[]>(`[...document.querySelectorAll('select')].map((s) => {
      const css = getComputedStyle(s);
      const ctx = document.createElement('canvas').getContext('2d');
      ctx.font = css.font;
      const text = s.options[s.selectedIndex]?.text ?? '';
      const icon = s.parentElement?.querySelector('.pf-v6-c-form-control__toggle-icon')?.getBoundingClientRect();
      const box = s.getBoundingClientRect();
      const end = box.left + parseFloat(css.paddingLeft) + ctx.measureText(text).width;
      return { text, fits: end + 8 <= (icon === undefined ? box.right - parseFloat(css.paddingRight) : icon.left) };
    })`);
    expect(selects.filter((s) => !s.fits)).toEqual([]);
    await page.goto(`${home}/#/catalogs`);
    await expect.poll(() => page.locator(`[data-catalog="${TWIN.b}"]`).count(), { timeout: 15_000 }).toBe(1);
    const sideways = await page.evaluate<string[]>(`[...document.querySelectorAll('*')]
      .filter((e) => e.scrollWidth > e.clientWidth + 1 && ['auto', 'scroll'].includes(getComputedStyle(e).overflowX))
      .map((e) => e.tagName + '.' + e.className)`);
    expect(sideways).toEqual([]);
    for (const b of await page.getByRole('button', { name: /^Remove .*…$/ }).all()) {
      const box = await b.boundingBox();
      expect((box?.x ?? 0) + (box?.width ?? Infinity)).toBeLessThanOrEqual(1366);
    }
    await page.goto(`${home}/#/installed/${ext}`);
    await expect.poll(() => page.getByRole('table', { name: 'Events' }).count(), { timeout: 15_000 }).toBe(1);
    expect(missing).toEqual([]);
    await context.close();
  });

  it('keeps jargon behind Advanced and says why Install is disabled, on the install form', async () => {
    const w = await open(own?.url);
    const { page } = w;
    await page.goto(`${new URL(own?.url ?? '').origin}/#/install/${TWIN.a}/${twin}`);
    await expect.poll(() => page.getByLabel(/^Namespace/).count(), { timeout: 15_000 }).toBe(1);
    const advanced = page.getByRole('button', { name: /^Advanced/ });
    expect(await advanced.getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByLabel('Upgrade constraint policy').isVisible()).toBe(false);
    expect(await page.getByLabel('Version range').isVisible()).toBe(false);
    const install = page.getByRole('button', { name: 'Install', exact: true });
    expect(await install.isDisabled()).toBe(true);
    // Its accessible description says why.
    const why = await install.evaluate<string, unknown>(
      (b) =>
        (globalThis as unknown as { document: { getElementById(i: string): { textContent: string } | null } }).document.getElementById(
          (b as { getAttribute(n: string): string }).getAttribute('aria-describedby'),
        )?.textContent ?? '',
    );
    expect(why).toContain('Install is available after Preview');
    await advanced.click();
    expect(await page.getByLabel('Upgrade constraint policy').isVisible()).toBe(true);
    expect(await axe(page)).toEqual([]);
    await w.context.close();
  });

  it('says an extension deleted while its page is open is gone, answered as such by the API', async () => {
    const gone = `gone-${id}`;
    await extension(gone, 'example-operator', {});
    const w = await open(own?.url);
    const { page } = w;
    const answers: [number, string][] = [];
    page.on('response', (r) => (r.url().endsWith(`/api/extensions/${gone}`) ? void r.text().then((t) => answers.push([r.status(), t])) : undefined));
    await page.goto(`${new URL(own?.url ?? '').origin}/#/installed/${gone}`);
    await expect.poll(() => page.getByText('Conditions', { exact: true }).count(), { timeout: 15_000 }).toBe(1);
    await kube.client.delete({ ...CLUSTER_EXTENSION, name: gone });
    // (An operator-controller of another test on this API server may hold a finalizer a while.)
    await expect.poll(() => absent(kube.client.get({ ...CLUSTER_EXTENSION, name: gone })), { timeout: 60_000 }).toBe('absent');
    await expect.poll(() => page.locator('[data-extension-gone]').innerText(), { timeout: 30_000 }).toContain(`There is no ClusterExtension ${gone}`);
    await expect.poll(() => answers.some(([s, t]) => s === 404 && JSON.parse(t).gone === true), { timeout: 5_000 }).toBe(true);
    expect(w.errors.filter((e) => !e.includes('404'))).toEqual([]);
    await w.context.close();
  });
});
