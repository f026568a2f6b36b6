// Tenants install what the administrator allows (issue 73, decision 0138), on the real API server
// with operator-controller running the TenantExtensions gate: a ServiceAccount with `admin` in
// its namespace only (the config/tenant-extensions roles aggregated into it) installs a package by
// an Extension under an ExtensionPolicy, sees it Installed, upgrades within the allowed range and
// uninstalls by deleting the request; what the policy does not allow is refused with a condition
// naming the rule and leaves nothing; a second namespace asking an incompatible version of a
// package another one has is refused; the tenant cannot create a ClusterExtension; `olmv1
// install --tenant` does the same as the tenant; the administrator writes the policy with
// `olmv1 policy allow`.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FEATURE_GATE_DEFAULTS } from '../../cmd/operator-controller/options.ts';
import { fetchBundleFiles } from '../../cmd/olmv1/bundle-image.ts';
import { runInstall, type InstallDeps } from '../../cmd/olmv1/install.ts';
import { CATALOG_SOURCE_TYPE_ANNOTATION } from '../../pkg/olmv1/install/index.ts';
import { runPolicies, runPolicyAllow, runPolicyRemove } from '../../cmd/olmv1/policy.ts';
import { runAvailable, runExtensions } from '../../cmd/olmv1/tenant-views.ts';
import { createCatalogClient, createCatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import {
  CLUSTER_CATALOG,
  CLUSTER_EXTENSION,
  EXTENSION,
  EXTENSION_POLICY,
  TENANT_FIELD_MANAGER,
  TENANT_NAME_LABEL,
} from '../../pkg/shared/api/index.ts';
import { clusterExtensionName, installerServiceAccountName } from '../../pkg/operator-controller/tenant/index.ts';
import { connect, isForbidden, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { requestServiceAccountToken, serviceAccountKubeconfig } from '../envtest/index.ts';
import { waitUntil } from '../support/bundle-flow.ts';
import { startConsole } from '../support/console-run.ts';
import { groupOf, objectExists, offerPackage, replacingChain, useExtensionStack, type BundleSpec } from '../support/extensions.ts';

const run = randomBytes(3).toString('hex');
const TENANT_LABEL = 'olmv1.test/tenants';
const repo = (path: string) => new URL(`../../${path}`, import.meta.url);

let admin: KubeContext;
const dirs: string[] = [];

async function manifests(path: string): Promise<KubeObject[]> {
  return (loadAll(await readFile(repo(path), 'utf8')) as (KubeObject | null)[]).filter((o): o is KubeObject => o !== null);
}

// The tenant CRDs and roles (config/tenant-extensions) are there before operator-controller starts.
beforeAll(async () => {
  admin = await connect({ kind: 'file', path: inject('envtestControlPlane').kubeconfigPath });
  const objects = [
    ...(await manifests('config/crd/tenant/olm.operatorframework.io_extensions.yaml')),
    ...(await manifests('config/crd/tenant/olm.operatorframework.io_extensionpolicies.yaml')),
    ...(await manifests('config/tenant-extensions/tenant-roles.yaml')),
    ...(await manifests('config/tenant-extensions/admission.yaml')),
  ];
  for (const o of objects) await admin.client.apply(o, { fieldManager: 'tenant-extensions-test', force: true });
  // The admission policy is in force once a request it refuses is refused (a dry run stores nothing).
  const probe = {
    ...extension('default', `probe-${run}`, { packageName: 'probe' }),
    spec: { source: { sourceType: 'Catalog', catalog: { packageName: 'probe' } }, serviceAccount: { name: 'probe-installer' } },
  };
  await waitUntil(
    'the admission policy refuses',
    () =>
      admin.client.apply(probe, { fieldManager: 'tenant-extensions-test', dryRun: true }).then(
        () => false,
        (err: unknown) => String(err).includes('ServiceAccountNotAllowed'),
      ),
    60_000,
  );
  await waitUntil(
    'the tenant kinds are served',
    async () => {
      const listed = await Promise.all(
        [EXTENSION, EXTENSION_POLICY].map((k) =>
          admin.client.list({ apiVersion: k.apiVersion, kind: k.kind }).then(
            () => true,
            () => false,
          ),
        ),
      );
      return listed.every(Boolean);
    },
    60_000,
  );
}, 90_000);

const suite = useExtensionStack({ controller: { featureGates: { ...FEATURE_GATE_DEFAULTS, TenantExtensions: true } } });

afterAll(async () => {
  // Whatever a failed test left: requests and ClusterExtensions let go without an uninstall.
  const client = admin.client;
  const exts = await client.list({ apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind }).catch(() => ({ items: [] as KubeObject[] }));
  for (const e of exts.items.filter((x) => (x.metadata.namespace ?? '').endsWith(run))) {
    const ref = { apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind, name: e.metadata.name ?? '', namespace: e.metadata.namespace ?? '' };
    await client.patch(ref, { metadata: { finalizers: null } }, 'merge').catch(() => undefined);
    await client.delete(ref).catch(() => undefined);
  }
  const ces = await client
    .list({ apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind })
    .catch(() => ({ items: [] as KubeObject[] }));
  for (const ce of ces.items.filter((x) => x.metadata.labels?.[TENANT_NAME_LABEL] !== undefined && (x.metadata.name ?? '').includes(run))) {
    const ref = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind, name: ce.metadata.name ?? '' };
    await client.patch(ref, { metadata: { finalizers: null } }, 'merge').catch(() => undefined);
    await client.delete(ref).catch(() => undefined);
  }
  for (const name of [`tenants-${run}`, `narrow-${run}`, `manual-${run}`])
    await client.delete({ apiVersion: EXTENSION_POLICY.apiVersion, kind: EXTENSION_POLICY.kind, name }).catch(() => undefined);
  for (const d of dirs) await rm(d, { recursive: true, force: true });
  admin?.close();
});

/** A namespace (labelled a tenant's when `tenant`) with ServiceAccount `tenant` bound to `admin` there; returns a client acting as it. */
async function tenantNamespace(name: string, tenant: boolean): Promise<KubeContext> {
  const c = admin.client;
  await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: tenant ? { [TENANT_LABEL]: run } : {} } });
  await c.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'tenant', namespace: name } });
  await c.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'tenant-admin', namespace: name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
    subjects: [{ kind: 'ServiceAccount', name: 'tenant', namespace: name }],
  });
  // config/tenant-extensions aggregates olm-extensions-edit into admin; aggregation is the
  // controller manager's, which this control plane does not run: the binding does its part.
  await c.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'tenant-extensions', namespace: name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'olm-extensions-edit' },
    subjects: [{ kind: 'ServiceAccount', name: 'tenant', namespace: name }],
  });
  return tenantNamespaceClient(name);
}

