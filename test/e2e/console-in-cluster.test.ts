// `olmv1 console --in-cluster` in a real browser (issue 71, "Signed in as themselves"): the
// in-cluster console (HTTPS, bearer-token sign-in, one session per user) run in this process
// against the shared API server with its address and CA from the admin kubeconfig and no
// credentials of its own; two ServiceAccounts sign in with their tokens in Debian's chromium
// (playwright-core): an admin bound to cluster-admin and a viewer that may only read
// ClusterExtensions and ClusterCatalogs. The viewer sees the extension and is refused its
// uninstall in the API server's words, and nothing is deleted; the admin uninstalls it. The Pod
// of the project's image on the node is config/console's, not run here.
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, isNotFound, type KubeContext } from '../../pkg/shared/kube/index.ts';
import { requestServiceAccountToken } from '../envtest/index.ts';
import { freePort, startClusterConsole } from '../support/cluster-console.ts';
import { installOlmConfig } from '../support/olm-config.ts';

const id = randomBytes(4).toString('hex');
const name = `incluster-${id}`;
const ce = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension', name };
const rbac = 'rbac.authorization.k8s.io/v1';

let kube: KubeContext;
let browser: Browser;
let origin: string;
let run: Promise<number>;
const stop = new AbortController();
const cleanup: (() => Promise<unknown>)[] = [];
const tokens: Record<'admin' | 'viewer', string> = { admin: '', viewer: '' };

/** A ServiceAccount in default bound cluster-wide to `role` (made from `rules` when given); its token. */
async function account(user: string, role: string, rules?: object[]): Promise<string> {
  const c = kube.client;
  await c.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: user, namespace: 'default' } });
  cleanup.push(() => c.delete({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: 'default', name: user }));
  if (rules !== undefined) {
    await c.create({ apiVersion: rbac, kind: 'ClusterRole', metadata: { name: role }, rules });
    cleanup.push(() => c.delete({ apiVersion: rbac, kind: 'ClusterRole', name: role }));
  }
  await c.create({
    apiVersion: rbac,
    kind: 'ClusterRoleBinding',
    metadata: { name: user },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ kind: 'ServiceAccount', name: user, namespace: 'default' }],
  });
  cleanup.push(() => c.delete({ apiVersion: rbac, kind: 'ClusterRoleBinding', name: user }));
  return requestServiceAccountToken(inject('envtestControlPlane'), 'default', user);
}

/** A new browser context signed in with `token`: the page after the sign-in form. */
async function signIn(token: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ignoreHTTPSErrors: true });
  const page = await context.newPage();
  await page.goto(`${origin}/`);
  expect(new URL(page.url()).pathname).toBe('/signin');
  await page.getByLabel('Bearer token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  return page;
}

/** Waits for the console's page to take its key from the sign-in redirect's fragment (it then drops it from the address). */
async function signedIn(page: Page): Promise<void> {
  await expect.poll(() => page.url(), { timeout: 15_000 }).toBe(`${origin}/`);
}

beforeAll(async () => {
  const cp = inject('envtestControlPlane');
  await installOlmConfig(cp);
  kube = await connect({ kind: 'file', path: cp.kubeconfigPath });
  await kube.client.create({
    apiVersion: ce.apiVersion,
    kind: ce.kind,
    metadata: { name },
    spec: {
      namespace: 'default',
      serviceAccount: { name: 'default' },
      source: { sourceType: 'Catalog', catalog: { packageName: 'example-operator' } },
    },
  });
  cleanup.push(() => kube.client.delete(ce).catch(() => undefined));
  tokens.admin = await account(`console-admin-${id}`, 'cluster-admin');
  tokens.viewer = await account(`console-viewer-${id}`, `console-viewer-${id}`, [
    { apiGroups: ['olm.operatorframework.io'], resources: ['clusterextensions', 'clustercatalogs'], verbs: ['get', 'list', 'watch'] },
    // What the extension's page reads besides (as test/e2e/console.test.ts's viewers may).
    { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['get', 'list'] },
    { apiGroups: [''], resources: ['events', 'namespaces'], verbs: ['get', 'list'] },
  ]);
  const port = await freePort();
  origin = `https://127.0.0.1:${port}`;
  ({ run, browser } = await startClusterConsole({ kubeconfig: cp.kubeconfigPath, port, signal: stop.signal, cleanup }));
}, 240_000);

