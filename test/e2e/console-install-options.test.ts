// The install form's OperatorHub choices (issue 71) in Debian's chromium (playwright-core):
// the install modes the bundle's CSV supports, written as upstream's spec.config.inline
// watchNamespace (and refused in upstream's words); the CSV's suggested namespace prefilled and
// created by Install, its template's labels shown, the one weakening Pod security applied only
// once its checkbox is checked (decision 0157); and "install the dependencies first" (olmv1 install --with-dependencies),
// the dependencies listed by Preview before Install installs them. The console is the real
// command with the admin kubeconfig, against the real API server, registry and catalogd. No
// operator-controller runs: where the install service waits for a dependency to be Installed,
// the test writes the status operator-controller would write. Screenshots go to
// docs/images/console-install-*.png.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLUSTER_CATALOG, CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { connect, isNotFound, type KubeContext } from '../../pkg/shared/kube/index.ts';
import { startCatalogd, type TestCatalogd } from '../support/catalogd.ts';
import { condition, onePackageDocs, pushCatalog, waitForCatalog, writeCatalogFiles } from '../support/catalogs.ts';
import { startConsole, type RunningConsole } from '../support/console-run.ts';
import { bundleFiles, pushBundle } from '../support/extensions.ts';
import { installOlmConfig } from '../support/olm-config.ts';
import { withTempDir } from '../support/temp-dir.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SHOTS = join(REPO, 'docs', 'images');
const id = randomBytes(3).toString('hex');
const CATALOG = `install-options-${id}`;
/** Supports OwnNamespace and SingleNamespace only, and suggests a namespace. */
const SCOPED = `scoped-${id}`;
const SUGGESTED = `scoped-system-${id}`;
/** Requires package BASE; BASE provides it. */
const NEEDS = `needs-${id}`;
/** SCOPED's suggested-namespace template: one label and one annotation to apply, one label of OLM's to drop, one weakening Pod security to ask for. */
const TEMPLATE = {
  'operatorframework.io/suggested-namespace-template': JSON.stringify({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: SUGGESTED,
      labels: {
        'example.com/monitoring': 'true',
        'olm.operatorframework.io/installed-for': 'someone-else',
        'pod-security.kubernetes.io/enforce': 'privileged',
      },
      annotations: { 'example.com/owner': 'team-a' },
    },
  }),
};
const BASE = `base-${id}`;

let kube: KubeContext;
let catalogd: TestCatalogd;
let browser: Browser;
let running: RunningConsole | undefined;
let origin = '';

/** The catalog's documents of `pkg` 1.0.0: the CSV metadata the hub reads (install modes, annotations) and the extra properties. */
function packageDocs(pkg: string, image: string, modes: string[], annotations: Record<string, string>, properties: object[] = []): object[] {
  const installModes = ['OwnNamespace', 'SingleNamespace', 'MultiNamespace', 'AllNamespaces'].map((type) => ({
    type,
    supported: modes.includes(type),
  }));
  return onePackageDocs(pkg, image, { displayName: pkg, annotations, installModes }, properties);
}

