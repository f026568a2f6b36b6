/**
 * OpenID Connect sign-in with the console as a Pod on the local node (issue 71, decision 0152),
 * for local-stack-in-cluster.test.ts, whose `olmv1 up --node --in-cluster` it shares: ORY Hydra
 * (hydra.ts) serves on the node bridge's address, which this machine's browser and the console's
 * Pod both reach under one issuer URL; the API server learns the issuer when the file `up` gave it
 * as `--authentication-config` is rewritten (it reloads the file); the console's Deployment gets
 * the issuer as a platform team configures it (ConfigMap olmv1-console-oidc and
 * config/console/oidc's patch). In Chromium the admin (group olmv1-admins, cluster-admin) adds a
 * ClusterCatalog, which lands; the viewer (group olmv1-viewers, the read-only role
 * `viewerRole`) sees it listed, is refused the same write in the API server's words, and nothing
 * is written. Then the install form (issue 71's "an admin installs"): the example operator the
 * samples installed is uninstalled (its CRD kept, for the same package to take back); the viewer
 * previews its install through the form and is refused Install in the API server's words with
 * nothing written; the admin goes hub, package page, install form, Install, and operator-controller
 * installs it as the form's least-privilege installer, Healthy with its Pod Running.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { startHydra, type Hydra } from './hydra.ts';
import { OIDC_USERS } from './oidc-login.ts';

/** The AuthenticationConfiguration `up` starts with: no JWT authenticator yet. */
export const EMPTY_AUTHENTICATION_CONFIG = { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthenticationConfiguration', jwt: [] };

/** The AuthenticationConfiguration accepting `hydra`'s ID tokens for `clientId`: username from email, groups from groups. */
export function hydraAuthenticationConfig(hydra: Hydra, clientId: string): object {
  return {
    ...EMPTY_AUTHENTICATION_CONFIG,
    jwt: [
      {
        issuer: { url: hydra.issuer, certificateAuthority: hydra.caPem, audiences: [clientId] },
        claimMappings: { username: { claim: 'email', prefix: '' }, groups: { claim: 'groups', prefix: '' } },
      },
    ],
  };
}

/** A new browser context signed in as `email` through Hydra's login form: the console's page. */
export async function signInWithOidc(browser: Browser, origin: string, email: keyof typeof OIDC_USERS): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ignoreHTTPSErrors: true });
  const page = await context.newPage();
  await page.goto(`${origin}/`);
  expect(new URL(page.url()).pathname).toBe('/signin');
  await page.getByRole('link', { name: 'Sign in with OpenID Connect' }).click();
  // The issuer's login app, reached through Hydra's authorization endpoint.
  await expect.poll(() => page.getByLabel('Email').count(), { timeout: 15_000 }).toBe(1);
  expect(page.url()).toContain('login_challenge=');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(OIDC_USERS[email].password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // Consent, the callback, the session, and the page taking its key from the fragment.
  await expect.poll(() => page.url(), { timeout: 15_000 }).toBe(`${origin}/`);
  return page;
}

/** What the scenario needs of the running stack. */
export interface OnNodeStack {
  /** kubectl of the stack, as its admin. */
  kubectl: (...args: string[]) => Promise<string>;
  /** The repository (config/console/oidc). */
  repo: string;
  /** The file `up` gave kube-apiserver as --authentication-config. */
  authenticationConfig: string;
  /** The node bridge's address; the console's origin (its NodePort there). */
  nodeAddress: string;
  origin: string;
  /** The ClusterRole of the viewer's group. */
  viewerRole: string;
  hydraBinary: string;
  browser: Browser;
  /** The ClusterExtension the samples installed, uninstalled before the console installs its package again. */
  example: { extension: string; catalog: string; packageName: string };
}

const NS = 'olmv1-system';
const RELOADED = /^apiserver_authentication_config_controller_automatic_reloads_total\{[^}]*status="success"[^}]*\} [1-9]/m;

