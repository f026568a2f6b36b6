// The console hub's OperatorHub items of issue 71 in a real browser (Debian's chromium through
// playwright-core, the real API server, registry and catalogd): the filter panel's checkboxes
// with counts (within a filter any value, across filters all) and the Install state filter; the
// Architecture and Operating system filters from the CSV's operatorframework.io labels (amd64 and
// linux when none); the source badge of a catalog the administrator annotated as community, on
// its tiles and package page, and the acknowledgement its install form asks for before Install.
// Screenshots go to docs/images/console-hub-*.png.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CATALOG_DISPLAY_NAME_ANNOTATION, CATALOG_SOURCE_TYPE_ANNOTATION } from '../../pkg/olmv1/console/index.ts';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { connect, type KubeContext } from '../../pkg/shared/kube/index.ts';
import { startCatalogd, type TestCatalogd } from '../support/catalogd.ts';
import { condition, onePackageDocs, pushCatalog, waitForCatalog, writeCatalogFiles } from '../support/catalogs.ts';
import { startConsole, type RunningConsole } from '../support/console-run.ts';
import { installOlmConfig } from '../support/olm-config.ts';
import { bundleFiles, pushBundle } from '../support/extensions.ts';
import { withTempDir } from '../support/temp-dir.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SHOTS = join(REPO, 'docs', 'images');
const id = randomBytes(3).toString('hex');
const LABEL = 'test.olmv1/console-hub';
/** A catalog annotated as community content, and one without annotations (Custom). */
const CATALOGS = { community: `hubc-${id}`, custom: `hubx-${id}` };
/** The package of the community catalog with a real bundle image, installed through the form. */
const INSTALL_PKG = `hubi-${id}`;

let kube: KubeContext;
let catalogd: TestCatalogd;
let browser: Browser;
let url = '';
let running: RunningConsole | undefined;

/** One package `name` whose head bundle has `meta` as its olm.csv.metadata. */
function pkgDocs(name: string, meta: object, image = `registry.test/${name}-bundle:v1.0.0`): string[] {
  return onePackageDocs(name, image, meta).map((d) => JSON.stringify(d));
}

const meta = (displayName: string, provider: string, categories: string, labels: Record<string, string> = {}, support = '') => ({
  displayName,
  description: `${displayName} for the hub filters.`,
  provider: { name: provider },
  labels,
  installModes: [{ type: 'AllNamespaces', supported: true }],
  annotations: { categories, capabilities: 'Basic Install', ...(support === '' ? {} : { support }) },
});

async function publish(name: string, files: Record<string, string>, annotations: Record<string, string> = {}): Promise<void> {
  const ref = `${inject('envtestRegistries').anonymous.host}/console-hub/${name}:v1`;
  await withTempDir('console-hub-fbc-', async (dir) => pushCatalog(await writeCatalogFiles(dir, files), ref));
  await kube.client.create({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name, labels: { [LABEL]: id }, annotations },
    spec: { source: { type: 'Image', image: { ref } } },
  });
}

beforeAll(async () => {
  const cp = inject('envtestControlPlane');
  await installOlmConfig(cp);
  kube = await connect({ kind: 'file', path: cp.kubeconfigPath });
  catalogd = await startCatalogd(cp, { leaderElect: false, logLevel: process.env.OLMV1_TEST_LOG ?? 'silent' });
  const registry = inject('envtestRegistries').anonymous.host;
  const image = await pushBundle(bundleFiles({ pkg: INSTALL_PKG, version: '1.0.0' }), `${registry}/console-hub/${INSTALL_PKG}-bundle:v1.0.0`);
  const arm = { 'operatorframework.io/arch.arm64': 'supported', 'operatorframework.io/arch.amd64': 'supported' };
  await publish(
    CATALOGS.community,
    {
      'c/catalog.json': [
        ...pkgDocs(`hub-db-${id}`, meta('Hub Database', 'Acme', 'Database', arm, 'Acme Community Forum')),
        ...pkgDocs(`hub-sec-${id}`, meta('Hub Security', 'Acme', 'Security', { 'operatorframework.io/os.windows': 'supported' })),
        ...pkgDocs(`hub-net-${id}`, meta('Hub Network', 'Globex', 'Networking, Security', { 'operatorframework.io/arch.s390x': 'supported' })),
        ...pkgDocs(INSTALL_PKG, meta('Hub Installable', 'Globex', 'Database'), image),
      ].join('\n'),
    },
    { [CATALOG_DISPLAY_NAME_ANNOTATION]: 'Friendly Community', [CATALOG_SOURCE_TYPE_ANNOTATION]: 'Community' },
  );
  await publish(CATALOGS.custom, { 'x/catalog.json': pkgDocs(`hub-own-${id}`, meta('Hub Own', 'Initech', 'Database')).join('\n') });
  await Promise.all(Object.values(CATALOGS).map((n) => waitForCatalog(kube.client, n, (cc) => condition(cc, 'Serving')?.status === 'True', 90_000)));
  // An extension of hub-sec: its tile is Installed.
  await kube.client.create({
    ...CLUSTER_EXTENSION,
    metadata: { name: `hub-sec-${id}`, labels: { [LABEL]: id } },
    spec: { namespace: 'default', serviceAccount: { name: 'default' }, source: { sourceType: 'Catalog', catalog: { packageName: `hub-sec-${id}` } } },
  });
  running = await startConsole(cp.kubeconfigPath);
  url = running.url;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  // The console's first hub read reads every catalog of the shared cluster, other files' too (up
  // to 120 s for a catalog that does not answer): waited for once here, so each test finds it read.
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  await page.getByLabel('Filter by keyword').waitFor({ timeout: 180_000 });
  await context.close();
}, 480_000);