beforeAll(async () => {
  const cp = inject('envtestControlPlane');
  const registry = inject('envtestRegistries').anonymous.host;
  await installOlmConfig(cp);
  kube = await connect({ kind: 'file', path: cp.kubeconfigPath });
  catalogd = await startCatalogd(cp, { leaderElect: false, logLevel: process.env.OLMV1_TEST_LOG ?? 'silent' });
  const modes = { [SCOPED]: ['OwnNamespace', 'SingleNamespace'], [NEEDS]: ['AllNamespaces'], [BASE]: ['AllNamespaces'] };
  const images: Record<string, string> = {};
  for (const [pkg, m] of Object.entries(modes)) {
    const files = bundleFiles({ pkg, version: '1.0.0', installModes: m });
    if (pkg === SCOPED) {
      // The CSV's suggested-namespace template (HUBPERF item 2): its labels and annotations go on the namespace Install creates.
      const csv = JSON.parse(files.get('manifests/csv.json') ?? '{}') as { metadata: { annotations: Record<string, string> } };
      csv.metadata.annotations = { ...csv.metadata.annotations, ...TEMPLATE };
      files.set('manifests/csv.json', JSON.stringify(csv));
    }
    images[pkg] = await pushBundle(files, `${registry}/install-options-${id}/${pkg}:v1.0.0`);
  }
  const docs = [
    ...packageDocs(SCOPED, images[SCOPED] ?? '', modes[SCOPED] ?? [], { 'operatorframework.io/suggested-namespace': SUGGESTED, ...TEMPLATE }),
    ...packageDocs(NEEDS, images[NEEDS] ?? '', modes[NEEDS] ?? [], {}, [
      { type: 'olm.package.required', value: { packageName: BASE, versionRange: '>=1.0.0' } },
    ]),
    ...packageDocs(BASE, images[BASE] ?? '', modes[BASE] ?? [], {}),
  ];
  const ref = `${registry}/install-options-${id}/catalog:v1`;
  await withTempDir('install-options-fbc-', async (dir) =>
    pushCatalog(await writeCatalogFiles(dir, { 'all/catalog.json': docs.map((d) => JSON.stringify(d)).join('\n') }), ref),
  );
  await kube.client.create({ ...CLUSTER_CATALOG, metadata: { name: CATALOG }, spec: { source: { type: 'Image', image: { ref } } } });
  await waitForCatalog(kube.client, CATALOG, (cc) => condition(cc, 'Serving')?.status === 'True', 90_000);
  running = await startConsole(cp.kubeconfigPath);
  origin = new URL(running.url).origin;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await running?.stop();
  if (kube !== undefined) {
    const c = kube.client;
    for (const name of [SCOPED, NEEDS, BASE]) {
      await c.delete({ ...CLUSTER_EXTENSION, name }).catch(() => undefined);
      for (const kind of ['ClusterRoleBinding', 'ClusterRole'])
        for (const o of (
          await c.listAll({ apiVersion: 'rbac.authorization.k8s.io/v1', kind }, { labelSelector: `olm.operatorframework.io/installed-for=${name}` })
        ).items)
          await c.delete({ apiVersion: 'rbac.authorization.k8s.io/v1', kind, name: o.metadata.name ?? '' }).catch(() => undefined);
    }
    for (const ns of [SUGGESTED, NEEDS, BASE, `team-${id}`]) await c.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns }).catch(() => undefined);
    await c.delete({ ...CLUSTER_CATALOG, name: CATALOG }).catch(() => undefined);
  }
  await catalogd?.destroy();
  kube?.close();
});

/** A signed-in page on the install form of `pkg`, with the script errors it logs. */
async function installForm(pkg: string): Promise<{ page: Page; errors: string[]; close(): Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => (m.type() === 'error' ? errors.push(m.text()) : undefined));
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(running?.url ?? '');
  await page.goto(`${origin}/#/install/${CATALOG}/${pkg}`);
  await expect.poll(() => page.getByRole('heading', { name: `Install ${pkg}` }).count(), { timeout: 30_000 }).toBe(1);
  return { page, errors, close: () => context.close() };
}

