// `olmv1 console --in-cluster --oidc-issuer` against a real OpenID Connect provider (issue 71,
// "Signed in as themselves"; decision 0144): ORY Hydra (test/support/hydra.ts, serving HTTPS
// with a test CA) with a registered public client, a control plane of this file's own whose
// kube-apiserver accepts Hydra's ID tokens (structured --authentication-config: a JWT
// authenticator for that issuer, the client id as audience, username from `email`, groups from
// `groups`), and the in-cluster console run in this process with the issuer and the client id.
// Two users sign in through Hydra's login form in Debian's chromium: the admin (group
// olmv1-admins, bound to cluster-admin) adds a ClusterCatalog, which lands; the viewer (group
// olmv1-viewers, read-only on the olm kinds) sees the same list and is refused the same write in
// the API server's words, and nothing is written; signing out ends the session on the server.
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../pkg/olmv1/localstack/index.ts';
import { connect, isNotFound, type KubeContext } from '../../pkg/shared/kube/index.ts';
import { envtestHydra } from '../envtest/deferred-tools.ts';
import { startHydra, type Hydra } from '../support/hydra.ts';
import { hydraAuthenticationConfig, signInWithOidc } from '../support/console-oidc-on-node.ts';
import type { OIDC_USERS } from '../support/oidc-login.ts';
import { freePort, startClusterConsole } from '../support/cluster-console.ts';
import { installOlmConfig } from '../support/olm-config.ts';

// Built in the global setup's background; awaited here, where no timeout applies.
const hydraBinary = await envtestHydra();

const id = randomBytes(4).toString('hex');
const seed = `seed-${id}`;
const added = `added-${id}`;
const refused = `refused-${id}`;
const catalogRef = (name: string) => ({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', name });
const rbac = 'rbac.authorization.k8s.io/v1';
/** The header carrying the page's key (the session's second secret, besides its cookie). */
const PAGE_KEY_HEADER = 'x-olmv1-session';

let hydra: Hydra;
let cp: ControlPlane;
let kube: KubeContext;
let browser: Browser;
let origin: string;
let run: Promise<number> | undefined;
const stop = new AbortController();
const cleanup: (() => Promise<unknown>)[] = [];

/** Binds `group` cluster-wide to `role`. */
async function bindGroup(group: string, role: string): Promise<void> {
  await kube.client.create({
    apiVersion: rbac,
    kind: 'ClusterRoleBinding',
    metadata: { name: group },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }],
  });
}

/** A new browser context signed in as `email` through Hydra's login form: the console's page. */
const signIn = (email: keyof typeof OIDC_USERS): Promise<Page> => signInWithOidc(browser, origin, email);

/** The Catalogs page once it lists the seeded catalog; a row's locator by name. */
async function catalogs(page: Page): Promise<(name: string) => ReturnType<Page['locator']>> {
  await page.goto(`${origin}/#/catalogs`);
  const row = (n: string) => page.locator('tr', { has: page.locator(`[data-catalog="${n}"]`) });
  await expect.poll(() => row(seed).count(), { timeout: 15_000 }).toBe(1);
  return row;
}

async function addCatalog(page: Page, name: string): Promise<void> {
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Image').fill('registry.test/catalog:latest');
  await page.getByRole('button', { name: 'Add', exact: true }).click();
}

const present = (name: string): Promise<string> =>
  kube.client.get(catalogRef(name)).then(
    () => 'present',
    (e: unknown) => (isNotFound(e) ? 'absent' : `error: ${String(e)}`),
  );

