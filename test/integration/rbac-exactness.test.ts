// "The RBAC that `olmv1 rbac` prints is exactly enough", proven on the real API server.
//
// Enough: the real CLI function prints the RBAC for a multi-CRD bundle (SingleNamespace: the
// bundle has Roles in a watched namespace, and ClusterRoles), the admin applies it, and a
// scoped client with a TokenRequest token of that ServiceAccount makes every request of
// decision 0003: install (server-side apply, force, the controller's field manager), drift
// reads (GET) and watch (LIST+WATCH by owner label), upgrade to a v2 (changed Deployment, CRD
// and permissions, one object added, one dropped) with both versions' RBAC, and uninstall
// (DELETE of all but the CRDs) with v2's RBAC alone.
//
// Nothing more: the generated roles are split into grant atoms (verb, group, resource,
// resourceName; or verb, non-resource URL). For each atom, the admin rewrites its role
// without it, waits until a SubjectAccessReview for it is denied (if another grant still
// covers it, it is redundant and the test fails), re-runs the flow request that needs it and
// asserts the API server's 403:
//   get/patch/delete on a name -> GET / apply / DELETE of that object;
//   create on a name           -> the admin deletes the object; the apply that recreates it;
//   list/watch on a resource    -> the drift LIST / WATCH in that scope;
//   the bundle's own role rules -> the admin deletes a bundle (Cluster)Role granting the
//                                  rule; the apply that recreates it (escalation check).
// An atom no request needs has no probe: the test fails. With the role restored, the request
// must succeed again. Done for every atom of v1's RBAC (v1 installed) and of v2's RBAC (v2
// installed, v1's RBAC removed).
import { FIELD_MANAGER, OWNER_NAME_LABEL } from '../../pkg/shared/api/index.ts';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  TokenGetter,
  canI,
  connect,
  createScopedClientFactory,
  isForbidden,
  isNotFound,
  serviceAccountSubject,
  type AccessAttributes,
  type KubeClient,
  type KubeContext,
  type KubeObject,
  type ScopedClientFactory,
} from '../../pkg/shared/kube/index.ts';
import {
  applyAll,
  deleteAndWait,
  deleteClusterScoped,
  describeObject,
  droppedObjects,
  editManifest,
  installRelease,
  MULTI_CRD_CSV_FILE,
  nextMultiCrdVersion,
  prepareRelease,
  readRelease,
  refOf,
  uninstallRelease,
  uniqueMultiCrdBundle,
  upgradeRelease,
  waitUntil,
  watchInitial,
  watchRelease,
  writeBundleDir,
  type Release,
} from '../support/bundle-flow.ts';

const RUN = randomBytes(3).toString('hex');
const EXT = `acme-${RUN}`;
const NS = `rbacx-${RUN}`;
const WATCH = `rbacx-${RUN}-watch`;
const SA = 'installer';

let kube: KubeContext;
let admin: KubeClient;
let scoped: ScopedClientFactory;
let sa: KubeClient;
let tmp: string;
let v1: Release;
let v2: Release;
const releases: Release[] = [];

// v1: the multi-crd fixture with names unique to this run. v2: its next version (no metrics
// Service) whose manager container changes, whose reporter gains a rule, a CRD gaining a field,
// and a new NetworkPolicy.
async function bundleDirs(): Promise<[string, string]> {
  const base = await uniqueMultiCrdBundle(RUN);
  const next = nextMultiCrdVersion(base, RUN);
  const policy = { podSelector: { matchLabels: { 'control-plane': 'controller-manager' } }, ingress: [{ ports: [{ port: 8443 }] }] };
  const metadata = { name: `acme-${RUN}-allow-metrics` };
  next.set('manifests/network-policy.yaml', JSON.stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata, spec: policy }));
  type CsvInstall = {
    permissions: { rules: unknown[] }[];
    deployments: { spec: { template: { spec: { containers: { image: string; env?: unknown[] }[] } } } }[];
  };
  editManifest<{ spec: { install: { spec: CsvInstall } } }>(next, MULTI_CRD_CSV_FILE, (csv) => {
    const install = csv.spec.install.spec;
    // pods: new for the installer; configmaps: already granted by another rule (overlap).
    install.permissions[1]?.rules.push({ apiGroups: [''], resources: ['configmaps', 'pods'], verbs: ['get'] });
    const manager = install.deployments[0]?.spec.template.spec.containers[1];
    if (manager === undefined) throw new Error('fixture changed: no manager container');
    manager.image = manager.image.replace('v1.2.0', 'v1.3.0');
    manager.env = [...(manager.env ?? []), { name: 'GIZMO_SHAPES', value: 'enabled' }];
  });
  type Crd = { spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } } }[] } };
  editManifest<Crd>(next, 'manifests/widgets.acme.example.com_widgets.yaml', (crd) => {
    const spec = crd.spec.versions[0]?.schema.openAPIV3Schema.properties.spec;
    if (spec !== undefined) spec.properties['shape'] = { type: 'string' };
  });
  return [await writeBundleDir(join(tmp, 'v1'), base), await writeBundleDir(join(tmp, 'v2'), next)];
}