afterAll(async () => {
  await browser?.close();
  await running?.stop();
  if (kube !== undefined) {
    for (const kind of ['ClusterExtension', 'ClusterCatalog'])
      for (const o of (await kube.client.list({ apiVersion: 'olm.operatorframework.io/v1', kind }, { labelSelector: `${LABEL}=${id}` })).items)
        await kube.client.delete({ apiVersion: 'olm.operatorframework.io/v1', kind, name: o.metadata.name ?? '' }).catch(() => undefined);
  }
  await catalogd?.destroy();
  kube?.close();
});

/** The packages of this test the hub shows now, sorted. */
const shown = (page: Page): Promise<string[]> =>
  page
    .locator('[data-package]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-package') ?? ''))
    .then((l) => l.filter((p) => p.endsWith(id)).sort());
const box = (page: Page, facet: string, value: string) => page.locator(`[data-facet="${facet}"][data-value="${value}"]`);
/** A filter value's count as its checkbox label shows it, e.g. 2 for "Security (2)". */
const count = async (page: Page, facet: string, value: string): Promise<number> =>
  Number(/\((\d+)\)\s*$/.exec(await box(page, facet, value).innerText())?.[1] ?? NaN);

async function openHub(): Promise<{ page: Page; errors: string[]; close(): Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => {
    errors.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  await page.goto(url);
  // Only this test's packages: the search narrows the counts too.
  await page.getByLabel('Filter by keyword').fill(id);
  await expect.poll(() => shown(page), { timeout: 30_000 }).toHaveLength(5);
  return { page, errors, close: () => context.close() };
}

describe('olmv1 console hub: OperatorHub filters and badges (issue 71)', () => {
  it('filters with checkboxes and counts: any value within a filter, all filters together, and Installed', async () => {
    const { page, errors, close } = await openHub();
    expect(await count(page, 'category', 'Database')).toBe(3);
    expect(await count(page, 'category', 'Security')).toBe(2);
    expect(await count(page, 'installed', 'Installed')).toBe(1);
    expect(await count(page, 'installed', 'Not installed')).toBe(4);
    await box(page, 'category', 'Security').locator('input').check();
    await expect.poll(() => shown(page)).toEqual([`hub-net-${id}`, `hub-sec-${id}`]);
    // Two values of one filter widen the match; the counts of Category ignore Category itself.
    await box(page, 'category', 'Database').locator('input').check();
    await expect.poll(() => shown(page)).toHaveLength(5);
    expect(await count(page, 'category', 'Networking')).toBe(1);
    // Another filter narrows it, and the Category counts follow it.
    await box(page, 'provider', 'Globex').locator('input').check();
    await expect.poll(() => shown(page)).toEqual([INSTALL_PKG, `hub-net-${id}`].sort());
    await expect.poll(() => count(page, 'category', 'Database')).toBe(1);
    expect(await count(page, 'provider', 'Acme')).toBe(2);
    await box(page, 'provider', 'Globex').locator('input').uncheck();
    await box(page, 'installed', 'Installed').locator('input').check();
    await expect.poll(() => shown(page)).toEqual([`hub-sec-${id}`]);
    await page.screenshot({ path: join(SHOTS, 'console-hub-filters.png') });
    await box(page, 'installed', 'Installed').locator('input').uncheck();
    await box(page, 'installed', 'Not installed').locator('input').check();
    await expect.poll(() => shown(page)).toHaveLength(4);
    expect(errors).toEqual([]);
    await close();
  });

  it("filters by architecture and OS from the CSV's labels, amd64 and linux when a package names none", async () => {
    const { page, errors, close } = await openHub();
    // amd64: hub-db (named), hub-sec, hub-install and hub-own (none named); not hub-net (s390x only).
    expect(await count(page, 'arch', 'amd64')).toBe(4);
    await box(page, 'arch', 'arm64').locator('input').check();
    await expect.poll(() => shown(page)).toEqual([`hub-db-${id}`]);
    await box(page, 'arch', 's390x').locator('input').check();
    await expect.poll(() => shown(page)).toEqual([`hub-db-${id}`, `hub-net-${id}`]);
    await box(page, 'arch', 'arm64').locator('input').uncheck();
    await box(page, 'arch', 's390x').locator('input').uncheck();
    expect(await count(page, 'os', 'linux')).toBe(4);
    await box(page, 'os', 'windows').locator('input').check();
    await expect.poll(() => shown(page)).toEqual([`hub-sec-${id}`]);
    expect(errors).toEqual([]);
    await close();
  });

  it("shows the catalog's display name and source badge on tiles and the package page, and a Source filter", async () => {
    const { page, errors, close } = await openHub();
    const tile = page.locator(`[data-package="hub-db-${id}"]`);
    expect(await tile.innerText()).toContain('Friendly Community');
    expect(await tile.locator('[data-source-type]').getAttribute('data-source-type')).toBe('Community');
    expect(await page.locator(`[data-package="hub-own-${id}"] [data-source-type]`).getAttribute('data-source-type')).toBe('Custom');
    expect(await count(page, 'source', 'Community')).toBe(4);
    await box(page, 'source', 'Custom').locator('input').check();
    await expect.poll(() => shown(page)).toEqual([`hub-own-${id}`]);
    await page.goto(`${new URL(url).origin}/#/package/${CATALOGS.community}/hub-db-${id}`);
    await expect.poll(() => page.locator('h1 [data-source-type]').count(), { timeout: 15_000 }).toBe(1);
    const main = await page.locator('main').innerText();
    expect(main).toContain(`Friendly Community (${CATALOGS.community})`);
    expect(main).toContain('Acme Community Forum');
    expect(main).toContain('amd64, arm64');
    expect(errors).toEqual([]);
    await close();
  });

  it('asks for an acknowledgement before installing from a community catalog, and says so on the disabled Install', async () => {
    const { page, errors, close } = await openHub();
    await page.goto(`${new URL(url).origin}/#/install/${CATALOGS.community}/${INSTALL_PKG}`);
    const warning = page.locator('[data-community-warning]');
    await expect.poll(() => warning.count(), { timeout: 15_000 }).toBe(1);
    expect(await warning.innerText()).toContain('Friendly Community');
    // The namespace as the form proposes it (the package's name): the preview is a dry run.
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => page.locator('[data-install-yaml]').count(), { timeout: 60_000 }).toBe(1);
    const install = page.getByRole('button', { name: 'Install', exact: true });
    expect(await install.isDisabled()).toBe(true);
    expect(await page.locator('#install-why-disabled').innerText()).toContain('acknowledge that Friendly Community is a community catalog');
    await page.screenshot({ path: join(SHOTS, 'console-hub-community-install.png'), fullPage: true });
    await page.getByLabel('I understand that this package comes from a community catalog and is not supported').check();
    await expect.poll(() => install.isDisabled()).toBe(false);
    expect(await page.locator('#install-why-disabled').innerText()).toBe('Install creates what the preview shows.');
    // A catalog not marked community asks for nothing.
    await page.goto(`${new URL(url).origin}/#/install/${CATALOGS.custom}/hub-own-${id}`);
    await expect.poll(() => page.getByRole('button', { name: 'Preview' }).count(), { timeout: 15_000 }).toBe(1);
    expect(await warning.count()).toBe(0);
    expect(errors).toEqual([]);
    await close();
  });
});