function extension(namespace: string, name: string, catalog: Record<string, unknown>): KubeObject {
  return {
    apiVersion: EXTENSION.apiVersion,
    kind: EXTENSION.kind,
    metadata: { name, namespace },
    spec: { source: { sourceType: 'Catalog', catalog } },
  };
}

interface ExtView {
  obj: KubeObject;
  cond: (type: string) => { status: string; reason: string; message: string; observedGeneration?: number } | undefined;
  bundle: string | undefined;
}

async function readExtension(tenant: KubeContext, namespace: string, name: string): Promise<ExtView> {
  const obj = await tenant.client.get({ apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind, name, namespace });
  const status = (obj.status ?? {}) as {
    conditions?: { type: string; status: string; reason: string; message: string; observedGeneration?: number }[];
    install?: { bundle?: { name?: string } };
  };
  return { obj, cond: (t) => status.conditions?.find((c) => c.type === t), bundle: status.install?.bundle?.name };
}

/** Waits (as the tenant) until `check` holds for the Extension; the error shows its last status. */
async function waitForRequest(
  tenant: KubeContext,
  namespace: string,
  name: string,
  what: string,
  check: (e: ExtView) => boolean,
  timeoutMs = 90_000,
): Promise<ExtView> {
  let last: ExtView | undefined;
  try {
    await waitUntil(`${namespace}/${name}: ${what}`, async () => check((last = await readExtension(tenant, namespace, name))), timeoutMs);
  } catch (err) {
    throw new Error(`${(err as Error).message}; last status: ${JSON.stringify(last?.obj.status ?? null)}`, { cause: err });
  }
  return last as ExtView;
}

const installed = (bundle: string) => (e: ExtView) =>
  e.cond('Installed')?.status === 'True' && e.bundle === bundle && e.cond('Progressing')?.reason === 'Succeeded';
const refused = (rule: string) => (e: ExtView) => e.cond('Allowed')?.status === 'False' && e.cond('Allowed')?.reason === rule;

/** Nothing was made for the request `namespace/name`: no ClusterExtension, no installer. */
async function nothingMadeFor(namespace: string, name: string): Promise<void> {
  expect(await objectExists(admin.client, { ...CLUSTER_EXTENSION, name: clusterExtensionName(namespace, name) })).toBe(false);
  expect(await objectExists(admin.client, { apiVersion: 'v1', kind: 'ServiceAccount', namespace, name: installerServiceAccountName(name) })).toBe(
    false,
  );
}

const pkg = `tenant-${run}`;
const catalog = `tenant-${run}`;
const spec = (version: string): BundleSpec => ({ pkg, version, installModes: ['OwnNamespace', 'AllNamespaces'], configMaps: ['settings'] });