async function release(dir: string, ns: string, watch: string | undefined, extension: string): Promise<Release> {
  const rel = await prepareRelease(dir, {
    installNamespace: ns,
    ...(watch === undefined ? {} : { watchNamespace: watch }),
    serviceAccount: SA,
    extension,
  });
  releases.push(rel);
  return rel;
}

beforeAll(async () => {
  kube = await connect({ kind: 'file', path: inject('envtestControlPlane').kubeconfigPath });
  admin = kube.client;
  for (const name of [NS, WATCH]) await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  scoped = createScopedClientFactory({ base: kube.connection, mapper: kube.mapper, tokens: new TokenGetter({ client: admin }) });
  sa = scoped.forServiceAccount(NS, SA);
  tmp = await mkdtemp(join(tmpdir(), 'rbac-exactness-'));
  const [dir1, dir2] = await bundleDirs();
  [v1, v2] = [await release(dir1, NS, WATCH, EXT), await release(dir2, NS, WATCH, EXT)];
});

afterAll(async () => {
  scoped?.close();
  if (admin !== undefined) await deleteClusterScoped(admin, releases);
  kube?.close();
  if (tmp !== undefined) await rm(tmp, { recursive: true, force: true });
});

// ---- grant atoms -------------------------------------------------------------------------

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
  verbs: string[];
}
/** One grant: a verb on a resource (optionally one name) or on a non-resource URL, in `role`. */
interface Atom {
  role: KubeObject;
  verb: string;
  group?: string;
  resource?: string;
  name?: string;
  url?: string;
}

const rulesOf = (role: KubeObject): Rule[] => (role['rules'] as Rule[] | undefined) ?? [];
const isRole = (o: KubeObject): boolean => o.kind === 'Role' || o.kind === 'ClusterRole';
const scopeOf = (a: Atom): string => a.role.metadata.namespace ?? '';

/** Every (verb, group, resource, name) or (verb, URL) a role grants, once (its rules may overlap). */
function atomsOf(role: KubeObject): Atom[] {
  const out = new Map<string, Atom>();
  const add = (a: Atom): void => void out.set(keyOf(a), a);
  for (const rule of rulesOf(role)) {
    for (const verb of rule.verbs) {
      for (const url of rule.nonResourceURLs ?? []) add({ role, verb, url });
      for (const group of rule.apiGroups ?? []) {
        for (const resource of rule.resources ?? []) {
          for (const name of rule.resourceNames ?? [undefined]) add({ role, verb, group, resource, ...(name === undefined ? {} : { name }) });
        }
      }
    }
  }
  return [...out.values()];
}

const keyOf = (a: Atom): string => JSON.stringify([a.verb, a.group, a.resource, a.name, a.url]);

function ruleOf(a: Atom): Rule {
  if (a.url !== undefined) return { nonResourceURLs: [a.url], verbs: [a.verb] };
  return { apiGroups: [a.group ?? ''], resources: [a.resource ?? ''], verbs: [a.verb], ...(a.name === undefined ? {} : { resourceNames: [a.name] }) };
}

function atomText(a: Atom): string {
  const what = a.url ?? `${a.group === '' ? 'core' : a.group}/${a.resource}${a.name === undefined ? '' : `/${a.name}`}`;
  return `${describeObject(a.role)}: ${a.verb} ${what}`;
}

