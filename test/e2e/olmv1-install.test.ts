// `olmv1 install`, `update` and `uninstall` on the real API server, registry, catalogd and
// operator-controller (issue 47), as a new user would run them: install of a package gives an
// Installed extension whose ServiceAccount holds exactly the RBAC `olmv1 rbac` prints (no
// wildcard, no cluster-admin); --dry-run writes nothing; a typo'd package, a version range
// nothing matches, a missing catalog and a caller who may not grant the RBAC are refused with
// what to do and nothing left behind; update changes only the fields given; uninstall removes
// the extension, then what install created for it, and nothing else.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAll } from 'js-yaml';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { fetchBundleFiles } from '../../cmd/olmv1/bundle-image.ts';
import { runInstall, type InstallDeps } from '../../cmd/olmv1/install.ts';
import { parseInstallArgs } from '../../cmd/olmv1/install-args.ts';
import { installObjects } from '../../cmd/olmv1/install-objects.ts';
import { runUninstall } from '../../cmd/olmv1/uninstall.ts';
import { runUpdate } from '../../cmd/olmv1/update.ts';
import { runCatalogAdd, runCatalogRemove, runCatalogs } from '../../cmd/olmv1/catalog-admin.ts';
import { runCatalogUpdate } from '../../cmd/olmv1/catalog-update.ts';
import { runUpgradeApprove } from '../../cmd/olmv1/upgrade.ts';
import { createCatalogClient, createCatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { CLUSTER_CATALOG, CLUSTER_EXTENSION, UPDATE_POLICY_ANNOTATION, UpdatePolicy } from '../../pkg/shared/api/index.ts';
import { connect, isNotFound, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { requestServiceAccountToken, serviceAccountKubeconfig } from '../envtest/index.ts';
import {
  SUITE_LABEL,
  bundleFiles,
  chainedPackageCatalog,
  getExtension,
  installedAs,
  objectExists,
  offerPackage,
  publishCatalog,
  pushBundle,
  pushCatalogFiles,
  rbacFor,
  replacingChain,
  useExtensionStack,
  waitForExtension,
  type BundleSpec,
} from '../support/extensions.ts';

const run = randomBytes(3).toString('hex');
const suite = useExtensionStack();
const pkg = `inst-${run}`;
const specs: BundleSpec[] = [
  { pkg, version: '1.0.0', configMaps: ['settings'] },
  { pkg, version: '1.1.0', configMaps: ['settings'] },
];
const RBAC_KINDS = [
  { apiVersion: 'v1', kind: 'ServiceAccount' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' },
];
const checkout = fileURLToPath(new URL('../..', import.meta.url));
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const f of cleanup.reverse()) await f().catch(() => undefined);
});

type Run = (
  args: readonly string[],
  io: { stdout: { write(s: string): unknown }; stderr: { write(s: string): unknown } },
  deps: InstallDeps,
) => Promise<number>;

/** Runs an olmv1 command in-process as `kube` (the suite's admin by default). */
async function olmv1(command: Run, args: string[], kube: KubeContext = suite.kube): Promise<{ code: number; stdout: string; stderr: string }> {
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
    const code = await command(args, io, deps);
    return { code, stdout, stderr };
  } finally {
    client.close();
  }
}

/** Every object of the RBAC kinds labelled as created by install for `name`, as `Kind ns/name`. */
async function labelledFor(name: string): Promise<string[]> {
  const out: string[] = [];
  for (const kind of RBAC_KINDS) {
    const { items } = await suite.kube.client.listAll(kind, { labelSelector: `olm.operatorframework.io/installed-for=${name}` });
    for (const o of items) out.push(`${kind.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`);
  }
  return out.sort();
}

let selector = '';
let images: Record<string, string> = {};
async function offered(): Promise<string> {
  if (selector !== '') return selector;
  images = await offerPackage(suite.stack, pkg, replacingChain(specs));
  // The suite's own catalogs only: other files' catalogs on the shared API server may be unserved.
  const catalog = await suite.kube.client.get({ ...CLUSTER_CATALOG, name: pkg });
  selector = `${SUITE_LABEL}=${catalog.metadata.labels?.[SUITE_LABEL] ?? ''}`;
  return selector;
}