/** Configures the stack for Hydra, runs the admin's and the viewer's sign-ins, and stops Hydra. */
export async function consoleOidcOnNode(s: OnNodeStack): Promise<void> {
  const { kubectl } = s;
  const hydra = await startHydra(s.hydraBinary, { host: s.nodeAddress });
  try {
    const clientId = await hydra.registerClient(`${s.origin}/signin/oidc/callback`);
    // The API server reloads its authentication configuration when the file changes.
    writeFileSync(s.authenticationConfig, JSON.stringify(hydraAuthenticationConfig(hydra, clientId), null, 2));
    // As a platform team configures the console (docs/console.md "In the cluster").
    await kubectl(
      'create',
      'configmap',
      'olmv1-console-oidc',
      '-n',
      NS,
      `--from-literal=issuer=${hydra.issuer}`,
      `--from-literal=client-id=${clientId}`,
      `--from-literal=redirect-url=${s.origin}/signin/oidc/callback`,
      `--from-file=ca.crt=${hydra.caPath}`,
    );
    await kubectl(
      'patch',
      'deployment',
      'olmv1-console',
      '-n',
      NS,
      '--type=json',
      '--patch-file',
      join(s.repo, 'config/console/oidc/deployment-patch.yaml'),
    );
    await kubectl('create', 'clusterrolebinding', 'olmv1-admins', '--clusterrole=cluster-admin', '--group=olmv1-admins');
    await kubectl('create', 'clusterrolebinding', 'olmv1-viewers', `--clusterrole=${s.viewerRole}`, '--group=olmv1-viewers');
    await kubectl('rollout', 'status', 'deployment/olmv1-console', '-n', NS, '--timeout=180s');
    await expect.poll(async () => RELOADED.test(await kubectl('get', '--raw', '/metrics')), { timeout: 90_000, interval: 1_000 }).toBe(true);
    // Right after the rollout the NodePort was seen unreachable from this machine (decision 0152's evidence): wait until it answers.
    await expect.poll(() => consoleAnswers(s.browser, s.origin), { timeout: 60_000, interval: 1_000 }).toBe('answers');
    await catalogsAsBothUsers(s);
    await installAsBothUsers(s);
  } finally {
    await hydra.stop();
  }
}

/** Whether the console at `origin` serves its sign-in page to a new browser context, else the browser's error. */
async function consoleAnswers(browser: Browser, origin: string): Promise<string> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  try {
    const page = await context.newPage();
    const response = await page.goto(`${origin}/signin`, { timeout: 5_000 });
    return response?.ok() === true ? 'answers' : `HTTP ${response?.status() ?? 'none'}`;
  } catch (e) {
    return e instanceof Error ? (e.message.split('\n')[0] ?? '') : String(e);
  } finally {
    await context.close();
  }
}

async function catalogsAsBothUsers(s: OnNodeStack): Promise<void> {
  const id = randomBytes(4).toString('hex');
  const added = `oidc-added-${id}`;
  const refused = `oidc-refused-${id}`;
  const present = async (name: string): Promise<boolean> => (await s.kubectl('get', 'clustercatalogs', '-o', 'name')).includes(`/${name}\n`);
  const catalogs = async (page: Page) => {
    await page.goto(`${s.origin}/#/catalogs`);
    const row = (n: string) => page.locator('tr', { has: page.locator(`[data-catalog="${n}"]`) });
    await expect.poll(() => row('example-catalog').count(), { timeout: 30_000 }).toBe(1);
    return row;
  };
  const add = async (page: Page, name: string) => {
    await page.getByLabel('Name').fill(name);
    await page.getByLabel('Image').fill('registry.test/catalog:latest');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
  };

  const admin = await signInWithOidc(s.browser, s.origin, 'admin@example.test');
  await admin.goto(`${s.origin}/signout`);
  expect(await admin.locator('main').innerText()).toContain('Signed in as admin@example.test');
  const adminRow = await catalogs(admin);
  await add(admin, added);
  await expect.poll(() => admin.locator('[data-catalog-done]').count(), { timeout: 30_000 }).toBe(1);
  expect(await present(added)).toBe(true);
  await expect.poll(() => adminRow(added).count(), { timeout: 15_000 }).toBe(1);
  await admin.context().close();

  const viewer = await signInWithOidc(s.browser, s.origin, 'viewer@example.test');
  const viewerRow = await catalogs(viewer);
  await expect.poll(() => viewerRow(added).count(), { timeout: 15_000 }).toBe(1);
  await add(viewer, refused);
  const refusal = viewer.locator('[data-catalog-error]');
  await expect.poll(() => refusal.count(), { timeout: 30_000 }).toBe(1);
  expect(await refusal.innerText()).toContain(
    'clustercatalogs.olm.operatorframework.io is forbidden: User "viewer@example.test" cannot create resource "clustercatalogs"',
  );
  expect(await present(refused)).toBe(false);
  await viewer.context().close();
}