function accessOf(a: Atom): AccessAttributes {
  if (a.url !== undefined) return { verb: a.verb, path: a.url };
  const [resource, subresource] = (a.resource ?? '').split('/');
  return { verb: a.verb, group: a.group ?? '', resource: resource ?? '', subresource: subresource ?? '', name: a.name ?? '', namespace: scopeOf(a) };
}

/** True when `held` grants the requested atom `want` (wildcards on the held side). */
function covers(held: Atom, want: Atom): boolean {
  const eq = (h: string | undefined, w: string | undefined): boolean => h === w || h === '*';
  if (!eq(held.verb, want.verb)) return false;
  if (want.url !== undefined)
    return held.url !== undefined && (held.url === want.url || (held.url.endsWith('*') && want.url.startsWith(held.url.slice(0, -1))));
  return (
    held.url === undefined && eq(held.group, want.group) && eq(held.resource, want.resource) && (held.name === undefined || held.name === want.name)
  );
}

async function allowed(atoms: readonly Atom[], ns = NS): Promise<boolean[]> {
  const decisions = await canI(admin, serviceAccountSubject(ns, SA), atoms.map(accessOf));
  return decisions.map((d) => d.allowed);
}

/** Applies `olmv1 rbac` output as admin and waits until every grant in it is effective. */
async function grant(rbac: readonly KubeObject[]): Promise<void> {
  await applyAll(admin, rbac);
  const atoms = rbac.filter(isRole).flatMap(atomsOf);
  const ns = rbac.find((o) => o.kind === 'ServiceAccount')?.metadata.namespace;
  await waitUntil('the generated RBAC is effective', async () => (await allowed(atoms, ns)).every(Boolean));
}

/**
 * The state a test of the flow starts from, whatever ran before it: `rbac` granted and
 * `objects` installed as the ServiceAccount (after the test before it, both change nothing).
 */
async function installedWith(rbac: readonly KubeObject[], objects: readonly KubeObject[]): Promise<void> {
  await grant(rbac);
  await installRelease(sa, objects);
}

// ---- probes: the flow request that needs an atom ------------------------------------------

/**
 * The flow request that needs an atom: `prepare` is the admin's set-up (e.g. deleting the
 * object so the apply creates it), `restore` repeats the request once the atom is back (it
 * must succeed and leave the release as it was), `denial` is part of the expected 403 text.
 */
interface Probe {
  what: string;
  prepare?: () => Promise<void>;
  run: () => Promise<unknown>;
  restore: () => Promise<unknown>;
  denial: string;
}

async function probeFor(a: Atom, objects: readonly KubeObject[]): Promise<Probe | undefined> {
  const scope = scopeOf(a);
  const inScope = (o: KubeObject): boolean => scope === '' || o.metadata.namespace === scope;
  const direct = `cannot ${a.verb} resource "${(a.resource ?? '').split('/')[0]}" in API group "${a.group}"`;
  for (const o of objects) {
    if (a.url !== undefined || !inScope(o)) continue;
    const info = await admin.resourceFor(o);
    if (info.group !== a.group || info.resource !== a.resource) continue;
    const ns = o.metadata.namespace;
    const sel = `${OWNER_NAME_LABEL}=${EXT}`;
    if (a.name === undefined && a.verb === 'list') {
      const list = (): Promise<unknown> => sa.list(o, { labelSelector: sel, ...(ns === undefined ? {} : { namespace: ns }) });
      return { what: `LIST ${o.kind}`, run: list, restore: list, denial: direct };
    }
    if (a.name === undefined && a.verb === 'watch') {
      const watch = (): Promise<unknown> => watchInitial(sa, o, sel, ns, 1);
      return { what: `WATCH ${o.kind}`, run: watch, restore: watch, denial: direct };
    }
    if (a.name !== o.metadata.name) continue;
    const apply = (): Promise<unknown> => sa.apply(o, { fieldManager: FIELD_MANAGER, force: true });
    const what = describeObject(o);
    if (a.verb === 'get') return { what: `GET ${what}`, run: () => sa.get(refOf(o)), restore: () => sa.get(refOf(o)), denial: direct };
    if (a.verb === 'patch') return { what: `apply ${what}`, run: apply, restore: apply, denial: direct };
    if (a.verb === 'create')
      return { what: `apply creating ${what}`, prepare: () => deleteAndWait(admin, o), run: apply, restore: apply, denial: direct };
    if (a.verb === 'delete' && o.kind !== 'CustomResourceDefinition') {
      const del = (): Promise<unknown> => sa.delete(refOf(o));
      return { what: `DELETE ${what}`, run: del, restore: async () => (await del(), apply()), denial: direct };
    }
  }
  // The bundle's own roles: the SA may create them only while holding what they grant.
  for (const r of objects) {
    if (!isRole(r) || !(scope === '' || (r.kind === 'Role' && r.metadata.namespace === scope))) continue;
    if (!atomsOf(r).some((want) => covers(a, want))) continue;
    const apply = (): Promise<unknown> => sa.apply(r, { fieldManager: FIELD_MANAGER, force: true });
    return {
      what: `apply creating ${describeObject(r)}`,
      prepare: () => deleteAndWait(admin, r),
      run: apply,
      restore: apply,
      denial: 'is attempting to grant RBAC permissions not currently held',
    };
  }
  return undefined;
}