describe('olmv1 install', () => {
  it('--dry-run -o yaml prints the namespace, ServiceAccount, RBAC and ClusterExtension and writes nothing', async () => {
    const sel = await offered();
    const out = await olmv1(runInstall, [pkg, '-l', sel, '--version', '1.0.x', '--dry-run', '-o', 'yaml']);
    expect(out.stderr).toContain(`resolved ${pkg}.v1.0.0 (1.0.0) from catalog ${pkg}`);
    expect(out.code).toBe(0);
    const docs = loadAll(out.stdout) as KubeObject[];
    expect(docs.map((d) => d.kind)).toEqual([
      'Namespace',
      'ServiceAccount',
      'ClusterRole',
      'Role',
      'ClusterRoleBinding',
      'RoleBinding',
      'ClusterExtension',
    ]);
    expect(docs.at(-1)?.spec).toMatchObject({ namespace: pkg, serviceAccount: { name: `${pkg}-installer` } });
    expect(await objectExists(suite.kube.client, { apiVersion: 'v1', kind: 'Namespace', name: pkg })).toBe(false);
    expect(await objectExists(suite.kube.client, { ...CLUSTER_EXTENSION, name: pkg })).toBe(false);
    expect(await labelledFor(pkg)).toEqual([]);
  });

  it('runs through the olmv1 binary: --help exits 0, a usage error 2, --dry-run prints the objects', async () => {
    const sel = await offered();
    const cli = (...args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(process.execPath, ['cmd/olmv1/main.ts', ...args], { cwd: checkout }, (err, stdout, stderr) =>
          resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr }),
        );
      });
    const kubeconfig = inject('envtestControlPlane').kubeconfigPath;
    for (const verb of [['install'], ['uninstall'], ['update'], ['catalog', 'add'], ['catalog', 'remove'], ['catalogs']]) {
      const help = await cli(...verb, '--help');
      expect(help.code, verb.join(' ')).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage: olmv1 ${verb.join(' ')} `));
    }
    expect((await cli('install')).code).toBe(2);
    expect((await cli('uninstall', '--kubeconfig', kubeconfig)).code).toBe(2);
    expect((await cli('update', pkg, '--kubeconfig', kubeconfig)).code).toBe(2);
    expect((await cli('uninstall', `absent-${run}`, '--kubeconfig', kubeconfig)).stderr).toBe(`ClusterExtension "absent-${run}" not found\n`);
    const dry = await cli('install', pkg, '-l', sel, '--dry-run', '-o', 'json', '--kubeconfig', kubeconfig);
    expect(dry.stderr).toContain(`resolved ${pkg}.v1.1.0 (1.1.0) from catalog ${pkg}`);
    expect(dry.code).toBe(0);
    const list = JSON.parse(dry.stdout) as { kind: string; items: KubeObject[] };
    expect(list.kind).toBe('List');
    expect(list.items.map((o) => o.kind)).toEqual([
      'Namespace',
      'ServiceAccount',
      'ClusterRole',
      'Role',
      'ClusterRoleBinding',
      'RoleBinding',
      'ClusterExtension',
    ]);
    expect(await objectExists(suite.kube.client, { ...CLUSTER_EXTENSION, name: pkg })).toBe(false);
  });

  it('refuses a typo, a version nothing matches and a missing catalog, naming what there is', async () => {
    const sel = await offered();
    // Two letters swapped: the close name is suggested.
    const typo = `isnt-${run}`;
    const typoed = await olmv1(runInstall, [typo, '-l', sel]);
    expect(typoed.code).toBe(1);
    expect(typoed.stderr).toContain(
      `no bundles found for package "${typo}"\nthe selected catalogs have no package "${typo}"; packages with similar names: "${pkg}"`,
    );
    const version = await olmv1(runInstall, [pkg, '-l', sel, '--version', '>=2.0.0']);
    expect(version.code).toBe(1);
    expect(version.stderr).toContain(`no bundles found for package "${pkg}" matching version ">=2.0.0"\nversions: 1.1.0, 1.0.0`);
    const catalog = await olmv1(runInstall, [pkg, '--catalog', `nope-${run}`]);
    expect(catalog.code).toBe(1);
    expect(catalog.stderr).toMatch(new RegExp(`^ClusterCatalog "nope-${run}" not found; the cluster's catalogs: .*\\b${pkg}\\b`));
    expect(await olmv1(runInstall, [pkg, '--upgrade-constraint-policy', 'Sometimes']).then((o) => o.code)).toBe(2);
    expect(await objectExists(suite.kube.client, { apiVersion: 'v1', kind: 'Namespace', name: typo })).toBe(false);
    expect(await labelledFor(pkg)).toEqual([]);
  });

  it('refuses a package of a catalog marked Community without --accept-community, nothing written; --dry-run warns (decision 0148)', async () => {
    const sel = await offered();
    const catalog = { ...CLUSTER_CATALOG, name: pkg };
    await suite.kube.client.patch(catalog, { metadata: { annotations: { 'olm.operatorframework.io/source-type': 'Community' } } }, 'merge');
    try {
      const refused = await olmv1(runInstall, [pkg, '-l', sel]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        `package ${pkg} resolves to ClusterCatalog ${pkg} ("${pkg}"), which the cluster's administrators mark as community content`,
      );
      expect(refused.stderr).toContain('olmv1 install --accept-community');
      expect(await objectExists(suite.kube.client, { apiVersion: 'v1', kind: 'Namespace', name: pkg })).toBe(false);
      expect(await labelledFor(pkg)).toEqual([]);
      const dry = await olmv1(runInstall, [pkg, '-l', sel, '--dry-run']);
      expect(dry.code).toBe(0);
      expect(dry.stderr).toContain(`warning: package ${pkg} resolves to ClusterCatalog ${pkg}`);
      const accepted = await olmv1(runInstall, [pkg, '-l', sel, '--accept-community', '--dry-run']);
      expect([accepted.code, accepted.stderr.includes('warning: package')]).toEqual([0, false]);
    } finally {
      await suite.kube.client.patch(catalog, { metadata: { annotations: { 'olm.operatorframework.io/source-type': null } } }, 'merge');
    }
  });

  it('refuses a caller who may not grant the RBAC, saying what is refused, leaving nothing behind; once granted exactly those rules, the caller installs', async () => {
    const sel = await offered();
    const cp = inject('envtestControlPlane');
    const { client } = suite.kube;
    const user = `limited-${run}`;
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: user },
      rules: [
        { apiGroups: ['olm.operatorframework.io'], resources: ['clustercatalogs'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['olm.operatorframework.io'], resources: ['clusterextensions'], verbs: ['get', 'create'] },
        { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'create', 'delete'] },
        { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['create'] },
        { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings'], verbs: ['create'] },
      ],
    };
    await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: user, namespace: 'default' } });
    await client.create(role);
    await client.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: user },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: user },
      subjects: [{ kind: 'ServiceAccount', name: user, namespace: 'default' }],
    });
    cleanup.push(
      () => client.delete({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', name: user }),
      () => client.delete({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: user }),
    );
    const dir = await mkdtemp(join(tmpdir(), 'olmv1-install-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const token = await requestServiceAccountToken(cp, 'default', user);
    await writeFile(join(dir, 'kubeconfig'), serviceAccountKubeconfig(cp, token));
    const limited = await connect({ kind: 'file', path: join(dir, 'kubeconfig') });
    try {
      const name = `limited-${run}`;
      const out = await olmv1(runInstall, [pkg, '--name', name, '-n', name, '-l', sel], limited);
      expect(out.code).toBe(1);
      expect(out.stderr).toMatch(/nothing installed: \d+ of the 6 objects would be refused:/);
      expect(out.stderr).toMatch(
        new RegExp(
          `you cannot create ClusterRole olmv1-installer:${name}:${name}-installer:${pkg}\\.v1\\.1\\.0: .*attempting to grant RBAC permissions not currently held`,
        ),
      );
      expect(out.stderr).toContain('ask a cluster admin');
      expect(out.stderr).toContain(`removed Namespace ${name} again`);
      const namespaceState = async () => {
        try {
          return (await client.get({ apiVersion: 'v1', kind: 'Namespace', name })).metadata.deletionTimestamp === undefined
            ? 'present'
            : 'terminating';
        } catch (e) {
          if (isNotFound(e)) return 'gone';
          throw e;
        }
      };
      await expect.poll(namespaceState, { timeout: 30_000 }).toMatch(/^(gone|terminating)$/);
      expect(await objectExists(client, { ...CLUSTER_EXTENSION, name })).toBe(false);
      expect(await labelledFor(name)).toEqual([]);

      // Once an admin grants exactly what the installer's RBAC holds (no bind, no escalate), the same user installs.
      // (Into another namespace: the first one may stay Terminating, there being no namespace controller here.)
      const ns = `${name}-2`;
      const printed = await rbacFor(bundleFiles(specs[1] as BundleSpec), ns, `${name}-installer`);
      const granted = printed.flatMap((o) => (o.kind === 'ClusterRole' || o.kind === 'Role' ? (o.rules as object[]) : []));
      await client.update({
        ...(await client.get({ apiVersion: role.apiVersion, kind: role.kind, name: user })),
        rules: [...role.rules, ...granted],
      });
      const installed = await olmv1(runInstall, [pkg, '--name', name, '-n', ns, '-l', sel, '--timeout', '90s'], limited);
      expect(installed.stderr).not.toContain('would be refused');
      expect(installed.code).toBe(0);
      expect(installed.stdout).toContain(`installed ${name}: ${pkg}.v1.1.0 (1.1.0) of package ${pkg} from catalog ${pkg}, in namespace ${ns}`);
      cleanup.push(() => client.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns }));
      expect((await olmv1(runUninstall, [name, '--timeout', '90s'])).code).toBe(0);
      expect(await labelledFor(name)).toEqual([]);
    } finally {
      limited.close();
    }
  });

  it('installs with exactly the printed RBAC, update changes only what is given, uninstall removes only what install created', async () => {
    const sel = await offered();
    const { client } = suite.kube;
    // An unrelated ServiceAccount in the install namespace, and one labelled for another extension: uninstall keeps both.
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: pkg } });
    cleanup.push(() => client.delete({ apiVersion: 'v1', kind: 'Namespace', name: pkg }));
    await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bystander', namespace: pkg } });
    await client.create({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: {
        name: 'other',
        namespace: pkg,
        labels: { 'olm.operatorframework.io/installed-by': 'olmv1', 'olm.operatorframework.io/installed-for': `${pkg}-other` },
      },
    });

    const out = await olmv1(runInstall, [pkg, '-l', sel, '--version', '1.0.x', '--timeout', '90s']);
    expect(out.stderr).toContain(`created ClusterRole olmv1-installer:${pkg}:${pkg}-installer:${pkg}.v1.0.0`);
    expect(out.stderr).not.toContain('created Namespace');
    expect(out.code).toBe(0);
    expect(out.stdout).toBe(
      `installed ${pkg}: ${pkg}.v1.0.0 (1.0.0) of package ${pkg} from catalog ${pkg}, in namespace ${pkg} as ServiceAccount ${pkg}-installer\n`,
    );
    const ext = await getExtension(client, pkg);
    expect(installedAs(`${pkg}.v1.0.0`)(ext)).toBe(true);
    expect(ext.obj.spec).toMatchObject({ serviceAccount: { name: `${pkg}-installer` } });

    // The roles hold exactly the rules `olmv1 rbac` prints for the bundle, and none is a wildcard or cluster-admin.
    const printed = await rbacFor(bundleFiles(specs[0] as BundleSpec), pkg, `${pkg}-installer`);
    const rulesOf = (objects: KubeObject[]) =>
      objects
        .filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role')
        .map((o) => ({ kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace, rules: o.rules }))
        .sort((a, b) => `${a.kind}${a.name ?? ''}`.localeCompare(`${b.kind}${b.name ?? ''}`));
    const live: KubeObject[] = [];
    for (const kind of RBAC_KINDS)
      live.push(
        ...(await client.listAll(kind, { labelSelector: `olm.operatorframework.io/installed-for=${pkg}` })).items.map((o) => ({
          ...o,
          kind: kind.kind,
        })),
      );
    expect(rulesOf(live)).toEqual(rulesOf(printed));
    expect(rulesOf(live).length).toBeGreaterThan(0);
    expect(JSON.stringify(rulesOf(live))).not.toContain('"*"');
    const bindings = live.filter((o) => o.kind.endsWith('Binding'));
    expect(bindings.map((b) => (b.roleRef as { name: string }).name)).not.toContain('cluster-admin');
    for (const b of bindings) expect(b.subjects).toEqual([{ kind: 'ServiceAccount', name: `${pkg}-installer`, namespace: pkg }]);

    const updated = await olmv1(runUpdate, [pkg, '--version', '1.0.x', '-c', 'stable']);
    expect(updated).toMatchObject({ code: 0, stdout: `spec.source.catalog.channels: unset -> ["stable"]\nupdated ClusterExtension ${pkg}\n` });
    expect((await getExtension(client, pkg)).obj.spec).toMatchObject({
      source: { catalog: { version: '1.0.x', channels: ['stable'], packageName: pkg } },
    });
    await waitForExtension(
      client,
      pkg,
      'installed again after the update',
      (e) => installedAs(`${pkg}.v1.0.0`)(e) && e.cond('Progressing')?.observedGeneration === e.obj.metadata.generation,
    );

    const createdRbac = await labelledFor(pkg);
    const gone = await olmv1(runUninstall, [pkg, '--timeout', '90s']);
    expect(gone.code).toBe(0);
    expect(gone.stdout.split('\n').filter((l) => l !== '')).toEqual([
      `deleted ClusterExtension ${pkg}`,
      ...createdRbac.map(() => expect.stringMatching(/^deleted (ClusterRoleBinding|RoleBinding|ClusterRole|Role|ServiceAccount) /)),
    ]);
    expect(await objectExists(client, { ...CLUSTER_EXTENSION, name: pkg })).toBe(false);
    expect(await labelledFor(pkg)).toEqual([]);
    // The bundle's objects went with the extension; the namespace and the two bystanders stay.
    expect(await objectExists(client, { apiVersion: 'v1', kind: 'ConfigMap', name: `${pkg}-settings`, namespace: pkg })).toBe(false);
    expect(await objectExists(client, { apiVersion: 'v1', kind: 'Namespace', name: pkg })).toBe(true);
    expect(await objectExists(client, { apiVersion: 'v1', kind: 'ServiceAccount', name: 'bystander', namespace: pkg })).toBe(true);
    expect(await objectExists(client, { apiVersion: 'v1', kind: 'ServiceAccount', name: 'other', namespace: pkg })).toBe(true);

    const again = await olmv1(runUninstall, [pkg]);
    expect(again).toMatchObject({ code: 1, stderr: `ClusterExtension "${pkg}" not found\n` });
  });
});

