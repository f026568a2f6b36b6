// The day-one workflow of issue 62 in a real browser, against the real stack: a newcomer finds
// the example operator on the console's OperatorHub, installs it with least privilege through the
// install form (update policy Manual), watches it reach Installed, sees an upgrade held for
// approval once a newer catalog is published, approves it from the upgrade plan, rolls back to
// revision 1 and uninstalls it after the preview, all by clicking and typing in Debian's chromium
// (playwright-core); no YAML file is written by hand.
//
// Nothing here writes what operator-controller would write: the kube-apiserver and etcd are the
// run's shared control plane, the registry its anonymous one, and catalogd and operator-controller
// run as their real binaries in processes of their own, started as `olmv1 up` starts them
// (cmd/olmv1/up-components.ts). The console is the real command (cmd/olmv1/console.ts) with the
// admin kubeconfig. There is no node: the operator's Pod never runs, so the extension becomes
// Installed and its Healthy condition is whatever operator-controller reports for a Deployment
// without Pods (the page must show exactly that). Screenshots go to docs/images/console-day-one-*.png.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAll } from 'js-yaml';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { startComponents, type Components } from '../../cmd/olmv1/up-components.ts';
import { createWorkspace, type Workspace } from '../../pkg/olmv1/localstack/index.ts';
import { readBundleDir } from '../../pkg/operator-controller/bundle/index.ts';
import { createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import { CLUSTER_CATALOG, CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { connect, isNotFound, type KubeContext } from '../../pkg/shared/kube/index.ts';
import { condition, pushCatalog, waitForCatalog, writeCatalogFiles } from '../support/catalogs.ts';
import { pushBundle } from '../support/extensions.ts';
import { startConsole, type RunningConsole } from '../support/console-run.ts';
import { installOlmConfig } from '../support/olm-config.ts';
import { withTempDir } from '../support/temp-dir.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SHOTS = join(REPO, 'docs', 'images');
const EXAMPLE = join(REPO, 'examples', 'example-operator');
const id = randomBytes(3).toString('hex');
const PKG = 'example-operator';
const CATALOG = `example-catalog-${id}`;
/** What the newcomer types into the install form: the extension's name and its namespace. */
const NAME = `day-one-${id}`;
const NAMESPACE = `day-one-${id}`;
const CRD = 'greetings.demo.example.com';
const ceRef = { ...CLUSTER_EXTENSION, name: NAME };
const catalogRef = { ...CLUSTER_CATALOG, name: CATALOG };
/** The example's bundles, as the committed catalog names them (cmd/olmv1/up-example.ts EXAMPLE_REGISTRY). */
const COMMITTED_BUNDLES = '127.0.0.1:5001/olmv1/example-operator-bundle';

let kube: KubeContext;
let workspace: Workspace;
let components: Components;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let origin = '';
let registry = '';
let running: RunningConsole | undefined;
/** What the page did that it should not: dialogs, script errors. */
const dialogs: string[] = [];
const errors: string[] = [];
/** The page's console errors (failed requests, errors its boundaries caught): printed after a failed step. */
const consoleErrors: string[] = [];

/**
 * The example catalog with its bundle images in the test registry; `withNewest: false` leaves
 * out 1.0.0 (the bundle and its channel entries): the catalog as it was before 1.0.0 was published.
 */
async function exampleCatalog(dir: string, withNewest: boolean): Promise<string> {
  const text = (await readFile(join(EXAMPLE, 'catalog', PKG, 'catalog.yaml'), 'utf8')).replaceAll(
    COMMITTED_BUNDLES,
    `${registry}/day-one-${id}/bundle`,
  );
  const newest = `${PKG}.v1.0.0`;
  const docs = (loadAll(text) as Record<string, unknown>[])
    .filter((d) => withNewest || !(d['schema'] === 'olm.bundle' && d['name'] === newest))
    .map((d) =>
      withNewest || d['schema'] !== 'olm.channel' ? d : { ...d, entries: (d['entries'] as { name: string }[]).filter((e) => e.name !== newest) },
    );
  return writeCatalogFiles(dir, { [`${PKG}/catalog.json`]: docs.map((d) => JSON.stringify(d)).join('\n') });
}

/** Pushes the example's bundles (as committed: their operator image is never pulled, there is no node) to the test registry. */
async function pushExampleBundles(): Promise<void> {
  for (const version of ['0.1.0', '0.2.0', '0.3.0', '1.0.0']) {
    const files = new Map<string, string>();
    for (const [path, bytes] of await readBundleDir(join(EXAMPLE, 'bundles', version)))
      if (!path.endsWith('/')) files.set(path, Buffer.from(bytes).toString('utf8'));
    await pushBundle(files, `${registry}/day-one-${id}/bundle:v${version}`);
  }
}

/** Publishes the catalog image `tag` and points the ClusterCatalog at it (creating it first); resolves once catalogd serves that digest. */
async function publishCatalog(tag: string, withNewest: boolean): Promise<void> {
  const ref = `${registry}/day-one-${id}/catalog:${tag}`;
  const digest = await withTempDir('day-one-fbc-', async (dir) => pushCatalog(await exampleCatalog(dir, withNewest), ref));
  if (await exists(catalogRef)) await kube.client.patch(catalogRef, { spec: { source: { image: { ref } } } }, 'merge');
  else await kube.client.create({ ...CLUSTER_CATALOG, metadata: { name: CATALOG }, spec: { source: { type: 'Image', image: { ref } } } });
  await waitForCatalog(
    kube.client,
    CATALOG,
    (cc) => condition(cc, 'Serving')?.status === 'True' && JSON.stringify(cc.status).includes(digest),
    90_000,
  );
}

beforeAll(async () => {
  const cp = inject('envtestControlPlane');
  registry = inject('envtestRegistries').anonymous.host;
  await installOlmConfig(cp);
  kube = await connect({ kind: 'file', path: cp.kubeconfigPath });
  await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'olmv1-system' } }).catch((e: unknown) => {
    if ((e as { status?: number }).status !== 409) throw e;
  });
  workspace = await createWorkspace('console-day-one-');
  const logDir = join(workspace.dir, 'logs');
  await mkdir(logDir);
  components = await startComponents({
    repoRoot: REPO,
    node: process.execPath,
    kubeconfig: cp.kubeconfigPath,
    systemNamespace: 'olmv1-system',
    insecureRegistries: ['127.0.0.1'],
    logDir,
    workspace,
    env: process.env,
    featureGates: { catalogd: [], operatorController: [] },
  });
  await pushExampleBundles();
  // The catalog before 1.0.0: stable is 0.1.0 -> 0.2.0.
  await publishCatalog('before', false);
  running = await startConsole(cp.kubeconfigPath);
  const url = running.url;
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
  origin = new URL(url).origin;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  page = await context.newPage();
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => void (m.type() === 'error' && consoleErrors.push(m.text())));
  await page.goto(url);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await running?.stop();
  if (kube !== undefined) {
    const c = kube.client;
    const gone = (ref: { apiVersion: string; kind: string; name: string }) =>
      vi.waitFor(
        async () => {
          if (
            await c.get(ref).then(
              () => true,
              (e: unknown) => !isNotFound(e),
            )
          )
            throw new Error(`${ref.kind} ${ref.name} is still there`);
        },
        { timeout: 30_000, interval: 200 },
      );
    // While the controllers run, so that their finalizers are done; dropped if they are not.
    for (const ref of [ceRef, catalogRef]) {
      await c.delete(ref).catch(() => undefined);
      await gone(ref).catch(async () => {
        await c.patch(ref, { metadata: { finalizers: null } }, 'merge').catch(() => undefined);
      });
    }
    // What uninstall keeps by design: the CRD, the namespace, the installer and its RBAC.
    await c.delete({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: CRD }).catch(() => undefined);
    for (const kind of [
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' },
    ])
      for (const o of (await c.listAll(kind, { labelSelector: `olm.operatorframework.io/installed-for=${NAME}` })).items)
        await c.delete({ ...kind, name: o.metadata.name ?? '' }).catch(() => undefined);
    await c.delete({ apiVersion: 'v1', kind: 'Namespace', name: NAMESPACE }).catch(() => undefined);
  }
  await workspace?.stop();
  kube?.close();
});