/**
 * Runs `attempt` while `role` lacks the grants `drop` selects (waiting until a
 * SubjectAccessReview denies each of them, so a grant that another one still covers fails
 * here), then restores the role and waits until the grants are effective again.
 */
async function withoutGrants<T>(role: KubeObject, drop: (a: Atom) => boolean, attempt: () => Promise<T>): Promise<T> {
  const atoms = atomsOf(role);
  const dropped = atoms.filter(drop);
  const text = dropped.map(atomText).join('; ');
  try {
    await admin.patch(refOf(role), { rules: atoms.filter((a) => !drop(a)).map(ruleOf) }, 'merge');
    await waitUntil(`${text} is no longer granted (is it redundant?)`, async () => (await allowed(dropped)).every((a) => !a), 5_000);
    return await attempt();
  } finally {
    await admin.patch(refOf(role), { rules: rulesOf(role) }, 'merge');
    await waitUntil(`${text} is granted again`, async () => (await allowed(dropped)).every(Boolean), 5_000);
  }
}

/** Removes each grant of `rbac`'s roles in turn and asserts its probe is refused (see the file comment). */
async function proveEveryGrantNeeded(rbac: readonly KubeObject[], objects: readonly KubeObject[]): Promise<number> {
  let proven = 0;
  for (const role of rbac.filter(isRole)) {
    for (const atom of atomsOf(role)) {
      const probe = await probeFor(atom, objects);
      if (probe === undefined) throw new Error(`${atomText(atom)} is needed by no request of the flow`);
      const refused = await withoutGrants(
        role,
        (a) => keyOf(a) === keyOf(atom),
        async () => {
          await probe.prepare?.();
          return probe.run().then(
            () => undefined,
            (e: unknown) => e,
          );
        },
      );
      expect(isForbidden(refused), `${probe.what} without ${atomText(atom)}: ${String(refused)}`).toBe(true);
      expect((refused as Error).message).toContain(probe.denial);
      await probe.restore();
      proven++;
    }
  }
  return proven;
}

// ---- the flow ------------------------------------------------------------------------------

