// `olmv1 console` in a real browser (issue 62): Debian's chromium driven by playwright-core
// against the real API server, registry and catalogd serving the example catalog, a hostile
// catalog and a generated one. The console runs as the real command (cmd/olmv1/console.ts) with
// the admin kubeconfig; the tests browse, search, filter and open packages, check the session
// token, CSP and CSRF guards, prove that hostile catalog content runs no script, run axe-core on
// each page and drive the hub by keyboard. Screenshots go to docs/images/console-*.png.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createKubeconfigLookup, connectCluster } from '../../cmd/olmv1/cluster-access.ts';
import { runConsole } from '../../cmd/olmv1/console.ts';
import { createCatalogClient } from '../../pkg/operator-controller/catalogclient/index.ts';
import { connect, type KubeContext } from '../../pkg/shared/kube/index.ts';
import { startCatalogd, type TestCatalogd } from '../support/catalogd.ts';
import { condition, pushCatalog, waitForCatalog, writeCatalogFiles } from '../support/catalogs.ts';
import { hostileCatalog, manyCatalog, XSS } from '../support/console-catalogs.ts';
import { installOlmConfig } from '../support/olm-config.ts';
import { withTempDir } from '../support/temp-dir.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SHOTS = join(REPO, 'docs', 'images');
const id = randomBytes(3).toString('hex');
const LABEL = 'test.olmv1/console-suite';
const CATALOGS = { example: `example-${id}`, hostile: `hostile-${id}`, many: `many-${id}` };

let kube: KubeContext;
let catalogd: TestCatalogd;
let browser: Browser;
let url = '';
let origin = '';
const stop = new AbortController();
let consoleRun: Promise<number> | undefined;
const catalogClient = createCatalogClient();

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

  let printed = '';
  const lookup = createKubeconfigLookup({}, tmpdir());
  consoleRun = runConsole(
    ['--kubeconfig', cp.kubeconfigPath],
    { stdout: { write: (s: string) => (printed += s) }, stderr: { write: (s: string) => process.stderr.write(s) } },
    {
      signal: stop.signal,
      catalogClient,
      connectCluster: (flags) => connectCluster(flags, lookup, 1),
      cacheDir: join(tmpdir(), 'olmv1-console-test-bundle'),
      lockFile: join(REPO, 'package-lock.json'),
    },
  );
  const deadline = Date.now() + 60_000;
  while (!printed.includes('\n') && Date.now() < deadline) await Promise.race([consoleRun, new Promise((r) => setTimeout(r, 100))]);
  url = printed.trim();
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
  origin = new URL(url).origin;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 240_000);