afterAll(async () => {
  stop.abort('SIGTERM');
  await run;
  await browser?.close();
  for (const f of cleanup.reverse()) await f().catch(() => undefined);
  kube?.close();
});

describe('the in-cluster console in Chromium', () => {
  it('refuses a token the API server refuses, in its words, and sets no cookie', async () => {
    const page = await signIn('not-a-token');
    await expect.poll(() => page.getByRole('alert').innerText(), { timeout: 15_000 }).toBe('the API server refused the token: Unauthorized');
    expect(await page.context().cookies()).toEqual([]);
    await page.context().close();
  });

  it('signs the viewer in with an HttpOnly, Secure, SameSite=Strict cookie; it sees the extension and is refused its uninstall, and nothing is deleted', async () => {
    const page = await signIn(tokens.viewer);
    await signedIn(page);
    const cookies = await page.context().cookies();
    expect(cookies).toEqual([expect.objectContaining({ name: '__Host-olmv1_console', httpOnly: true, secure: true, sameSite: 'Strict', path: '/' })]);
    const { uid } = (await kube.client.get(ce)).metadata;
    await page.goto(`${origin}/#/installed/${name}`);
    // It reads the extension; its revisions (ClusterObjectSets, read first, then release-record
    // Secrets) it may not list, and the page says so in the API server's words.
    await expect
      .poll(() => page.locator('main').innerText(), { timeout: 15_000 })
      .toMatch(
        new RegExp(
          `(clusterobjectsets\\.olm\\.operatorframework\\.io|secrets) is forbidden: User "system:serviceaccount:default:console-viewer-${id}" cannot list resource "(clusterobjectsets|secrets)"`,
        ),
      );
    expect(await page.locator('main').innerText()).toContain('example-operator');
    await page.getByRole('button', { name: 'Uninstall…' }).click();
    await expect.poll(() => page.locator('[data-uninstall-preview="ready"]').count(), { timeout: 15_000 }).toBe(1);
    await page.getByRole('button', { name: 'Uninstall', exact: true }).click();
    const refusal = page.locator('[data-uninstall-error]');
    await expect.poll(() => refusal.count(), { timeout: 15_000 }).toBe(1);
    expect(await refusal.innerText()).toContain(
      `clusterextensions.olm.operatorframework.io "${name}" is forbidden: User "system:serviceaccount:default:console-viewer-${id}" cannot delete resource "clusterextensions"`,
    );
    expect((await kube.client.get(ce)).metadata.uid).toBe(uid);
    await page.context().close();
  });

  it('signs out: the session ends and the console sends the browser to sign in again', async () => {
    const page = await signIn(tokens.viewer);
    await signedIn(page);
    // The masthead's link (the local console, without sign-in, has none).
    await page.getByRole('link', { name: 'Sign out' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/signout');
    expect(await page.locator('main').innerText()).toContain(`Signed in as system:serviceaccount:default:console-viewer-${id}`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/signin');
    await page.goto(`${origin}/`);
    expect(new URL(page.url()).pathname).toBe('/signin');
    await page.context().close();
  });

  it('lets the admin uninstall the extension with its own token', async () => {
    const page = await signIn(tokens.admin);
    await signedIn(page);
    await page.goto(`${origin}/#/installed/${name}`);
    await page.getByRole('button', { name: 'Uninstall…' }).click();
    await expect.poll(() => page.locator('[data-uninstall-preview="ready"]').count(), { timeout: 15_000 }).toBe(1);
    await page.getByRole('button', { name: 'Uninstall', exact: true }).click();
    await expect
      .poll(
        () =>
          kube.client.get(ce).then(
            (o) => (o.metadata.deletionTimestamp === undefined ? 'present' : 'deleting'),
            (e: unknown) => (isNotFound(e) ? 'gone' : 'error'),
          ),
        { timeout: 15_000 },
      )
      .not.toBe('present');
    await page.context().close();
  });
});