/** The install form as the viewer (refused, nothing written) and as the admin (installed, Healthy, its Pod Running). */
async function installAsBothUsers(s: OnNodeStack): Promise<void> {
  const { kubectl, example } = s;
  const name = `oidc-${randomBytes(3).toString('hex')}`;
  const names = async (...what: string[]): Promise<string> => kubectl('get', ...what, '-o', 'name', '--ignore-not-found');
  const form = async (page: Page) => {
    await expect.poll(() => page.locator('#install-name').count(), { timeout: 30_000 }).toBe(1);
    await page.locator('#install-name').fill(name);
    await page.getByLabel(/^Namespace/).fill(name);
    await page.getByRole('button', { name: 'Preview' }).click();
    // A refusal of the preview is shown in the failure, in its words.
    const error = page.locator('[data-install-error]');
    const previewed = async () => ((await error.count()) > 0 ? error.innerText() : page.locator('[data-install-yaml]').count());
    await expect.poll(previewed, { timeout: 60_000 }).toBe(1);
    await page.getByRole('button', { name: 'Install', exact: true }).click();
  };
  await kubectl('delete', 'clusterextension', example.extension, '--timeout=120s');

  const viewer = await signInWithOidc(s.browser, s.origin, 'viewer@example.test');
  await viewer.goto(`${s.origin}/#/install/${example.catalog}/${example.packageName}`);
  await form(viewer);
  const refusal = viewer.locator('[data-install-error]');
  await expect.poll(() => refusal.count(), { timeout: 30_000 }).toBe(1);
  expect(await refusal.innerText()).toContain(
    `you cannot create Namespace ${name}: namespaces is forbidden: User "viewer@example.test" cannot create resource "namespaces"`,
  );
  // Nothing written: no ClusterExtension, no namespace, no installer RBAC.
  expect(await names('clusterextension', name)).toBe('');
  expect(await names('namespace', name)).toBe('');
  expect(await names('clusterroles,clusterrolebindings', '-l', `olm.operatorframework.io/installed-for=${name}`)).toBe('');
  await viewer.context().close();

  // The admin as OperatorHub's users go: hub, package page, Install form.
  const admin = await signInWithOidc(s.browser, s.origin, 'admin@example.test');
  const search = admin.getByLabel('Filter by keyword');
  await expect.poll(() => search.count(), { timeout: 30_000 }).toBe(1);
  await search.fill(example.packageName);
  const tile = admin.locator(`[data-package="${example.packageName}"]`);
  await expect.poll(() => tile.count(), { timeout: 30_000 }).toBe(1);
  await tile.click();
  await expect.poll(() => admin.url()).toBe(`${s.origin}/#/package/${example.catalog}/${example.packageName}`);
  await admin.getByRole('link', { name: 'Install…' }).click();
  await form(admin);
  await expect.poll(() => admin.url(), { timeout: 60_000 }).toBe(`${s.origin}/#/installed/${name}`);
  expect(await names('serviceaccount', '-n', name, `${name}-installer`)).toBe(`serviceaccount/${name}-installer\n`);
  await kubectl('wait', '--for=condition=Installed', `clusterextension/${name}`, '--timeout=180s');
  await kubectl('wait', '--for=condition=Healthy', `clusterextension/${name}`, '--timeout=120s');
  await expect
    .poll(() => kubectl('get', 'pods', '-n', name, '-o', 'jsonpath={.items[*].status.phase}'), { timeout: 60_000, interval: 500 })
    .toBe('Running');
  await expect.poll(() => admin.locator('main').innerText(), { timeout: 30_000 }).toMatch(/Healthy/);
  await admin.context().close();
}