describe('tenants install what the administrator allows', () => {
  let teamA: KubeContext;
  let teamC: KubeContext;
  const nsA = `team-a-${run}`;
  const nsB = `team-b-${run}`;
  const nsC = `team-c-${run}`;

  beforeAll(async () => {
    await offerPackage(suite.stack, catalog, replacingChain([spec('1.0.0'), spec('1.0.1'), spec('2.0.0')]));
    // The administrator's policy, written with `olmv1 policy allow` and read back with `olmv1 policies`.
    const allow = await olmv1(
      runPolicyAllow,
      [`tenants-${run}`, '--namespaces', `${TENANT_LABEL}=${run}`, '--package', `${pkg}=<2.0.0`, '--catalog', catalog],
      admin,
    );
    expect(allow, allow.stderr).toMatchObject({ code: 0, stdout: `ExtensionPolicy tenants-${run} written\n` });
    const listed = await olmv1(runPolicies, [], admin);
    expect(listed.stdout).toMatch(new RegExp(`tenants-${run} +${TENANT_LABEL}=${run} +${pkg} <2\\.0\\.0 +${catalog} +OwnNamespace +Automatic`));
    teamA = await tenantNamespace(nsA, true);
    await tenantNamespace(nsB, false);
    teamC = await tenantNamespace(nsC, true);
  }, 180_000);

  afterAll(() => {
    teamA?.close();
    teamC?.close();
  });

  it('a namespace admin installs, upgrades within the range and uninstalls by its request alone', async () => {
    const name = 'ops';
    await teamA.client.create(extension(nsA, name, { packageName: pkg, version: '1.0.0' }));
    const first = await waitForRequest(teamA, nsA, name, 'installed 1.0.0', installed(`${pkg}.v1.0.0`));
    expect(first.cond('Allowed')).toMatchObject({ status: 'True', message: `allowed by ExtensionPolicy "tenants-${run}"` });
    expect(first.obj.status).toMatchObject({ clusterExtensionName: clusterExtensionName(nsA, name), policy: `tenants-${run}` });
    // The operator's objects are in the tenant's namespace, installed by the installer made for the request.
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', namespace: nsA, name: `${pkg}-settings` };
    expect(await objectExists(admin.client, cm)).toBe(true);
    const ce = await admin.client.get({ ...CLUSTER_EXTENSION, name: clusterExtensionName(nsA, name) });
    expect(ce.spec).toMatchObject({
      namespace: nsA,
      serviceAccount: { name: installerServiceAccountName(name) },
      config: { inline: { watchNamespace: nsA } },
    });
    expect(JSON.stringify(ce.metadata.managedFields)).toContain(TENANT_FIELD_MANAGER);

    // Upgrade within the range: a newer version asked for, then a range whose best is still in the policy's.
    await teamA.client.patch(
      { apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind, name, namespace: nsA },
      { spec: { source: { catalog: { version: '1.0.1' } } } },
      'merge',
    );
    await waitForRequest(teamA, nsA, name, 'upgraded to 1.0.1', installed(`${pkg}.v1.0.1`));
    await teamA.client.patch(
      { apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind, name, namespace: nsA },
      { spec: { source: { catalog: { version: '>=1.0.0' } } } },
      'merge',
    );
    const ranged = await waitForRequest(
      teamA,
      nsA,
      name,
      'allowed with the range',
      (e) =>
        e.cond('Allowed')?.status === 'True' && e.cond('Allowed')?.observedGeneration === e.obj.metadata.generation && installed(`${pkg}.v1.0.1`)(e),
    );
    expect(ranged.bundle).toBe(`${pkg}.v1.0.1`);
    // The earlier bundle's grants are gone once 1.0.1 is installed; the installer's own remain.
    await waitUntil(
      'the 1.0.0 grants are removed',
      async () => {
        const roles = await admin.client.list(
          { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' },
          { labelSelector: `${TENANT_NAME_LABEL}=${name}` },
        );
        const mine = roles.items.filter((r) => (r.metadata.name ?? '').includes(`:${nsA}:`));
        return mine.length > 0 && mine.every((r) => (r.metadata.name ?? '').endsWith(`${pkg}.v1.0.1`));
      },
      30_000,
    );

    // The tenant cannot create a ClusterExtension, nor a request in a namespace it does not administer.
    const direct = {
      apiVersion: CLUSTER_EXTENSION.apiVersion,
      kind: CLUSTER_EXTENSION.kind,
      metadata: { name: `direct-${run}` },
      spec: { namespace: nsA, source: { sourceType: 'Catalog', catalog: { packageName: pkg } } },
    };
    await expect(teamA.client.create(direct)).rejects.toSatisfy(isForbidden);
    await expect(teamA.client.create(extension(nsB, 'elsewhere', { packageName: pkg }))).rejects.toSatisfy(isForbidden);

    // Deleting the request uninstalls: the ClusterExtension, the operator's objects and the installer go; the CRD stays.
    await teamA.client.delete({ apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind, name, namespace: nsA });
    await waitUntil(
      'the request is gone',
      async () => !(await objectExists(teamA.client, { apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind, name, namespace: nsA })),
      90_000,
    );
    await nothingMadeFor(nsA, name);
    expect(await objectExists(admin.client, cm)).toBe(false);
    const leftRoles = await admin.client.list(
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' },
      { labelSelector: `${TENANT_NAME_LABEL}=${name}` },
    );
    expect(leftRoles.items.filter((r) => (r.metadata.name ?? '').includes(`:${nsA}:`))).toEqual([]);
    expect(
      await objectExists(admin.client, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: `widgets.${groupOf(pkg)}` }),
    ).toBe(true);
  });

  it('a request outside the policy is refused with the rule it breaks and leaves nothing', async () => {
    await teamA.client.create(extension(nsA, 'other-package', { packageName: `not-allowed-${run}` }));
    const pkgRefused = await waitForRequest(teamA, nsA, 'other-package', 'refused', refused('PackageNotAllowed'));
    expect(pkgRefused.cond('Allowed')?.message).toBe(
      `package "not-allowed-${run}" is not allowed in namespace "${nsA}": ExtensionPolicy "tenants-${run}" allows ${pkg}`,
    );
    expect(pkgRefused.cond('Progressing')).toMatchObject({ status: 'False', reason: 'Blocked' });
    await nothingMadeFor(nsA, 'other-package');

    await teamA.client.create(extension(nsA, 'too-new', { packageName: pkg, version: '2.0.0' }));
    const versionRefused = await waitForRequest(teamA, nsA, 'too-new', 'refused', refused('VersionNotAllowed'));
    expect(versionRefused.cond('Allowed')?.message).toBe(
      `version "2.0.0" of package "${pkg}" is outside the range "<2.0.0" that ExtensionPolicy "tenants-${run}" allows`,
    );
    await nothingMadeFor(nsA, 'too-new');

    // A range whose best bundle is outside the policy's range: judged on the catalog's content.
    await teamA.client.create(extension(nsA, 'newest', { packageName: pkg, version: '>=2.0.0' }));
    const rangeRefused = await waitForRequest(teamA, nsA, 'newest', 'refused', refused('VersionNotAllowed'));
    expect(rangeRefused.cond('Allowed')?.message).toContain('version 2.0.0 of package');
    await nothingMadeFor(nsA, 'newest');

    await teamA.client.create({
      ...extension(nsA, 'everywhere', { packageName: pkg }),
      spec: { source: { sourceType: 'Catalog', catalog: { packageName: pkg } }, config: { configType: 'Inline', inline: { watchNamespace: '' } } },
    });
    await waitForRequest(teamA, nsA, 'everywhere', 'refused', refused('InstallModeNotAllowed'));
    await nothingMadeFor(nsA, 'everywhere');

    // A namespace no policy selects: its admin's request is refused too.
    const teamB = await tenantNamespaceClient(nsB);
    try {
      await teamB.client.create(extension(nsB, 'ops', { packageName: pkg }));
      const nsRefused = await waitForRequest(teamB, nsB, 'ops', 'refused', refused('NamespaceNotAllowed'));
      expect(nsRefused.cond('Allowed')?.message).toBe(`no ExtensionPolicy allows installing into namespace "${nsB}"`);
      await nothingMadeFor(nsB, 'ops');
    } finally {
      teamB.close();
    }
    for (const n of ['other-package', 'too-new', 'newest', 'everywhere']) {
      await teamA.client.delete({ apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind, name: n, namespace: nsA });
    }
  });

  it('a second namespace asking a version incompatible with the one installed for another is refused', async () => {
    await teamA.client.create(extension(nsA, 'shared', { packageName: pkg, version: '1.0.0' }));
    await waitForRequest(teamA, nsA, 'shared', 'installed 1.0.0', installed(`${pkg}.v1.0.0`));
    await teamC.client.create(extension(nsC, 'shared', { packageName: pkg, version: '1.0.1' }));
    const second = await waitForRequest(teamC, nsC, 'shared', 'refused', refused('PackageInUse'));
    expect(second.cond('Allowed')?.message).toBe(
      `package "${pkg}" is already installed for namespace "${nsA}" at version 1.0.0, outside this request's range "1.0.1": one package is installed once per cluster (its CustomResourceDefinitions have one owner)`,
    );
    await nothingMadeFor(nsC, 'shared');
    // The first is untouched.
    expect((await readExtension(teamA, nsA, 'shared')).bundle).toBe(`${pkg}.v1.0.0`);
    await teamC.client.delete({ apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind, name: 'shared', namespace: nsC });
    await teamA.client.delete({ apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind, name: 'shared', namespace: nsA });
    await waitUntil(
      'the first request is uninstalled',
      async () => !(await objectExists(admin.client, { ...CLUSTER_EXTENSION, name: clusterExtensionName(nsA, 'shared') })),
      90_000,
    );
  });

  it('olmv1 install as a tenant (with --tenant, or without it when the caller may not create ClusterExtensions) requests the install and waits for it, or says why it is refused', async () => {
    const refusedRun = await olmv1Install([`absent-${run}`, '--tenant', '-n', nsC, '--name', 'absent', '--timeout', '90s'], teamC);
    expect(refusedRun.code).toBe(1);
    expect(refusedRun.stderr).toContain(`Extension ${nsC}/absent is refused (PackageNotAllowed): package "absent-${run}" is not allowed`);
    await nothingMadeFor(nsC, 'absent');
    // Without --tenant: the namespace's admin may not create ClusterExtensions, so the install is requested, and it says so.
    const ok = await olmv1Install([pkg, '-n', nsC, '--name', 'cli', '-v', '1.0.0', '--timeout', '90s'], teamC);
    expect(ok, ok.stderr).toMatchObject({ code: 0, stdout: `installed ${pkg}.v1.0.0 (1.0.0) for Extension ${nsC}/cli\n` });
    expect(ok.stderr).toContain(`you may not create ClusterExtensions but may request installs in namespace ${nsC}: requesting ${pkg} as a tenant`);
    await teamC.client.delete({ apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind, name: 'cli', namespace: nsC });
    await teamC.client.delete({ apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind, name: 'absent', namespace: nsC });
    await waitUntil(
      'the request is uninstalled',
      async () => !(await objectExists(admin.client, { ...CLUSTER_EXTENSION, name: clusterExtensionName(nsC, 'cli') })),
      90_000,
    );
  });

  it('as the tenant, olmv1 available lists what the policy lets its namespace install and olmv1 extensions what it requested', async () => {
    const available = await olmv1Tenant(runAvailable, ['-n', nsA], teamA);
    expect(available, available.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(available.stdout).toMatch(/^PACKAGE +VERSIONS +RANGE +CHANNELS +MODES +UPGRADES +POLICY\n/);
    expect(available.stdout).toMatch(
      new RegExp(`\\n${pkg} +1\\.0\\.1,1\\.0\\.0 +<2\\.0\\.0 +\\(any\\) +OwnNamespace +Automatic +tenants-${run}\\n$`),
    );
    // A namespace no policy selects has nothing available (its own admin asks).
    const teamB = await tenantNamespaceClient(nsB);
    try {
      const none = await olmv1Tenant(runAvailable, ['-n', nsB], teamB);
      expect(none).toMatchObject({ code: 0, stdout: `no ExtensionPolicy allows installing into namespace "${nsB}"\n` });
    } finally {
      teamB.close();
    }

    await teamA.client.create(extension(nsA, 'listed', { packageName: pkg, version: '1.0.0' }));
    await teamA.client.create(extension(nsA, 'unlisted', { packageName: `not-allowed-${run}` }));
    await waitForRequest(teamA, nsA, 'listed', 'installed 1.0.0', installed(`${pkg}.v1.0.0`));
    await waitForRequest(teamA, nsA, 'unlisted', 'refused', refused('PackageNotAllowed'));
    const listed = await olmv1Tenant(runExtensions, ['-n', nsA], teamA);
    expect(listed, listed.stderr).toMatchObject({ code: 0, stderr: '' });
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME +PACKAGE +REQUESTED +INSTALLED +ALLOWED +INSTALLED\? +PROGRESSING +MESSAGE$/);
    expect(lines[1]).toMatch(new RegExp(`^listed +${pkg} +1\\.0\\.0 +${pkg}\\.v1\\.0\\.0 \\(1\\.0\\.0\\) +True +True +Succeeded *$`));
    expect(lines[2]).toMatch(
      new RegExp(
        `^unlisted +not-allowed-${run} +\\(any\\) +- +False \\(PackageNotAllowed\\) +\\S+ +Blocked +package "not-allowed-${run}" is not allowed`,
      ),
    );
    expect(lines).toHaveLength(3);
    for (const n of ['listed', 'unlisted'])
      await teamA.client.delete({ apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind, name: n, namespace: nsA });
    await waitUntil(
      'the listed request is uninstalled',
      async () => !(await objectExists(admin.client, { ...CLUSTER_EXTENSION, name: clusterExtensionName(nsA, 'listed') })),
      90_000,
    );
  });

  it('admission refuses at create what the request alone shows wrong, naming the rule, and stores nothing', async () => {
    const cases: { name: string; spec: Record<string, unknown>; rule: RegExp }[] = [
      {
        name: 'numeric-watch',
        spec: { config: { configType: 'Inline', inline: { watchNamespace: 5 } } },
        rule: /WatchNamespaceInvalid: spec\.config\.inline\.watchNamespace must be/,
      },
      { name: 'bad-watch', spec: { config: { configType: 'Inline', inline: { watchNamespace: 'Team_B' } } }, rule: /WatchNamespaceInvalid/ },
      {
        name: 'borrowed-installer',
        spec: { serviceAccount: { name: 'ops-installer' } },
        rule: /ServiceAccountNotAllowed: spec\.serviceAccount\.name ops-installer: names ending in -installer are the installers operator-controller makes/,
      },
    ];
    for (const c of cases) {
      const obj = { ...extension(nsA, c.name, { packageName: pkg }) };
      obj['spec'] = { source: { sourceType: 'Catalog', catalog: { packageName: pkg } }, ...c.spec };
      await expect(teamA.client.create(obj), c.name).rejects.toThrow(c.rule);
      expect(await objectExists(admin.client, { apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind, name: c.name, namespace: nsA })).toBe(false);
    }
    // An update that writes such a spec is refused too; the stored request is unchanged.
    await teamA.client.create(extension(nsA, 'later', { packageName: `not-allowed-${run}` }));
    const ref = { apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind, name: 'later', namespace: nsA };
    await expect(teamA.client.patch(ref, { spec: { serviceAccount: { name: 'x-installer' } } }, 'merge')).rejects.toThrow(/ServiceAccountNotAllowed/);
    expect((await teamA.client.get(ref)).spec).not.toHaveProperty('serviceAccount');
    await teamA.client.delete(ref);
  });

  it('a request no longer allowed keeps what is installed, is not upgraded, says so, and deleting it uninstalls', async () => {
    const nsD = `team-d-${run}`;
    const teamD = await tenantNamespace(nsD, false);
    try {
      await admin.client.patch({ apiVersion: 'v1', kind: 'Namespace', name: nsD }, { metadata: { labels: { 'olmv1.test/narrow': run } } }, 'merge');
      const allow = await olmv1(
        runPolicyAllow,
        [`narrow-${run}`, '--namespaces', `olmv1.test/narrow=${run}`, '--package', pkg, '--catalog', catalog],
        admin,
      );
      expect(allow.code, allow.stderr).toBe(0);
      await teamD.client.create(extension(nsD, 'kept', { packageName: pkg, version: '1.0.0' }));
      await waitForRequest(teamD, nsD, 'kept', 'installed 1.0.0', installed(`${pkg}.v1.0.0`));
      // The tenant asks for an upgrade, then the administrator removes the policy.
      const ref = { apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind, name: 'kept', namespace: nsD };
      const removed = await olmv1(runPolicyRemove, [`narrow-${run}`], admin);
      expect(removed.code, removed.stderr).toBe(0);
      await teamD.client.patch(ref, { spec: { source: { catalog: { version: '1.0.1' } } } }, 'merge');
      const kept = await waitForRequest(
        teamD,
        nsD,
        'kept',
        'no longer allowed',
        (e) => refused('NamespaceNotAllowed')(e) && e.cond('Allowed')?.observedGeneration === e.obj.metadata.generation,
      );
      const ceName = clusterExtensionName(nsD, 'kept');
      expect(kept.cond('Allowed')?.message).toBe(
        `no longer allowed: no ExtensionPolicy allows installing into namespace "${nsD}"; ${pkg}.v1.0.0 stays installed (ClusterExtension "${ceName}") and is not upgraded until a policy allows the request again; deleting the request uninstalls it`,
      );
      expect(kept.cond('Installed')?.status).toBe('True');
      expect(kept.bundle).toBe(`${pkg}.v1.0.0`);
      const ce = await admin.client.get({ ...CLUSTER_EXTENSION, name: ceName });
      expect(ce.spec).toMatchObject({ source: { catalog: { version: '1.0.0' } } });
      expect(await objectExists(admin.client, { apiVersion: 'v1', kind: 'ConfigMap', namespace: nsD, name: `${pkg}-settings` })).toBe(true);
      await teamD.client.delete(ref);
      await waitUntil('the request is uninstalled', async () => !(await objectExists(admin.client, { ...CLUSTER_EXTENSION, name: ceName })), 90_000);
      await waitUntil('the request is gone', async () => !(await objectExists(teamD.client, ref)), 30_000);
      expect(await objectExists(admin.client, { apiVersion: 'v1', kind: 'ConfigMap', namespace: nsD, name: `${pkg}-settings` })).toBe(false);
    } finally {
      teamD.close();
    }
  });

  it("under upgrades: Manual the upgrade waits for the administrator's approval on the ClusterExtension; the tenant's own ServiceAccount is refused for a bundle with objects outside the namespace", async () => {
    const nsE = `team-e-${run}`;
    const teamE = await tenantNamespace(nsE, false);
    try {
      await admin.client.patch({ apiVersion: 'v1', kind: 'Namespace', name: nsE }, { metadata: { labels: { 'olmv1.test/manual': run } } }, 'merge');
      const allow = await olmv1(
        runPolicyAllow,
        [`manual-${run}`, '--namespaces', `olmv1.test/manual=${run}`, '--package', `${pkg}=<2.0.0`, '--catalog', catalog, '--upgrades', 'Manual'],
        admin,
      );
      expect(allow.code, allow.stderr).toBe(0);
      // The package has a CRD (cluster-scoped): the tenant's own ServiceAccount may not install it, and nothing is made.
      await teamE.client.create({
        ...extension(nsE, 'own-sa', { packageName: pkg }),
        spec: { source: { sourceType: 'Catalog', catalog: { packageName: pkg } }, serviceAccount: { name: 'tenant' } },
      });
      const saRefused = await waitForRequest(teamE, nsE, 'own-sa', 'refused', refused('ServiceAccountNotAllowed'));
      expect(saRefused.cond('Allowed')?.message).toContain('tenant');
      await nothingMadeFor(nsE, 'own-sa');
      await teamE.client.delete({ apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind, name: 'own-sa', namespace: nsE });

      await teamE.client.create(extension(nsE, 'held', { packageName: pkg, version: '1.0.0' }));
      await waitForRequest(teamE, nsE, 'held', 'installed 1.0.0', installed(`${pkg}.v1.0.0`));
      const ref = { apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind, name: 'held', namespace: nsE };
      await teamE.client.patch(ref, { spec: { source: { catalog: { version: '1.0.1' } } } }, 'merge');
      const ceName = clusterExtensionName(nsE, 'held');
      const waiting = await waitForRequest(teamE, nsE, 'held', 'the upgrade held', (e) =>
        (e.cond('Allowed')?.message ?? '').includes(`the upgrade to ${pkg}.v1.0.1 waits for the administrator's approval`),
      );
      expect(waiting.cond('Allowed')?.message).toContain(`olm.operatorframework.io/approved-bundle=${pkg}.v1.0.1 on ClusterExtension ${ceName}`);
      expect(waiting.bundle).toBe(`${pkg}.v1.0.0`);
      expect((await admin.client.get({ ...CLUSTER_EXTENSION, name: ceName })).spec).toMatchObject({ source: { catalog: { version: '1.0.0' } } });
      // The administrator approves; the tenant cannot (it may not touch ClusterExtensions).
      await expect(
        teamE.client.patch(
          { ...CLUSTER_EXTENSION, name: ceName },
          { metadata: { annotations: { 'olm.operatorframework.io/approved-bundle': `${pkg}.v1.0.1` } } },
          'merge',
        ),
      ).rejects.toSatisfy(isForbidden);
      await admin.client.patch(
        { ...CLUSTER_EXTENSION, name: ceName },
        { metadata: { annotations: { 'olm.operatorframework.io/approved-bundle': `${pkg}.v1.0.1` } } },
        'merge',
      );
      await waitForRequest(teamE, nsE, 'held', 'upgraded to 1.0.1 once approved', installed(`${pkg}.v1.0.1`));
      await teamE.client.delete(ref);
      await waitUntil('the request is uninstalled', async () => !(await objectExists(admin.client, { ...CLUSTER_EXTENSION, name: ceName })), 90_000);
    } finally {
      await olmv1(runPolicyRemove, [`manual-${run}`], admin);
      teamE.close();
    }
  });

  it("as the tenant, in the console's Namespace page in Chromium: installs what the policy allows from a Community catalog once acknowledged, sees it Installed live, is refused another namespace in the API server's words, and removes it", async () => {
    // The catalog marked Community: the page asks the acknowledgement `olmv1 install --tenant` asks.
    const catalogRef = { ...CLUSTER_CATALOG, name: catalog };
    await admin.client.patch(catalogRef, { metadata: { annotations: { [CATALOG_SOURCE_TYPE_ANNOTATION]: 'Community' } } }, 'merge');
    const consoleRun = await startConsole(await tenantKubeconfig(nsA));
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
    const errors: string[] = [];
    try {
      const page = await (await browser.newContext({ viewport: { width: 1366, height: 900 } })).newPage();
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(consoleRun.url);
      await page.getByRole('link', { name: 'Namespaces' }).click();
      await page.getByLabel('Namespace', { exact: true }).fill(nsA);
      await page.getByRole('button', { name: 'Open' }).click();
      // What the policy allows, with the versions the catalog serves within its range.
      const row = page.locator('tr', { has: page.locator(`[data-available="${pkg}"]`) });
      await expect.poll(() => row.count(), { timeout: 30_000 }).toBe(1);
      expect(await row.innerText()).toMatch(new RegExp(`${pkg}\\s+1\\.0\\.1, 1\\.0\\.0\\s+<2\\.0\\.0\\s+any\\s+Automatic\\s+tenants-${run}`));
      await page.getByRole('button', { name: `Install ${pkg}…` }).click();
      await page.getByLabel('Name of the Extension').fill('from-console');
      await page.getByLabel('Version').selectOption('1.0.0');
      const install = page.getByRole('button', { name: 'Install', exact: true });
      await install.click();
      // Refused in the service's words, with an unchecked checkbox naming the catalog; Install waits for it.
      await expect
        .poll(() => page.locator('[data-community-warning]').innerText(), { timeout: 15_000 })
        .toContain(`package ${pkg} may resolve to ClusterCatalog ${catalog}`);
      const acknowledge = page.getByLabel(`I understand that this package may come from ${catalog}, a community catalog, and is not supported`);
      expect(await acknowledge.isChecked()).toBe(false);
      expect(await install.isDisabled()).toBe(true);
      expect(await objectExists(admin.client, { ...EXTENSION, name: 'from-console', namespace: nsA })).toBe(false);
      await acknowledge.check();
      await install.click();
      await expect.poll(() => page.locator('[data-tenant-done]').count(), { timeout: 15_000 }).toBe(1);
      // The request the page made, as the tenant: an Extension in its namespace, installed by operator-controller.
      const created = await waitForRequest(teamA, nsA, 'from-console', 'installed 1.0.0', installed(`${pkg}.v1.0.0`));
      expect(created.obj.spec).toMatchObject({ source: { sourceType: 'Catalog', catalog: { packageName: pkg, version: '1.0.0' } } });
      // The page shows it Installed from its watch of the namespace's Extensions, without a reload.
      await expect.poll(() => page.locator('[data-request-state="from-console"]').innerText(), { timeout: 30_000 }).toBe('Installed');

      // Another namespace: the tenant may not read it, and the page says so in the API server's words.
      await page.goto(`${new URL(consoleRun.url).origin}/#/namespaces/${nsB}`);
      await expect
        .poll(() => page.locator('[data-tenant-problem]').allInnerTexts(), { timeout: 15_000 })
        .toContainEqual(
          expect.stringContaining(`namespaces "${nsB}" is forbidden: User "system:serviceaccount:${nsA}:tenant" cannot get resource "namespaces"`),
        );

      // Removal: deleting the request uninstalls (the ClusterExtension goes).
      await page.goto(`${new URL(consoleRun.url).origin}/#/namespaces/${nsA}`);
      await page.getByRole('button', { name: 'Remove from-console…' }).click();
      await page.getByRole('button', { name: 'Remove from-console', exact: true }).click();
      await expect.poll(() => page.locator('[data-tenant-done]').innerText(), { timeout: 15_000 }).toContain('is being removed');
      await waitUntil(
        'the console-made request is uninstalled',
        async () => !(await objectExists(admin.client, { ...CLUSTER_EXTENSION, name: clusterExtensionName(nsA, 'from-console') })),
        90_000,
      );
      await expect.poll(() => page.locator('[data-request="from-console"]').count(), { timeout: 30_000 }).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      await consoleRun.stop();
      await admin.client.patch(catalogRef, { metadata: { annotations: { [CATALOG_SOURCE_TYPE_ANNOTATION]: null } } }, 'merge');
    }
  });
});