/** After a failed step, what the components logged last. */
function logsOnFailure(): void {
  afterEach((ctx) => {
    if (ctx.task.result?.state !== 'fail' || (components as Components | undefined) === undefined) return;
    process.stderr.write(
      `--- catalogd ---\n${components.catalogd.logTail(30)}\n--- operator-controller ---\n${components.operatorController.logTail(60)}\n`,
    );
  });
  // What the page showed and threw, for a failure only the browser saw.
  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== 'fail' || (page as Page | undefined) === undefined) return;
    const shown = await page
      .locator('body')
      .innerText({ timeout: 5_000 })
      .catch((e: unknown) => `(unreadable: ${String(e)})`);
    process.stderr.write(
      `--- page ${page.url()} ---\n${shown.slice(0, 3_000)}\n--- page errors ---\n${errors.join('\n')}\n--- console errors ---\n${consoleErrors.slice(-20).join('\n')}\n`,
    );
  });
}

/** The cells of each body row of the table labelled `label`. */
const rows = (label: string): Promise<string[][]> =>
  page
    .getByRole('table', { name: label })
    .locator('tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')))
    .catch(() => []);

/** The release history as [revision, status, bundle, version]. */
const history = async (): Promise<string[][]> => (await rows('Release history')).map((r) => [r[0] ?? '', r[2] ?? '', r[3] ?? '', r[4] ?? '']);