describe('an olmv1 install interrupted after its RBAC (issue 60 item 6)', () => {
  /**
   * What `olmv1 install PKG --name NAME -n NAME` writes before its ClusterExtension, written with
   * install's own builders as an interrupted run leaves it: the namespace, the ServiceAccount and
   * exactly the RBAC of the bundle install resolves (1.1.0).
   */
  async function interrupted(name: string, sel: string): Promise<KubeObject[]> {
    const { client } = suite.kube;
    const req = parseInstallArgs([pkg, '--name', name, '-n', name, '-l', sel]).request;
    const rbac = await rbacFor(bundleFiles(specs[1] as BundleSpec), name, req.serviceAccount);
    const objects = installObjects(req, rbac, true).filter((o) => o.kind !== 'ClusterExtension');
    for (const o of objects) await client.create(o);
    cleanup.push(() => client.delete({ apiVersion: 'v1', kind: 'Namespace', name }));
    return objects;
  }

  it("a re-run refuses what is not install's, then, all its own, finishes: only the ClusterExtension is created", async () => {
    const sel = await offered();
    const { client } = suite.kube;
    const name = `resume-${run}`;
    const objects = await interrupted(name, sel);
    // One of them without install's labels is someone else's: refused, as a name taken, and left as it is.
    const clusterRole = objects.find((o) => o.kind === 'ClusterRole') as KubeObject;
    const roleRef = { apiVersion: clusterRole.apiVersion, kind: 'ClusterRole', name: clusterRole.metadata.name ?? '' };
    await client.patch(roleRef, { metadata: { labels: { 'olm.operatorframework.io/installed-for': null } } }, 'merge');
    const refused = await olmv1(runInstall, [pkg, '--name', name, '-n', name, '-l', sel, '--timeout', '90s']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `nothing installed: 1 of the 6 objects would be refused:\n  ClusterRole ${clusterRole.metadata.name ?? ''} already exists: remove it, or choose another --name\n`,
    );
    expect(await objectExists(client, { ...CLUSTER_EXTENSION, name })).toBe(false);
    expect((await client.get(roleRef)).metadata.labels?.['olm.operatorframework.io/installed-for']).toBeUndefined();

    await client.patch(roleRef, { metadata: { labels: { 'olm.operatorframework.io/installed-for': name } } }, 'merge');
    const before = await labelledFor(name);
    const out = await olmv1(runInstall, [pkg, '--name', name, '-n', name, '-l', sel, '--timeout', '90s']);
    expect(out.stderr).not.toContain('already exists');
    expect(out.code).toBe(0);
    expect(out.stdout).toBe(
      `installed ${name}: ${pkg}.v1.1.0 (1.1.0) of package ${pkg} from catalog ${pkg}, in namespace ${name} as ServiceAccount ${name}-installer\n`,
    );
    expect(out.stderr.split('\n').filter((l) => l.startsWith('created '))).toEqual([`created ClusterExtension ${name}`]);
    expect(out.stderr).toContain(`reused ServiceAccount ${name}/${name}-installer (created for ${name} by an earlier "olmv1 install")`);
    expect(installedAs(`${pkg}.v1.1.0`)(await getExtension(client, name))).toBe(true);
    expect(await labelledFor(name)).toEqual(before);

    const gone = await olmv1(runUninstall, [name, '--timeout', '90s']);
    expect(gone.code, gone.stderr).toBe(0);
    expect(await labelledFor(name)).toEqual([]);
  });

  it('uninstall without a ClusterExtension deletes every object install labelled for NAME, and nothing unlabelled', async () => {
    const sel = await offered();
    const { client } = suite.kube;
    const name = `undo-${run}`;
    await interrupted(name, sel);
    await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bystander', namespace: name } });
    const left = await labelledFor(name);
    expect(left).toHaveLength(5);

    const out = await olmv1(runUninstall, [name]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toBe(`ClusterExtension "${name}" not found; deleting what an interrupted "olmv1 install" created for it\n`);
    const said = out.stdout.split('\n').filter((l) => l !== '');
    expect(said.map((l) => l.replace(/^deleted (\w+) (?:(\S+)\/)?(\S+)$/, '$1 $2/$3')).sort()).toEqual(left);
    expect(said[0]).toMatch(/^deleted ClusterRoleBinding /);
    expect(said.at(-1)).toBe(`deleted ServiceAccount ${name}/${name}-installer`);
    expect(await labelledFor(name)).toEqual([]);
    expect(await objectExists(client, { apiVersion: 'v1', kind: 'ServiceAccount', name: 'bystander', namespace: name })).toBe(true);
    expect(await objectExists(client, { apiVersion: 'v1', kind: 'Namespace', name })).toBe(true);

    expect(await olmv1(runUninstall, [name])).toMatchObject({ code: 1, stdout: '', stderr: `ClusterExtension "${name}" not found\n` });
  });
});

describe('olmv1 catalog add, catalogs, catalog remove', () => {
  it('adds a catalog that install can name, lists it, and removes it', async () => {
    await offered();
    const name = `added-${run}`;
    const ref = `${suite.registry}/catalogs/${name}:latest`;
    const digest = await pushCatalogFiles(chainedPackageCatalog(pkg, ['1.0.0', '1.1.0'], images), ref);
    cleanup.push(() => suite.kube.client.delete({ ...CLUSTER_CATALOG, name }));

    const dry = await olmv1(runCatalogAdd, [name, ref, '--priority=-3', '--dry-run', '-o', 'json']);
    expect(dry.code).toBe(0);
    expect(await objectExists(suite.kube.client, { ...CLUSTER_CATALOG, name })).toBe(false);
    expect(JSON.parse(dry.stdout)).toMatchObject({ items: [{ metadata: { name }, spec: { priority: -3, availabilityMode: 'Available' } }] });

    const added = await olmv1(runCatalogAdd, [name, ref, '--priority=-3', '--poll-interval', '1m', '--timeout', '90s']);
    expect(added.code).toBe(0);
    expect(added.stdout).toBe(`ClusterCatalog ${name} is serving\n`);
    expect((await olmv1(runCatalogAdd, [name, ref])).stderr).toBe(`ClusterCatalog "${name}" already exists\n`);

    const listed = await olmv1(runCatalogs, ['-o', 'json']);
    expect(listed.code).toBe(0);
    const rows = (JSON.parse(listed.stdout) as { catalogs: Record<string, string>[] }).catalogs;
    expect(rows.find((r) => r.name === name)).toMatchObject({
      availability: 'Available',
      priority: '-3',
      serving: 'True',
      image: expect.stringContaining(digest),
    });
    const table = await olmv1(runCatalogs, []);
    expect(table.stdout).toMatch(new RegExp(`^NAME +AVAILABILITY +PRIORITY +SERVING +LAST UNPACKED +IMAGE\n[^]*^${name} +Available +-3 +True `, 'm'));

    // catalog update changes only the fields given (issue 65); a dry run changes nothing.
    const updated = await olmv1(runCatalogUpdate, [name, '--priority', '4', '--labels', `tier=gold`]);
    expect(updated).toMatchObject({ code: 0, stdout: `updated ClusterCatalog ${name}\n` });
    const after = await suite.kube.client.get({ ...CLUSTER_CATALOG, name });
    expect(after.spec).toMatchObject({ priority: 4, availabilityMode: 'Available', source: { image: { ref, pollIntervalMinutes: 1 } } });
    expect(after.metadata.labels).toMatchObject({ 'olm.operatorframework.io/metadata.name': name, tier: 'gold' });
    const dryUpdate = await olmv1(runCatalogUpdate, [name, '--priority', '9', '--dry-run', '-o', 'json']);
    expect(JSON.parse(dryUpdate.stdout)).toMatchObject({ items: [{ spec: { priority: 9 } }] });
    expect((await suite.kube.client.get({ ...CLUSTER_CATALOG, name })).spec).toMatchObject({ priority: 4 });
    expect(await olmv1(runCatalogUpdate, [`${name}-missing`, '--priority', '1'])).toMatchObject({
      code: 1,
      stderr: `ClusterCatalog "${name}-missing" not found\n`,
    });

    // --catalog NAME selects it by its metadata.name label.
    const install = await olmv1(runInstall, [pkg, '--catalog', name, '--dry-run']);
    expect(install.code).toBe(0);
    expect(install.stderr).toContain(`resolved ${pkg}.v1.1.0 (1.1.0) from catalog ${name}`);

    const removed = await olmv1(runCatalogRemove, [name, '--timeout', '60s']);
    expect(removed).toMatchObject({ code: 0, stdout: `deleted ClusterCatalog ${name}\n` });
    expect(await objectExists(suite.kube.client, { ...CLUSTER_CATALOG, name })).toBe(false);
    expect((await olmv1(runCatalogRemove, [name])).code).toBe(1);
  });
});

describe('olmv1 upgrade approve of an extension olmv1 install created', () => {
  it('grants exactly the permissions the held upgrade adds, and the upgrade goes through', async () => {
    const sel = await offered();
    const { client } = suite.kube;
    const name = `upg-${run}`;
    const v1: BundleSpec = { pkg: name, version: '1.0.0' };
    // 1.1.0 ships a second CRD: its installer needs rights on it that 1.0.0's does not have.
    const v2: BundleSpec = { pkg: name, version: '1.1.0', crds: ['widgets', 'gadgets'] };
    const images: Record<string, string> = { '1.0.0': await pushBundle(bundleFiles(v1), `${suite.registry}/bundles/${name}:v1.0.0`) };
    await publishCatalog(suite.stack, name, chainedPackageCatalog(name, ['1.0.0'], images));
    const installed = await olmv1(runInstall, [name, '-l', sel, '--update-policy', 'Manual', '--timeout', '90s']);
    expect(installed.code, installed.stderr).toBe(0);
    cleanup.push(() => client.delete({ apiVersion: 'v1', kind: 'Namespace', name }));
    expect((await getExtension(client, name)).obj.metadata.annotations).toMatchObject({ [UPDATE_POLICY_ANNOTATION]: UpdatePolicy.Manual });
    const before = await labelledFor(name);

    images['1.1.0'] = await pushBundle(bundleFiles(v2), `${suite.registry}/bundles/${name}:v1.1.0`);
    await publishCatalog(suite.stack, name, chainedPackageCatalog(name, ['1.0.0', '1.1.0'], images));
    await waitForExtension(
      client,
      name,
      'upgrade to 1.1.0 held',
      (e) => e.cond('UpgradeAvailable')?.status === 'True' && e.install?.bundle.name === `${name}.v1.0.0`,
    );

    const dry = await olmv1(runUpgradeApprove, [name, '1.1.0', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`would grant ClusterRole olmv1-installer:${name}:${name}-installer:${name}.v1.1.0: `);
    expect(await labelledFor(name)).toEqual(before);

    const approved = await olmv1(runUpgradeApprove, [name, '1.1.0']);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain(`granted ClusterRole olmv1-installer:${name}:${name}-installer:${name}.v1.1.0: `);
    await waitForExtension(client, name, 'upgraded to 1.1.0', installedAs(`${name}.v1.1.0`), 90_000);

    // What was added is exactly what 1.1.0's installer needs beyond 1.0.0's: no grant already held, none missing.
    const roleName = `olmv1-installer:${name}:${name}-installer:${name}.v1.1.0`;
    const added = await client.get({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: roleName });
    const atoms = (rules: unknown) =>
      ((rules ?? []) as { apiGroups?: string[]; resources?: string[]; resourceNames?: string[]; verbs: string[] }[]).flatMap((r) =>
        r.verbs.flatMap((v) =>
          (r.apiGroups ?? []).flatMap((g) => (r.resources ?? []).flatMap((res) => (r.resourceNames ?? ['']).map((n) => `${v} ${g}/${res}/${n}`))),
        ),
      );
    const clusterRules = (objects: KubeObject[]) => objects.filter((o) => o.kind === 'ClusterRole').flatMap((o) => atoms(o.rules));
    const old = new Set(clusterRules(await rbacFor(bundleFiles(v1), name, `${name}-installer`)));
    const wanted = clusterRules(await rbacFor(bundleFiles(v2), name, `${name}-installer`));
    const expected = [...new Set(wanted.filter((a) => !old.has(a) && !old.has(a.replace(/\/[^/]*$/, '/'))))].sort();
    expect([...new Set(atoms(added.rules))].sort()).toEqual(expected);
    expect(expected.some((a) => a.includes(`gadgets`))).toBe(true);

    const gone = await olmv1(runUninstall, [name, '--timeout', '90s']);
    expect(gone.code, gone.stderr).toBe(0);
    expect(await labelledFor(name)).toEqual([]);
  });
});