/** Runs an `olmv1` command over the cluster as `kube`. */
async function olmv1(
  command: (
    args: string[],
    io: { stdout: { write(s: string): unknown }; stderr: { write(s: string): unknown } },
    deps: { connectCluster: InstallDeps['connectCluster'] },
  ) => Promise<number>,
  args: string[],
  kube: KubeContext,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
  const code = await command(args, io, { connectCluster: () => Promise.resolve({ ...kube, close: () => undefined }) });
  return { code, stdout, stderr };
}

/** Runs `olmv1 available` or `olmv1 extensions` as `kube` (the tenant's identity). */
async function olmv1Tenant(
  command: typeof runAvailable | typeof runExtensions,
  args: string[],
  kube: KubeContext,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
  const client = createCatalogClient();
  const deps = {
    connectCluster: () => Promise.resolve({ ...kube, close: () => undefined }),
    catalogContent: createCatalogContentCache({ client }),
  };
  try {
    return { code: await command(args, io, deps), stdout, stderr };
  } finally {
    client.close();
  }
}

/** Runs `olmv1 install ARGS` as `kube` (the tenant's identity). */
async function olmv1Install(args: string[], kube: KubeContext): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
  const client = createCatalogClient();
  const deps: InstallDeps = {
    connectCluster: () => Promise.resolve({ ...kube, close: () => undefined }),
    catalogContent: createCatalogContentCache({ client }),
    fetchBundle: (ref, access) => fetchBundleFiles(ref, { insecureRegistries: ['127.0.0.1', 'localhost'], ...access }),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    now: () => Date.now(),
  };
  try {
    return { code: await runInstall(args, io, deps), stdout, stderr };
  } finally {
    client.close();
  }
}

/** A client acting as the `tenant` ServiceAccount of `namespace` (made by tenantNamespace). */
async function tenantNamespaceClient(namespace: string): Promise<KubeContext> {
  return connect({ kind: 'file', path: await tenantKubeconfig(namespace) });
}

/** A kubeconfig file of the namespace's `tenant` ServiceAccount. */
async function tenantKubeconfig(namespace: string): Promise<string> {
  const cp = inject('envtestControlPlane');
  const dir = await mkdtemp(join(tmpdir(), 'tenant-'));
  dirs.push(dir);
  await writeFile(join(dir, 'kubeconfig'), serviceAccountKubeconfig(cp, await requestServiceAccountToken(cp, namespace, 'tenant')));
  return join(dir, 'kubeconfig');
}