/** The ClusterExtension's conditions as operator-controller wrote them: [type, status, reason, message]. */
async function apiConditions(): Promise<string[][]> {
  const ce = await kube.client.get(ceRef);
  const conds = ((ce.status as { conditions?: { type: string; status: string; reason: string; message: string }[] } | undefined)?.conditions ??
    []) as { type: string; status: string; reason: string; message: string }[];
  return conds.map((c) => [c.type, c.status, c.reason, c.message]);
}

/** The page's Conditions table as [type, status, reason, message]. */
const pageConditions = async (): Promise<string[][]> => (await rows('Conditions')).map((r) => r.slice(0, 4));

/** Waits until the page's Conditions table shows exactly what the API server holds, and `check` holds for it. */
async function conditionsShown(check: (c: Map<string, string[]>) => boolean, timeout: number): Promise<Map<string, string[]>> {
  let shown = new Map<string, string[]>();
  await expect
    .poll(
      async () => {
        const [onPage, inApi] = await Promise.all([pageConditions(), apiConditions()]);
        shown = new Map(onPage.map((c) => [c[0] ?? '', c]));
        return JSON.stringify(onPage) === JSON.stringify(inApi) && check(shown);
      },
      { timeout, interval: 500 },
    )
    .toBe(true);
  return shown;
}

/** status.install.bundle of the ClusterExtension, as operator-controller wrote it. */
const installedBundle = async (): Promise<unknown> =>
  ((await kube.client.get(ceRef)).status as { install?: { bundle?: { name: string; version: string } } } | undefined)?.install?.bundle;

const exists = (ref: { apiVersion: string; kind: string; name: string; namespace?: string }): Promise<boolean> =>
  kube.client.get(ref).then(
    () => true,
    (e: unknown) => (isNotFound(e) ? false : Promise.reject(e)),
  );