afterAll(async () => {
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

async function open(): Promise<Watched> {
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
  page.on('request', (r) => (r.url().startsWith(`${origin}/`) ? undefined : foreign.set(r, r.url())));
  page.on('requestfailed', (r) => (/^(csp|net::ERR_BLOCKED_BY_CSP)$/i.test(r.failure()?.errorText ?? '') ? foreign.delete(r) : undefined));
  Object.defineProperty(w, 'foreign', {
    get: () => [...foreign.entries()].map(([r, u]) => `${u} (${(r as { failure(): { errorText: string } | null }).failure()?.errorText ?? 'sent'})`),
  });
  await page.goto(url);
  return w;
}

async function axe(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's CSP (no inline script) stays in force.
  await page.evaluate(await readFile(join(REPO, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
  const result = await page.evaluate(async () => {
    const a = (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } })
      .axe;
    return (await a.run()).violations;
  });
  return result
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

const tile = (page: Page, pkg: string) => page.locator(`[data-package="${pkg}"]`);

describe('olmv1 console in a real browser', () => {
  it('serves nothing without the session token, moves the token to a strict cookie, and guards writes', async () => {
    for (const path of ['/', '/api/hub', '/assets/main.js', '/api/session']) {
      const res = await fetch(`${origin}${path}`, { redirect: 'manual' });
      expect(res.status, path).toBe(401);
      expect(await res.text()).not.toContain('<');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    }
    expect((await fetch(`${origin}/?token=wrong`, { redirect: 'manual' })).status).toBe(403);
    const first = await fetch(url, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/');
    const cookie = first.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\//);
    const session = cookie.split(';')[0] ?? '';
    const page = await fetch(`${origin}/`, { headers: { cookie: session } });
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    for (const d of ["default-src 'self'", "script-src 'self'", "frame-ancestors 'none'", "object-src 'none'"]) expect(csp).toContain(d);
    expect(csp).not.toContain('unsafe');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await page.text()).not.toMatch(/<script>/);
    // Writes: the CSRF token and the same origin, both required.
    const { csrfToken } = (await (await fetch(`${origin}/api/session`, { headers: { cookie: session } })).json()) as { csrfToken: string };
    const post = (headers: Record<string, string>) => fetch(`${origin}/api/anything`, { method: 'POST', headers: { cookie: session, ...headers } });
    expect((await post({ origin })).status).toBe(403);
    expect((await post({ origin: 'http://evil.invalid', 'x-csrf-token': csrfToken })).status).toBe(403);
    expect((await post({ origin, 'x-csrf-token': csrfToken })).status).toBe(404);
    // Another Host (DNS rebinding) is refused even with the cookie.
    const rebound = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${origin}/api/hub`, { headers: { host: `evil.invalid:${new URL(origin).port}`, cookie: session } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(rebound).toBe(400);
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
    expect(await example.locator('img').getAttribute('src')).toBe(`/api/icons/${CATALOGS.example}/example-operator`);
    // Paging: 40 generated packages, 24 a page.
    expect(await page.locator('[data-package^="many-"]').count()).toBeLessThanOrEqual(24);
    await page.screenshot({ path: join(SHOTS, 'console-hub.png') });

    await page.getByLabel('Filter by keyword').fill('greeting');
    await expect.poll(() => page.locator('[data-package]').count()).toBe(1);
    await page.getByLabel('Filter by keyword').fill('');
    await page.getByLabel('Catalog', { exact: true }).selectOption(CATALOGS.many);
    await page.getByLabel('Category').selectOption('Security');
    await page.getByLabel('Provider').selectOption('Globex');
    // Security: i % 5 == 3; Globex: i % 3 == 1 -> 13, 28.
    await expect
      .poll(async () => (await page.locator('[data-package]').evaluateAll((els) => els.map((e) => e.getAttribute('data-package')))).sort())
      .toEqual(['many-13', 'many-28']);
    await page.getByLabel('Infrastructure features').selectOption('Disconnected');
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
    const session = (await w.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const icon = await fetch(`${origin}/api/icons/${CATALOGS.hostile}/xss-pkg`, { headers: { cookie: session } });
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(icon.headers.get('content-security-policy')).toContain('sandbox');
    expect(w.dialogs).toEqual([]);
    expect(w.foreign).toEqual([]);
    expect(w.errors).toEqual([]);
    // Opened as a document, the scripted SVG is sandboxed by its own CSP: its script is blocked
    // and its remote image refused (the browser says both), nothing runs, nothing is fetched.
    await page.goto(`${origin}/api/icons/${CATALOGS.hostile}/xss-pkg`);
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

  it('works by keyboard only: tab to the search, type, open a package', async () => {
    const w = await open();
    const { page } = w;
    await expect.poll(() => tile(page, 'example-operator').count(), { timeout: 30_000 }).toBe(1);
    let focused = '';
    for (let i = 0; i < 30 && focused !== 'Filter by keyword'; i++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate<string>(`document.activeElement?.getAttribute('aria-label') ?? ''`);
    }
    expect(focused).toBe('Filter by keyword');
    await page.keyboard.type('example operator');
    await expect.poll(() => page.locator('[data-package]').count()).toBe(1);
    let inTile = false;
    for (let i = 0; i < 40 && !inTile; i++) {
      await page.keyboard.press('Tab');
      inTile = await page.evaluate<boolean>(`document.activeElement?.closest('[data-package="example-operator"]') != null`);
    }
    expect(inTile).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.url()).toContain('#/package/');
    await expect.poll(() => page.locator('svg[data-channel="stable"]').count(), { timeout: 15_000 }).toBe(1);
    await w.context.close();
  });
});