beforeAll(async () => {
  hydra = await startHydra(hydraBinary);
  cleanup.push(() => hydra.stop());
  const port = await freePort();
  origin = `https://127.0.0.1:${port}`;
  const redirect = `${origin}/signin/oidc/callback`;
  const clientId = await hydra.registerClient(redirect);
  cp = await startControlPlane({
    binaries: inject('envtestBinaries'),
    authenticationConfig: hydraAuthenticationConfig(hydra, clientId),
  });
  cleanup.push(() => cp.stop());
  await installOlmConfig(cp.info);
  kube = await connect({ kind: 'file', path: cp.info.kubeconfigPath });
  cleanup.push(async () => kube.close());
  await bindGroup('olmv1-admins', 'cluster-admin');
  await kube.client.create({
    apiVersion: rbac,
    kind: 'ClusterRole',
    metadata: { name: 'olmv1-viewer' },
    rules: [
      { apiGroups: ['olm.operatorframework.io'], resources: ['clusterextensions', 'clustercatalogs'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['get', 'list'] },
      { apiGroups: [''], resources: ['events', 'namespaces'], verbs: ['get', 'list'] },
    ],
  });
  await bindGroup('olmv1-viewers', 'olmv1-viewer');
  await kube.client.create({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name: seed },
    spec: { source: { type: 'Image', image: { ref: 'registry.test/seed:latest' } } },
  });
  ({ run, browser } = await startClusterConsole({
    kubeconfig: cp.info.kubeconfigPath,
    port,
    args: [`--oidc-issuer=${hydra.issuer}`, `--oidc-client-id=${clientId}`, `--oidc-redirect-url=${redirect}`, `--oidc-ca-file=${hydra.caPath}`],
    signal: stop.signal,
    cleanup,
  }));
}, 240_000);

afterAll(async () => {
  stop.abort('SIGTERM');
  await run;
  await browser?.close();
  for (const f of cleanup.reverse()) await f().catch(() => undefined);
});

describe('the in-cluster console signed in at ORY Hydra', () => {
  it('signs the admin in as themselves through the issuer; a catalog it adds lands', async () => {
    const page = await signIn('admin@example.test');
    await page.goto(`${origin}/signout`);
    expect(await page.locator('main').innerText()).toContain('Signed in as admin@example.test');
    const row = await catalogs(page);
    await addCatalog(page, added);
    await expect.poll(() => page.locator('[data-catalog-done]').count(), { timeout: 30_000 }).toBe(1);
    expect(await present(added)).toBe('present');
    await expect.poll(() => row(added).count(), { timeout: 15_000 }).toBe(1);
    await page.context().close();
  });

  it("shows the viewer the same list and the API server's refusal of a write, and writes nothing", async () => {
    const page = await signIn('viewer@example.test');
    const row = await catalogs(page);
    await expect.poll(() => row(added).count(), { timeout: 15_000 }).toBe(1);
    await addCatalog(page, refused);
    const refusal = page.locator('[data-catalog-error]');
    await expect.poll(() => refusal.count(), { timeout: 30_000 }).toBe(1);
    expect(await refusal.innerText()).toContain(
      'clustercatalogs.olm.operatorframework.io is forbidden: User "viewer@example.test" cannot create resource "clustercatalogs"',
    );
    expect(await present(refused)).toBe('absent');
    await page.context().close();
  });

  it('signs out: the session ends on the server, and its cookie no longer makes API requests', async () => {
    const page = await signIn('viewer@example.test');
    const key = page.waitForRequest((r) => new URL(r.url()).pathname === '/api/catalogs');
    await page.goto(`${origin}/#/catalogs`);
    const headers = { [PAGE_KEY_HEADER]: (await key).headers()[PAGE_KEY_HEADER] ?? '' };
    const context = page.context();
    const cookies = await context.cookies();
    expect((await context.request.get(`${origin}/api/catalogs`, { headers })).status()).toBe(200);
    await page.goto(`${origin}/signout`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/signin');
    // The browser dropped the cookie; put it back: the server no longer knows the session.
    await context.addCookies(cookies);
    const after = await context.request.get(`${origin}/api/catalogs`, { headers });
    expect(after.status()).toBe(401);
    expect(await after.text()).toContain('not signed in');
    await context.close();
  });
});