describe('olmv1 console: the day-one workflow against the real stack', () => {
  logsOnFailure();

  it('finds the example operator on the hub by searching, and opens its package page', async () => {
    const search = page.getByLabel('Filter by keyword');
    await expect.poll(() => search.count(), { timeout: 30_000 }).toBe(1);
    await search.click();
    await page.keyboard.type('greeting');
    const tile = page.locator(`[data-package="${PKG}"]`);
    await expect.poll(() => tile.count(), { timeout: 30_000 }).toBe(1);
    expect(await tile.innerText()).toContain('Example Operator');
    await tile.click();
    await expect.poll(() => page.url()).toBe(`${origin}/#/package/${CATALOG}/${PKG}`);
    // The upgrade graph of the catalog as published: stable's head is 0.2.0, 1.0.0 not yet there.
    const stable = page.locator('svg[data-channel="stable"]');
    await expect.poll(() => stable.count(), { timeout: 30_000 }).toBe(1);
    expect(await stable.locator('[data-head="true"]').getAttribute('data-entry')).toBe(`${PKG}.v0.2.0`);
  }, 300_000);

  it('installs with least privilege and the Manual update policy through the form; operator-controller installs it (revision 1)', async () => {
    await page.getByRole('link', { name: 'Install…' }).click();
    await expect.poll(() => page.url()).toBe(`${origin}/#/install/${CATALOG}/${PKG}`);
    await expect.poll(() => page.locator('#install-name').count(), { timeout: 30_000 }).toBe(1);
    await page.locator('#install-name').fill(NAME);
    await page.getByLabel(/^Namespace/).fill(NAMESPACE);
    await page.getByLabel('Channel').selectOption('stable');
    await page.getByLabel('Update policy').selectOption('Manual');
    await page.getByRole('button', { name: 'Preview' }).click();
    const preview = page.locator('[data-install-yaml]');
    await expect.poll(() => preview.count(), { timeout: 60_000 }).toBe(1);
    const yaml = await preview.locator('.pf-v6-c-code-block__code').innerText();
    for (const s of [
      'kind: Namespace',
      'kind: ServiceAccount',
      `name: ${NAME}-installer`,
      'kind: ClusterRole',
      'kind: ClusterExtension',
      'olm.operatorframework.io/update-policy: Manual',
      '- stable',
      // The installer may manage the operator's own CRD by name, not every CRD.
      `- ${CRD}`,
    ])
      expect(yaml).toContain(s);
    // Least privilege: no wildcard anywhere.
    expect(yaml).not.toMatch(/- '\*'|- "\*"/);
    expect(await exists(ceRef)).toBe(false);

    await page.getByRole('button', { name: 'Install', exact: true }).click();
    await expect.poll(() => page.url(), { timeout: 60_000 }).toBe(`${origin}/#/installed/${NAME}`);
    // The real operator-controller resolves 0.2.0 (stable's head), pulls it and applies it as the installer.
    const shown = await conditionsShown((c) => c.get('Installed')?.[1] === 'True' && c.get('Progressing')?.[2] === 'Succeeded', 120_000);
    expect(shown.get('Installed')?.slice(1, 3)).toEqual(['True', 'Succeeded']);
    // Upstream's message names the bundle image; status.install names the bundle.
    expect(shown.get('Installed')?.[3]).toBe(`Installed bundle ${registry}/day-one-${id}/bundle:v0.2.0 successfully`);
    expect(await installedBundle()).toEqual({ name: `${PKG}.v0.2.0`, version: '0.2.0' });
    // Healthy as operator-controller reports it here: no kube-controller-manager writes the
    // Deployment's status (and no node would run its Pod), so the health step judges it so.
    expect(shown.get('Healthy')).toEqual([
      'Healthy',
      'False',
      'Unhealthy',
      `Deployment ${NAMESPACE}/example-operator-controller: status not reported yet`,
    ]);
    await expect.poll(history, { timeout: 30_000 }).toEqual([['1', 'deployed', `${PKG}.v0.2.0`, '0.2.0']]);
    // The objects the installer ServiceAccount applied are on the cluster.
    expect(await exists({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: NAMESPACE, name: 'example-operator-controller' })).toBe(true);
    expect(await exists({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: CRD })).toBe(true);
    const ce = await kube.client.get(ceRef);
    expect((ce.spec as { serviceAccount?: { name?: string } }).serviceAccount?.name).toBe(`${NAME}-installer`);
    await page.setViewportSize({ width: 1280, height: 1500 });
    await page.screenshot({ path: join(SHOTS, 'console-day-one-installed.png') });
    await page.setViewportSize({ width: 1280, height: 1000 });

    // The Installed page lists it at 0.2.0, Installed.
    await page.goto(`${origin}/#/installed`);
    const row = page.locator(`[data-extension="${NAME}"]`);
    await expect.poll(() => row.count(), { timeout: 30_000 }).toBe(1);
    await expect.poll(() => row.innerText(), { timeout: 30_000 }).toMatch(/0\.2\.0[\s\S]*True \(Succeeded\)/);
  }, 300_000);

  it('shows UpgradeAvailable once 1.0.0 is published, plans it, and Approve lets operator-controller upgrade (revision 2)', async () => {
    // The catalog author publishes 1.0.0: a new catalog image, which the ClusterCatalog now names.
    await publishCatalog('after', true);
    const row = page.locator(`[data-extension="${NAME}"]`);
    // operator-controller holds the upgrade (Manual policy); the Installed page shows it.
    await expect.poll(() => row.innerText(), { timeout: 90_000 }).toContain('True (ApprovalRequired)');
    await row.getByRole('link', { name: NAME }).click();
    await expect.poll(() => page.url()).toBe(`${origin}/#/installed/${NAME}`);
    const held = await conditionsShown((c) => c.get('UpgradeAvailable')?.[1] === 'True', 30_000);
    expect(held.get('UpgradeAvailable')?.[2]).toBe('ApprovalRequired');
    expect(held.get('UpgradeAvailable')?.[3]).toContain(`${PKG}.v1.0.0`);

    await page.getByRole('button', { name: 'Show upgrade plan' }).click();
    await expect.poll(() => page.locator('[data-upgrade-plan="ready"]').count(), { timeout: 60_000 }).toBe(1);
    const summary = await page.locator('[data-plan-summary]').innerText();
    expect(summary).toContain(`Next: ${PKG}.v1.0.0 (1.0.0) from catalog ${CATALOG}, installed ${PKG}.v0.2.0 (0.2.0).`);
    expect(summary).toContain('Update policy Manual: held for approval.');
    await page.setViewportSize({ width: 1280, height: 1500 });
    await page.screenshot({ path: join(SHOTS, 'console-day-one-upgrade-plan.png') });
    await page.setViewportSize({ width: 1280, height: 1000 });
    await page.getByRole('button', { name: `Approve ${PKG}.v1.0.0` }).click();
    await expect.poll(() => page.locator('[data-approved]').count(), { timeout: 60_000 }).toBe(1);
    // olmv1 upgrade approve's report: the installer already holds what 1.0.0 needs (no grant added), and the annotation.
    const approved = await page.locator('[data-approved]').innerText();
    expect(approved).toContain(`ServiceAccount ${NAMESPACE}/${NAME}-installer already holds every permission ${PKG}.v1.0.0 needs`);
    expect(approved).toContain(`olm.operatorframework.io/approved-bundle=${PKG}.v1.0.0`);

    // The real operator-controller installs the approved bundle: revision 2 deployed, 1 superseded.
    await expect.poll(history, { timeout: 120_000 }).toEqual([
      ['2', 'deployed', `${PKG}.v1.0.0`, '1.0.0'],
      ['1', 'superseded', `${PKG}.v0.2.0`, '0.2.0'],
    ]);
    const upgraded = await conditionsShown((c) => c.get('Installed')?.[3]?.includes('/bundle:v1.0.0 ') === true, 60_000);
    expect(upgraded.get('Installed')?.[1]).toBe('True');
    expect(await installedBundle()).toEqual({ name: `${PKG}.v1.0.0`, version: '1.0.0' });
    expect(upgraded.get('UpgradeAvailable')?.[1]).not.toBe('True');
  }, 300_000);

  it('rolls back to revision 1 from the history; operator-controller installs 0.2.0 again as revision 3', async () => {
    const button = page.getByRole('button', { name: 'Roll back to revision 1…' });
    await expect.poll(() => button.count(), { timeout: 30_000 }).toBe(1);
    await button.click();
    expect(await page.locator('#rollback-heading').innerText()).toBe(`Roll back ${NAME} to revision 1 (${PKG}.v0.2.0, version 0.2.0)?`);
    await page.getByRole('button', { name: 'Roll back', exact: true }).click();
    const done = page.locator('[data-rollback-done="1"]');
    await expect.poll(() => done.count(), { timeout: 60_000 }).toBe(1);
    expect(await done.innerText()).toContain(
      `Rolling back ${NAME} from the deployed revision 2 (${PKG}.v1.0.0, version 1.0.0) to revision 1 (${PKG}.v0.2.0, version 0.2.0).`,
    );
    // The command pinned the version: that is what operator-controller now installs.
    const spec = (await kube.client.get(ceRef)).spec as { source: { catalog: Record<string, unknown> } };
    expect(spec.source.catalog).toMatchObject({ version: '0.2.0', upgradeConstraintPolicy: 'SelfCertified' });
    await expect.poll(history, { timeout: 120_000 }).toEqual([
      ['3', 'deployed', `${PKG}.v0.2.0`, '0.2.0'],
      ['2', 'superseded', `${PKG}.v1.0.0`, '1.0.0'],
      ['1', 'superseded', `${PKG}.v0.2.0`, '0.2.0'],
    ]);
    const rolledBack = await conditionsShown((c) => c.get('Installed')?.[3]?.includes('/bundle:v0.2.0 ') === true, 60_000);
    expect(rolledBack.get('Installed')?.[1]).toBe('True');
    expect(await installedBundle()).toEqual({ name: `${PKG}.v0.2.0`, version: '0.2.0' });
    // The objects section reads the deployed release again: revision 3's.
    await expect
      .poll(() => page.locator('[data-release-objects="ready"]').innerText(), { timeout: 30_000 })
      .toContain(`Revision 3 (${PKG}.v0.2.0, version 0.2.0)`);
    // The history with the three revisions and the command's report.
    await page.locator('section[aria-labelledby="release-history-heading"]').screenshot({ path: join(SHOTS, 'console-day-one-rollback.png') });
  }, 300_000);

  it("creates a Greeting from the operator's example (alm-examples): the CRD's schema refuses a wrong type before anything is written, then the edited example is created as the user", async () => {
    const greeting = { apiVersion: 'demo.example.com/v1', kind: 'Greeting', namespace: NAMESPACE, name: 'hello' };
    await page.getByRole('button', { name: 'Create Greeting…' }).click();
    const yaml = page.getByLabel('YAML');
    expect(await yaml.inputValue()).toBe(
      'apiVersion: demo.example.com/v1\nkind: Greeting\nmetadata:\n  name: hello\nspec:\n  message: Hello from OLM v1\n',
    );
    await yaml.fill('apiVersion: demo.example.com/v1\nkind: Greeting\nmetadata:\n  name: hello\nspec:\n  message: 5\n');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    const refusal = page.locator('[data-instance-error]');
    await expect.poll(() => refusal.count(), { timeout: 15_000 }).toBe(1);
    expect(await refusal.innerText()).toContain('spec.message in body must be of type string');
    expect(await exists(greeting)).toBe(false);
    await yaml.fill('apiVersion: demo.example.com/v1\nkind: Greeting\nmetadata:\n  name: hello\nspec:\n  message: Hello from the console\n');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await expect.poll(() => page.locator('[data-instance-done]').count(), { timeout: 15_000 }).toBe(1);
    expect(await page.locator('[data-instance-done]').innerText()).toContain(`Greeting ${NAMESPACE}/hello created`);
    expect((await kube.client.get(greeting)).spec).toEqual({ message: 'Hello from the console' });
  }, 120_000);

  it("changes the channels the extension asks for: previews the change, then applies it as the user (olmv1 update's service)", async () => {
    const requested = page.locator('[data-requested]');
    await expect.poll(() => requested.innerText(), { timeout: 15_000 }).toBe('Asks for version 0.2.0, from channel stable.');
    await page.getByRole('button', { name: 'Change version or channels…' }).click();
    await page.getByLabel('Channels, separated by commas (empty: any)').fill('candidate');
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect
      .poll(() => page.locator('[data-update-preview]').innerText(), { timeout: 15_000 })
      .toBe('spec.source.catalog.channels: ["stable"] -> ["candidate"]');
    const catalogSpec = async () => ((await kube.client.get(ceRef)).spec as { source: { catalog: Record<string, unknown> } }).source.catalog;
    expect(await catalogSpec()).toMatchObject({ channels: ['stable'] });
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.locator('[data-update-done]').count(), { timeout: 15_000 }).toBe(1);
    expect(await catalogSpec()).toMatchObject({ version: '0.2.0', channels: ['candidate'] });
    await expect.poll(() => requested.innerText(), { timeout: 15_000 }).toBe('Asks for version 0.2.0, from channel candidate.');
  }, 120_000);

  it('uninstalls after the preview; operator-controller removes the extension and its objects and keeps the CRD, as the preview said', async () => {
    await page.getByRole('button', { name: 'Uninstall…' }).click();
    await expect.poll(() => page.locator('[data-uninstall-preview="ready"]').count(), { timeout: 30_000 }).toBe(1);
    const deleted = await page.getByRole('list', { name: 'Deleted' }).locator('li').allInnerTexts();
    expect(deleted).toContain(`ClusterExtension ${NAME}`);
    expect(deleted).toContain(`Deployment ${NAMESPACE}/example-operator-controller`);
    expect(deleted.some((d) => d.includes(CRD))).toBe(false);
    expect(await page.locator(`[data-kept-crd="${CRD}"]`).count()).toBe(1);
    await page.getByRole('button', { name: 'Uninstall', exact: true }).click();
    await expect
      .poll(
        () =>
          page
            .locator('[data-extension-gone]')
            .innerText()
            .catch(() => ''),
        { timeout: 120_000 },
      )
      .toContain(`ClusterExtension ${NAME} is uninstalled`);
    expect(await exists(ceRef)).toBe(false);
    // operator-controller's uninstall finalizer deleted the objects (there is no garbage collector) and the records.
    expect(await exists({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: NAMESPACE, name: 'example-operator-controller' })).toBe(false);
    expect(await createReleaseStore({ client: kube.client, namespace: 'olmv1-system' }).history(NAME)).toEqual([]);
    // Kept, as the preview said.
    expect(await exists({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: CRD })).toBe(true);
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
  }, 300_000);
});