async function axe(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's CSP (no inline script) stays in force.
  await page.evaluate(await readFile(join(REPO, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
  const violations = await page.evaluate(async () => {
    const a = (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> } }).axe;
    return (await a.run()).violations;
  });
  return violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

const absent = (p: Promise<unknown>) =>
  p.then(
    () => 'there',
    (e: unknown) => (isNotFound(e) ? 'absent' : String(e)),
  );

describe('olmv1 console: the install form as OperatorHub offers it', () => {
  it("offers only the install modes the CSV supports, prefills its suggested namespace, refuses a SingleNamespace install without a watch namespace in upstream's words, and writes spec.config.inline.watchNamespace", async () => {
    const { page, errors, close } = await installForm(SCOPED);
    // AllNamespaces is not supported: not offered. OwnNamespace, the first supported, is chosen.
    expect(await page.locator('[data-install-mode]').evaluateAll((els) => els.map((e) => e.getAttribute('data-install-mode')))).toEqual([
      'OwnNamespace',
      'SingleNamespace',
    ]);
    expect(await page.getByLabel('All namespaces on the cluster').count()).toBe(0);
    expect(await page.getByLabel('The installed namespace only').isChecked()).toBe(true);
    // The suggested namespace, chosen as OperatorHub chooses it.
    expect(await page.getByLabel(/Operator recommended namespace/).isChecked()).toBe(true);
    expect(await page.locator('main').innerText()).toContain(SUGGESTED);

    await page.getByRole('button', { name: 'Preview' }).click();
    const preview = page.locator('[data-install-yaml]');
    await expect.poll(() => preview.count(), { timeout: 60_000 }).toBe(1);
    let yaml = await preview.locator('.pf-v6-c-code-block__code').innerText();
    expect(yaml).toContain(`namespace: ${SUGGESTED}`);
    expect(yaml).toContain(`watchNamespace: ${SUGGESTED}`);
    expect(yaml).toMatch(/example\.com\/monitoring: ["']true["']/);
    expect(await page.locator('[data-install-creates-namespace]').innerText()).toContain(`${SUGGESTED} does not exist: Install creates it`);
    // The template's entries are shown; the one weakening Pod security is left out until its box is checked, and the log says so.
    const template = page.locator('[data-install-namespace-template]');
    expect(await template.innerText()).toContain('label example.com/monitoring=true');
    expect(await template.innerText()).toContain('annotation example.com/owner=team-a');
    const acceptLabels = page.getByLabel(/which weaken the namespace's Pod security/);
    expect(await acceptLabels.isChecked()).toBe(false);
    expect(await acceptLabels.locator('xpath=..').innerText()).toContain('label pod-security.kubernetes.io/enforce=privileged');
    expect(yaml).not.toContain('pod-security.kubernetes.io/enforce');
    expect(await preview.locator('.olmv1-log').innerText()).toContain(
      `label "pod-security.kubernetes.io/enforce=privileged" not applied (it weakens the namespace's Pod security`,
    );

    // SingleNamespace needs a watch namespace: upstream's configuration schema says so, in its words.
    await page.getByLabel('A specific namespace on the cluster').check();
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => page.locator('[data-install-error]').count(), { timeout: 60_000 }).toBe(1);
    const refusal = await page.locator('[data-install-error]').innerText();
    expect(refusal).toContain('invalid ClusterExtension configuration: invalid configuration: multiple errors found');
    expect(refusal).toContain('- field "watchNamespace" must have minimum length of 1 (len=0)');
    await page.getByLabel('Watch namespace').fill(`team-${id}`);
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => preview.count(), { timeout: 60_000 }).toBe(1);
    yaml = await preview.locator('.pf-v6-c-code-block__code').innerText();
    expect(yaml).toContain(`watchNamespace: team-${id}`);
    // Checked, the preview runs again with the label on the namespace.
    await page.getByLabel(/which weaken the namespace's Pod security/).check();
    await expect
      .poll(() => preview.locator('.pf-v6-c-code-block__code').innerText(), { timeout: 60_000 })
      .toMatch(/pod-security\.kubernetes\.io\/enforce: privileged/);
    await page.getByRole('button', { name: 'Equivalent command' }).click();
    expect(await page.locator('[data-equivalent-command]').innerText()).toContain(`--namespace ${SUGGESTED} --watch-namespace team-${id}`);
    expect(await page.locator('[data-equivalent-command]').innerText()).toContain('--accept-namespace-labels');
    expect(await axe(page)).toEqual([]);
    await page.locator('[data-install-mode="OwnNamespace"]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'console-install-mode.png') });

    await page.getByRole('button', { name: 'Install', exact: true }).click();
    await expect.poll(() => page.url(), { timeout: 60_000 }).toBe(`${origin}/#/installed/${SCOPED}`);
    const ce = await kube.client.get({ ...CLUSTER_EXTENSION, name: SCOPED });
    expect(ce.spec).toMatchObject({ namespace: SUGGESTED, config: { configType: 'Inline', inline: { watchNamespace: `team-${id}` } } });
    expect(await absent(kube.client.get({ apiVersion: 'v1', kind: 'Namespace', name: SUGGESTED }))).toBe('there');
    // Created with the template's label and annotation; install's own labels win over the template's.
    const ns = await kube.client.get({ apiVersion: 'v1', kind: 'Namespace', name: SUGGESTED });
    expect(ns.metadata.labels).toMatchObject({
      'example.com/monitoring': 'true',
      'olm.operatorframework.io/installed-for': SCOPED,
      'pod-security.kubernetes.io/enforce': 'privileged',
    });
    expect(ns.metadata.annotations).toMatchObject({ 'example.com/owner': 'team-a' });
    // The refusal above is the one 422 answer.
    expect(errors.filter((e) => !/status of 422/.test(e))).toEqual([]);
    await close();
  });

  it('lists the dependencies before Install and installs them first, as olmv1 install --with-dependencies does', async () => {
    const { page, errors, close } = await installForm(NEEDS);
    // AllNamespaces only: the one mode offered, and no namespace is suggested.
    expect(await page.locator('[data-install-mode]').evaluateAll((els) => els.map((e) => e.getAttribute('data-install-mode')))).toEqual([
      'AllNamespaces',
    ]);
    expect(await page.getByLabel(/^Namespace/).inputValue()).toBe(NEEDS);
    expect(await page.getByText(`It requires package ${BASE} >=1.0.0.`).count()).toBe(1);
    await page.getByLabel('Install the dependencies the cluster lacks first').check();
    await page.getByRole('button', { name: 'Preview' }).click();
    const deps = page.locator('[data-install-dependencies]');
    await expect.poll(() => deps.locator('td').count(), { timeout: 60_000 }).toBeGreaterThan(0);
    expect(await deps.locator('tbody tr').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent)))).toEqual([
      [BASE, '1.0.0', CATALOG, `package "${BASE}" in range ">=1.0.0"`],
    ]);
    // Previewing wrote nothing, not even the dependency.
    expect(await absent(kube.client.get({ ...CLUSTER_EXTENSION, name: BASE }))).toBe('absent');
    expect(await axe(page)).toEqual([]);
    await deps.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'console-install-dependencies.png') });

    await page.getByRole('button', { name: 'Install', exact: true }).click();
    // The install service waits for the dependency to be Installed: written here as operator-controller would.
    const baseRef = { ...CLUSTER_EXTENSION, name: BASE };
    await expect.poll(() => absent(kube.client.get(baseRef)), { timeout: 60_000 }).toBe('there');
    const generation = (await kube.client.get(baseRef)).metadata.generation ?? 1;
    const cond = (type: string) => ({
      type,
      status: 'True',
      reason: 'Succeeded',
      message: 'done',
      observedGeneration: generation,
      lastTransitionTime: new Date().toISOString(),
    });
    await kube.client.patch(
      baseRef,
      { status: { conditions: [cond('Installed'), cond('Progressing')], install: { bundle: { name: `${BASE}.v1.0.0`, version: '1.0.0' } } } },
      'merge',
      { subresource: 'status' },
    );
    await expect.poll(() => page.url(), { timeout: 60_000 }).toBe(`${origin}/#/installed/${NEEDS}`);
    expect((await kube.client.get({ ...CLUSTER_EXTENSION, name: NEEDS })).spec).toMatchObject({ namespace: NEEDS });
    expect((await kube.client.get(baseRef)).spec).toMatchObject({ namespace: BASE, source: { catalog: { packageName: BASE } } });
    expect(errors).toEqual([]);
    await close();
  });
});
