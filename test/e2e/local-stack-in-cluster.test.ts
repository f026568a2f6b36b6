// `olmv1 up --node --in-cluster` end to end (issue 64), one decisive scenario: run from the work
// tree in a directory of its own with a private TMPDIR, it builds (or finds in the build cache)
// the project's image of HEAD, pushes it to a registry on the node's bridge and applies config/
// with it; catalogd and operator-controller run as Pods of config/'s Deployments on the node,
// catalogd's args carrying `--feature-gates=GraphQLCatalogQueries=true` (where upstream's e2e
// suite reads gates) and operator-controller's none (it does not know that gate); the example
// ClusterCatalog is Serving from catalogd's Pods; the samples' installer and ClusterExtension
// install the example operator, whose Pod runs, Healthy; SIGINT stops it all (exit 0, no process
// naming its directories, no temp file, .olmv1/ back to bin/ and logs/). The console runs as a Pod
// of the same image (config/console) behind a NodePort: in Debian's chromium an admin's and a
// viewer's ServiceAccount tokens sign in; both see the example operator, the viewer is refused
// its uninstall in the API server's words and nothing is deleted. Then OpenID Connect sign-in on
// the same stack (test/support/console-oidc-on-node.ts): `up` was given an --authentication-config
// file, rewritten for ORY Hydra served on the node's bridge; the console's Deployment configured
// by config/console/oidc; the admin signed in at Hydra adds a catalog, the viewer is refused it in
// the API server's words and nothing is written; the example operator is uninstalled, the viewer
// is refused its install through the console's form and nothing is written, and the admin installs
// it through the hub, its package page and the form, Healthy with its Pod Running. Needs root, buildah,
// debootstrap and the node's prerequisites (.ci/run installs them); a first image build takes
// minutes, hence the long start-up bound. One node per machine: a node elsewhere makes it wait.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { missingImageBuildPrerequisites, missingNodePrerequisites } from '../../pkg/olmv1/localstack/index.ts';
import { envtestHydra } from '../envtest/deferred-tools.ts';
import { consoleOidcOnNode, EMPTY_AUTHENTICATION_CONFIG } from '../support/console-oidc-on-node.ts';
import { processesMentioning } from '../support/up-checkout.ts';

const exec = promisify(execFile);
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const NS = 'olmv1-system';
const missing = [...missingNodePrerequisites(), ...missingImageBuildPrerequisites(process.env)];
// Built in the global setup's background; awaited here, where no timeout applies.
const hydraBinary = missing.length > 0 ? '' : await envtestHydra();

let cwd: string;
let privateTmp: string;
let up: ChildProcess;
let stdout = '';
let stderr = '';
let exited: Promise<number | null>;