describe('olmv1 rbac against the real API server', () => {
  it('prints RBAC that lets the ServiceAccount install, read and watch v1', async () => {
    expect(v1.rbac.map((o) => o.kind)).toEqual(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'Role', 'RoleBinding']);
    expect(new Set(v1.objects.map((o) => o.kind))).toEqual(
      new Set([
        'ServiceAccount',
        'ConfigMap',
        'CustomResourceDefinition',
        'ClusterRole',
        'ClusterRoleBinding',
        'Role',
        'RoleBinding',
        'Service',
        'Deployment',
      ]),
    );
    await grant(v1.rbac);
    await installRelease(sa, v1.objects);
    await readRelease(sa, v1.objects);
    await watchRelease(sa, v1.objects, EXT);
    const deployment = await admin.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: NS, name: `acme-${RUN}-controller-manager` });
    expect(deployment.metadata.managedFields?.map((f) => (f as { manager?: string }).manager)).toContain(FIELD_MANAGER);
  });

  it('grants nothing v1 does not use: without any single grant, the request needing it is refused (403)', async () => {
    await installedWith(v1.rbac, v1.objects);
    const proven = await proveEveryGrantNeeded(v1.rbac, v1.objects);
    expect(proven).toBe(v1.rbac.filter(isRole).flatMap(atomsOf).length);
    await readRelease(sa, v1.objects);
    await watchRelease(sa, v1.objects, EXT);
  });

  it("upgrades to v2 with v1's and v2's RBAC side by side", async () => {
    await installedWith(v1.rbac, v1.objects);
    await grant(v2.rbac);
    const dropped = droppedObjects(v1.objects, v2.objects);
    expect(dropped.map((o) => o.kind)).toContain('Service');
    await upgradeRelease(sa, v1.objects, v2.objects);
    for (const obj of dropped) await expect(admin.get(refOf(obj)), describeObject(obj)).rejects.toSatisfy(isNotFound);
    await readRelease(sa, v2.objects);
  });

  it("grants nothing v2 does not use (v2 installed, v1's RBAC removed)", async () => {
    await installedWith(v2.rbac, v2.objects);
    for (const obj of v1.rbac.filter((o) => o.kind !== 'ServiceAccount')) await deleteAndWait(admin, obj);
    await watchRelease(sa, v2.objects, EXT);
    const proven = await proveEveryGrantNeeded(v2.rbac, v2.objects);
    expect(proven).toBe(v2.rbac.filter(isRole).flatMap(atomsOf).length);
  });

  it("uninstalls with v2's RBAC: every object but the CRDs is deleted", async () => {
    await installedWith(v2.rbac, v2.objects);
    await uninstallRelease(sa, v2.objects);
    for (const obj of v2.objects) {
      const live = await admin.get(refOf(obj)).then(
        () => true,
        (e: unknown) => (isNotFound(e) ? false : Promise.reject(e)),
      );
      expect(live, describeObject(obj)).toBe(obj.kind === 'CustomResourceDefinition');
    }
  });

  it("names the missing permission in the API server's words when a grant is missing", async () => {
    await grant(v2.rbac);
    const roleIn = (ns: string): KubeObject => v2.rbac.find((o) => o.kind === 'Role' && o.metadata.namespace === ns) as KubeObject;
    const failure = (role: KubeObject, drop: (a: Atom) => boolean): Promise<string> =>
      withoutGrants(role, drop, () =>
        installRelease(sa, v2.objects).then(
          () => 'succeeded',
          (e: unknown) => (e as Error).message,
        ),
      );
    const user = `system:serviceaccount:${NS}:${SA}`;
    const manager = `acme-${RUN}-controller-manager`;
    expect(await failure(roleIn(NS), (a) => a.verb === 'create' && a.resource === 'deployments')).toBe(
      `failed to get release state using server-side dry-run: deployments.apps "${manager}" is forbidden: User "${user}" cannot create resource "deployments" in API group "apps" in the namespace "${NS}"`,
    );
    await uninstallRelease(
      sa,
      v2.objects.filter((o) => o.kind !== 'Deployment'),
    );
    const escalation = await failure(roleIn(WATCH), (a) => a.verb === 'get' && a.resource === 'leases');
    expect(escalation).toMatch(
      new RegExp(
        `^failed to get release state using server-side dry-run: roles.rbac.authorization.k8s.io "\\S+" is forbidden: user "${user}" .*is attempting to grant RBAC permissions not currently held:`,
        's',
      ),
    );
    expect(escalation).toContain('{APIGroups:["coordination.k8s.io"], Resources:["leases"], Verbs:["get"]}');
    // With every grant back, the interrupted install completes and uninstalls cleanly.
    await installRelease(sa, v2.objects);
    await uninstallRelease(sa, v2.objects);
  });

  it('is enough for the AllNamespaces and OwnNamespace renderings of the bundle too', async () => {
    for (const mode of ['all', 'own']) {
      const run = `${RUN}${mode}`;
      const ns = `rbacx-${run}`;
      await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      const dir = await writeBundleDir(join(tmp, mode), await uniqueMultiCrdBundle(run));
      const { objects, rbac } = await release(dir, ns, mode === 'own' ? ns : undefined, `acme-${run}`);
      await grant(rbac);
      const client = scoped.forServiceAccount(ns, SA);
      await installRelease(client, objects);
      await readRelease(client, objects);
      await watchRelease(client, objects, `acme-${run}`);
      await uninstallRelease(client, objects);
    }
  });
});