describe.skipIf(missing.length > 0)('olmv1 up --node --in-cluster', () => {
  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'olmv1-up-in-cluster-e2e-'));
    privateTmp = await mkdtemp(join(tmpdir(), 'olmv1-up-in-cluster-e2e-tmp-'));
    // No JWT authenticator yet: the OpenID Connect part writes Hydra's once it serves on the node's bridge.
    writeFileSync(join(cwd, 'authentication-config.json'), JSON.stringify(EMPTY_AUTHENTICATION_CONFIG));
    const args = [
      'up',
      '--node',
      '--in-cluster',
      '--feature-gates',
      'GraphQLCatalogQueries=true',
      '--authentication-config',
      'authentication-config.json',
    ];
    up = spawn(process.execPath, [join(REPO, 'cmd/olmv1/main.ts'), ...args], {
      cwd,
      env: { ...process.env, TMPDIR: privateTmp },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    up.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    up.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    exited = new Promise((resolve) => up.once('exit', (code) => resolve(code)));
    await vi.waitFor(
      () => {
        if (up.exitCode !== null) throw new Error(`olmv1 up --node --in-cluster exited with ${up.exitCode}\n${stderr}`);
        if (!stdout.includes('Ctrl-C stops everything.')) throw new Error(`olmv1 up --node --in-cluster is not ready yet\n${stderr}`);
      },
      { timeout: 1_500_000, interval: 500 },
    );
  }, 1_560_000);

  afterAll(async () => {
    if (up !== undefined && up.exitCode === null) {
      up.kill('SIGINT');
      await exited;
    }
    if (cwd !== undefined) await rm(cwd, { recursive: true, force: true });
    if (privateTmp !== undefined) await rm(privateTmp, { recursive: true, force: true });
  }, 180_000);

  const kubectl = async (...args: string[]): Promise<string> =>
    // The API server's /metrics (the OpenID Connect part) is more than execFile's default 1 MiB.
    (await exec('.olmv1/bin/kubectl', ['--kubeconfig', '.olmv1/kubeconfig', ...args], { cwd, maxBuffer: 64 * 1024 * 1024 })).stdout;

  it('runs both components as Pods with their gates in the Deployments, installs the example, and removes it all on stop', async () => {
    // The summary: no host processes, the Deployments and the image instead.
    expect(stdout).toMatch(
      /^  in the cluster +catalogd-controller-manager and operator-controller-controller-manager Available in olmv1-system, as Pods on the node$/m,
    );
    expect(stdout).toMatch(/^  feature gates +catalogd GraphQLCatalogQueries=true; operator-controller defaults$/m);
    expect(stdout).not.toMatch(/^  catalogd +pid /m);
    const stack = JSON.parse(readFileSync(join(cwd, '.olmv1/stack.json'), 'utf8')) as {
      registry: string;
      node: { address: string };
      inCluster: { imageRef: string };
      catalog: { ref: string };
    };
    expect(stack.registry.startsWith(`${stack.node.address}:`)).toBe(true);
    expect(stack.catalog.ref.startsWith(`${stack.registry}/`)).toBe(true);

    // The gates where upstream's e2e suite reads them: the Deployments' container args.
    const args = async (deployment: string): Promise<string[]> =>
      JSON.parse(await kubectl('get', 'deployment', '-n', NS, deployment, '-o', 'jsonpath={.spec.template.spec.containers[0].args}')) as string[];
    expect((await args('catalogd-controller-manager')).filter((a) => a.startsWith('--feature-gates'))).toEqual([
      '--feature-gates=GraphQLCatalogQueries=true',
    ]);
    expect((await args('operator-controller-controller-manager')).filter((a) => a.startsWith('--feature-gates'))).toEqual([]);
    // As in the process mode, extensions without a serviceAccount install as the default installer (config/default-installer).
    expect(await args('operator-controller-controller-manager')).toContain('--default-install-service-account=olmv1-system/olmv1-default-installer');
    expect(await kubectl('get', 'serviceaccount', '-n', NS, 'olmv1-default-installer', '-o', 'name')).toContain('olmv1-default-installer');
    // Running on the node from the pushed image, catalogd's Pods with the gate in effect.
    const pods = JSON.parse(await kubectl('get', 'pods', '-n', NS, '-o', 'json')) as {
      items: Array<{
        metadata: { name: string };
        spec: { nodeName: string; containers: Array<{ image: string; args: string[] }> };
        status: { phase: string };
      }>;
    };
    const running = pods.items.filter((p) => p.status.phase === 'Running');
    expect(running.some((p) => p.metadata.name.startsWith('catalogd-controller-manager-'))).toBe(true);
    expect(running.some((p) => p.metadata.name.startsWith('operator-controller-controller-manager-'))).toBe(true);
    for (const p of running) {
      expect(p.spec.nodeName).toBe('olmv1-node');
      expect(p.spec.containers[0]?.image).toBe(stack.inCluster.imageRef);
    }
    // The gate in effect in a Pod of the patched template: `kubectl logs deployment/...` may pick
    // a Pod of the first rollout (without the gate) while it terminates.
    const gated = running.filter(
      (p) =>
        p.metadata.name.startsWith('catalogd-controller-manager-') &&
        (p.spec.containers[0]?.args ?? []).includes('--feature-gates=GraphQLCatalogQueries=true'),
    );
    expect(gated.length).toBeGreaterThan(0);
    await vi.waitFor(
      async () => expect(await kubectl('logs', '-n', NS, gated[0]?.metadata.name ?? '')).toMatch(/GraphQLCatalogQueries["]?[:=]\s*true/),
      { timeout: 30_000, interval: 500 },
    );

    // The example catalog is Serving (up waited for it); the samples install the operator, whose Pod runs.
    await kubectl(
      'apply',
      '-f',
      join(REPO, 'config/samples/example-operator-installer.yaml'),
      '-f',
      join(REPO, 'config/samples/olm_v1_clusterextension.yaml'),
    );
    await kubectl('wait', '--for=condition=Healthy', 'clusterextension/example-operator', '--timeout=180s');
    await expect
      .poll(() => kubectl('get', 'pods', '-n', 'example-operator', '-o', 'jsonpath={.items[*].status.phase}'), { timeout: 60_000, interval: 500 })
      .toBe('Running');

    await consoleInCluster(kubectl);

    up.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stderr).toContain('olmv1 up: stopped; nothing left running');
    await expect.poll(() => [...processesMentioning(privateTmp), ...processesMentioning(cwd)], { timeout: 10_000 }).toEqual([]);
    expect(await readdir(privateTmp)).toEqual([]);
    expect((await readdir(join(cwd, '.olmv1'))).sort()).toEqual(['bin', 'logs']);
  }, 600_000);

  /** The console's Pod (config/console) in Chromium: an admin and a viewer sign in with their ServiceAccount tokens. */
  async function consoleInCluster(kubectl: (...args: string[]) => Promise<string>): Promise<void> {
    const url = /^  console in cluster +(https:\/\/\S+\/) \(NodePort/m.exec(stdout)?.[1];
    expect(url, stdout).toBeDefined();
    const origin = new URL(url ?? '').origin;
    const consolePod = await kubectl(
      'get',
      'pods',
      '-n',
      NS,
      '-l',
      'app.kubernetes.io/name=olmv1-console',
      '-o',
      'jsonpath={.items[*].spec.containers[0].image}',
    );
    expect(consolePod).toBe(JSON.parse(readFileSync(join(cwd, '.olmv1/stack.json'), 'utf8')).inCluster.imageRef as string);
    const viewerRules = JSON.stringify({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'console-viewer' },
      rules: [
        { apiGroups: ['olm.operatorframework.io'], resources: ['clusterextensions', 'clustercatalogs'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['get', 'list'] },
        { apiGroups: [''], resources: ['events', 'namespaces'], verbs: ['get', 'list'] },
      ],
    });
    writeFileSync(join(cwd, 'console-viewer.json'), viewerRules);
    await kubectl('apply', '-f', join(cwd, 'console-viewer.json'));
    await kubectl('create', 'serviceaccount', '-n', 'default', 'console-admin');
    await kubectl('create', 'serviceaccount', '-n', 'default', 'console-viewer');
    await kubectl('create', 'clusterrolebinding', 'console-admin', '--clusterrole=cluster-admin', '--serviceaccount=default:console-admin');
    await kubectl('create', 'clusterrolebinding', 'console-viewer', '--clusterrole=console-viewer', '--serviceaccount=default:console-viewer');
    const token = async (sa: string): Promise<string> => (await kubectl('create', 'token', '-n', 'default', sa)).trim();
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
    try {
      const signIn = async (sa: string) => {
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ignoreHTTPSErrors: true });
        const page = await context.newPage();
        await page.goto(`${origin}/`);
        await page.getByLabel('Bearer token').fill(await token(sa));
        await page.getByRole('button', { name: 'Sign in' }).click();
        await expect.poll(() => page.url(), { timeout: 15_000 }).toBe(`${origin}/`);
        await page.goto(`${origin}/#/installed/example-operator`);
        await expect.poll(() => page.locator('main').innerText(), { timeout: 30_000 }).toContain('example-operator');
        return page;
      };
      const uid = (await kubectl('get', 'clusterextension', 'example-operator', '-o', 'jsonpath={.metadata.uid}')).trim();
      const viewer = await signIn('console-viewer');
      await viewer.getByRole('button', { name: 'Uninstall…' }).click();
      await expect.poll(() => viewer.locator('[data-uninstall-preview="ready"]').count(), { timeout: 30_000 }).toBe(1);
      await viewer.getByRole('button', { name: 'Uninstall', exact: true }).click();
      await expect.poll(() => viewer.locator('[data-uninstall-error]').count(), { timeout: 30_000 }).toBe(1);
      expect(await viewer.locator('[data-uninstall-error]').innerText()).toContain(
        'clusterextensions.olm.operatorframework.io "example-operator" is forbidden: User "system:serviceaccount:default:console-viewer" cannot delete resource "clusterextensions"',
      );
      expect((await kubectl('get', 'clusterextension', 'example-operator', '-o', 'jsonpath={.metadata.uid}')).trim()).toBe(uid);
      const admin = await signIn('console-admin');
      await expect.poll(() => admin.locator('main').innerText(), { timeout: 30_000 }).toMatch(/Healthy/);
      expect(await admin.locator('main').innerText()).not.toMatch(/forbidden/);
      // The operator's Pod on the node and the start of its log, read as the admin.
      const podRow = admin.locator('tr', { has: admin.locator('[data-pod]') });
      await expect.poll(() => podRow.count(), { timeout: 30_000 }).toBe(1);
      await expect.poll(() => podRow.innerText(), { timeout: 30_000 }).toMatch(/Running\s+1\/1/);
      await podRow.getByRole('button').first().click();
      await expect.poll(() => admin.locator('[data-pod-log] pre').innerText(), { timeout: 30_000 }).toContain('example-operator starting');
      await admin.context().close();
      await consoleOidcOnNode({
        kubectl,
        repo: REPO,
        authenticationConfig: join(cwd, 'authentication-config.json'),
        nodeAddress: (JSON.parse(readFileSync(join(cwd, '.olmv1/stack.json'), 'utf8')) as { node: { address: string } }).node.address,
        origin,
        viewerRole: 'console-viewer',
        hydraBinary,
        browser,
        example: { extension: 'example-operator', catalog: 'example-catalog', packageName: 'example-operator' },
      });
      // The console's Pod serves the OpenID Connect settings of config/console/oidc.
      expect(await kubectl('get', 'deployment', '-n', NS, 'olmv1-console', '-o', 'jsonpath={.spec.template.spec.containers[0].args}')).toContain(
        '--oidc-issuer=$(OIDC_ISSUER)',
      );
    } finally {
      await browser.close();
    }
  }
});
