// Pre-authorization (pkg/operator-controller/applier/preauthorize.ts) on the real API server, as a real
// ServiceAccount with a TokenRequest token.
//
// The multi-CRD fixture bundle is rendered SingleNamespace (Roles in a watched namespace,
// ClusterRoles, CRDs, a non-resource URL). With no permissions, the check lists every
// permission `olmv1 rbac` prints, no more, no less; with exactly the printed RBAC it finds
// nothing missing and the install as that ServiceAccount succeeds; with one printed Role
// deleted, exactly that Role's permissions come back. An upgrade to a v2 (new CSV name) drops
// the metrics Service and the bundle's permission objects, whose names derive from the CSV
// name; deleting them needs `delete` on each, which only v1's RBAC grants: with v2's RBAC
// alone, exactly those are missing; with both, nothing is, and the upgrade succeeds.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  formatMissingPermissions,
  missingPermissionsAdvice,
  preAuthorize,
  type MissingPermission,
  type PreAuthorizeInput,
  atomKey,
  atomsOfRule,
  type Atom,
} from '../../pkg/operator-controller/applier/index.ts';
import {
  TokenGetter,
  canI,
  connect,
  createScopedClientFactory,
  isNotFound,
  serviceAccountSubject,
  type AccessAttributes,
  type KubeClient,
  type KubeContext,
  type KubeObject,
  type RequestOptions,
  type ScopedClientFactory,
  type Transport,
} from '../../pkg/shared/kube/index.ts';
import { staticKindScopes, type PolicyRule } from '../../pkg/operator-controller/render/index.ts';
import {
  applyAll,
  deleteAndWait,
  deleteClusterScoped,
  droppedObjects,
  installRelease,
  loadBundleDir,
  nextMultiCrdVersion,
  prepareRelease,
  refOf,
  uniqueMultiCrdBundle,
  upgradeRelease,
  waitUntil,
  writeBundleDir,
  type Release,
} from '../support/bundle-flow.ts';

const RUN = randomBytes(3).toString('hex');
const EXT = `acme-${RUN}`;
const NS = `preauth-${RUN}`;
const WATCH = `preauth-${RUN}-watch`;
const SA = 'installer';

let kube: KubeContext;
let admin: KubeClient;
let scoped: ScopedClientFactory;
let sa: KubeClient;
let tmp: string;
let v1: Release & { input: PreAuthorizeInput };
let v2: Release & { input: PreAuthorizeInput };

/** A client acting as the ServiceAccount that counts the requests it makes. */
function counting(client: KubeClient): { client: KubeClient; count: () => number } {
  let n = 0;
  const transport: Transport = {
    identity: client.transport.identity,
    request<T>(method: string, path: string, options?: RequestOptions): Promise<T> {
      n++;
      return client.transport.request<T>(method, path, options);
    },
    stream: (method, path, options) => client.transport.stream(method, path, options),
  };
  return { client: { ...client, transport }, count: () => n };
}

async function release(dir: string): Promise<Release & { input: PreAuthorizeInput }> {
  const rel = await prepareRelease(dir, { installNamespace: NS, watchNamespace: WATCH, serviceAccount: SA, extension: EXT });
  const bundle = await loadBundleDir(dir);
  const input: PreAuthorizeInput = {
    objects: rel.objects,
    installNamespace: NS,
    serviceAccountName: SA,
    bundleName: bundle.csv.metadata?.name ?? '',
    mapper: staticKindScopes(bundle.crds),
  };
  return { ...rel, input };
}

beforeAll(async () => {
  kube = await connect({ kind: 'file', path: inject('envtestControlPlane').kubeconfigPath });
  admin = kube.client;
  for (const name of [NS, WATCH]) await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await admin.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SA, namespace: NS } });
  scoped = createScopedClientFactory({ base: kube.connection, mapper: kube.mapper, tokens: new TokenGetter({ client: admin }) });
  sa = scoped.forServiceAccount(NS, SA);
  tmp = await mkdtemp(join(tmpdir(), 'preauthorize-'));
  // v2: a new CSV version without the metrics Service (dropped by the upgrade).
  const base = await uniqueMultiCrdBundle(RUN);
  const next = nextMultiCrdVersion(base, RUN);
  v1 = await release(await writeBundleDir(join(tmp, 'v1'), base));
  const r2 = await release(await writeBundleDir(join(tmp, 'v2'), next));
  v2 = { ...r2, input: { ...r2.input, dropped: droppedObjects(v1.objects, r2.objects) } };
});

afterAll(async () => {
  scoped?.close();
  if (admin !== undefined)
    await deleteClusterScoped(
      admin,
      [v1, v2].filter((r) => r !== undefined),
    );
  kube?.close();
  if (tmp !== undefined) await rm(tmp, { recursive: true, force: true });
});

// ---- permissions as sets of atoms -------------------------------------------------------

const rulesOf = (role: KubeObject): PolicyRule[] => (role['rules'] as PolicyRule[] | undefined) ?? [];
const isRole = (o: KubeObject): boolean => o.kind === 'Role' || o.kind === 'ClusterRole';

/** The atoms a printed Role/ClusterRole grants, keyed. */
function grantedBy(roles: readonly KubeObject[]): Map<string, Atom> {
  const out = new Map<string, Atom>();
  for (const role of roles.filter(isRole)) {
    for (const rule of rulesOf(role)) for (const a of atomsOfRule(rule, role.metadata.namespace ?? '')) out.set(atomKey(a), a);
  }
  return out;
}

/** The atoms a check result reports missing, keyed (the inverse of its grouping). */
function missingAtoms(missing: readonly MissingPermission[]): Set<string> {
  const out = new Set<string>();
  for (const m of missing) {
    const rule: PolicyRule =
      m.nonResourceURLs === undefined
        ? {
            apiGroups: [m.apiGroup],
            resources: [m.resource],
            verbs: m.verbs,
            ...(m.resourceNames.length > 0 ? { resourceNames: m.resourceNames } : {}),
          }
        : { nonResourceURLs: m.nonResourceURLs, verbs: m.verbs };
    for (const a of atomsOfRule(rule, m.namespace)) out.add(atomKey(a));
  }
  return out;
}

function accessOf(a: Atom): AccessAttributes {
  if (a.url !== undefined) return { verb: a.verb, path: a.url };
  const [resource, subresource] = a.resource.split('/');
  return { verb: a.verb, group: a.group, resource: resource ?? '', subresource: subresource ?? '', name: a.name, namespace: a.namespace };
}

/** Waits until SubjectAccessReviews (admin) say every atom is allowed (`want`) or denied. */
async function waitForRbac(atoms: Iterable<Atom>, want: boolean): Promise<void> {
  const list = [...atoms];
  await waitUntil(`RBAC ${want ? 'grants' : 'denies'} ${list.length} permissions`, async () => {
    const decisions = await canI(admin, serviceAccountSubject(NS, SA), list.map(accessOf));
    return decisions.every((d) => d.allowed === want);
  });
}

async function grant(rbac: readonly KubeObject[]): Promise<void> {
  await applyAll(admin, rbac);
  await waitForRbac(grantedBy(rbac).values(), true);
}

const fix = { bundleImage: `registry.example.com/acme-${RUN}-bundle:v1.2.0`, installNamespace: NS, watchNamespace: WATCH, serviceAccountName: SA };

// ---- the flow ------------------------------------------------------------------------------

describe('preAuthorize against the real API server', () => {
  it('with no permissions, reports exactly what olmv1 rbac prints, in one request per namespace plus one', async () => {
    const { client, count } = counting(sa);
    const missing = await preAuthorize(client, v1.input);
    expect(count()).toBe(3); // rules reviews: the install namespace, the watched namespace, cluster-wide
    expect(missingAtoms(missing)).toEqual(new Set(grantedBy(v1.rbac).keys()));

    const message = formatMissingPermissions(missing);
    const lines = message.split('\n');
    expect(lines[0]).toBe('pre-authorization failed: service account requires the following permissions to manage cluster extension:');
    const crds = ['gadgets', 'gizmos', 'widgets'].map((k) => `${k}.w${RUN}.acme.example.com`).join(',');
    expect(lines).toContain(
      `  Namespace:"" APIGroups:[apiextensions.k8s.io] Resources:[customresourcedefinitions] ResourceNames:[${crds}] Verbs:[create,get,patch]`,
    );
    expect(lines).toContain('  Namespace:"" APIGroups:[apiextensions.k8s.io] Resources:[customresourcedefinitions] Verbs:[list,watch]');
    // Rules of the bundle's ClusterRoles (escalation check), cluster-wide.
    expect(lines).toContain('  Namespace:"" APIGroups:[authentication.k8s.io] Resources:[tokenreviews] Verbs:[create]');
    expect(lines).toContain(`  Namespace:"" APIGroups:[w${RUN}.acme.example.com] Resources:[gizmos/status] Verbs:[get,list,patch,update,watch]`);
    expect(lines).toContain('  Namespace:"" Verbs:[get] NonResourceURLs:[/metrics]');
    // Rules of the bundle's Roles, in the watched namespace; named objects in the install namespace.
    expect(lines).toContain(`  Namespace:"${WATCH}" APIGroups:[apps] Resources:[deployments] Verbs:[*]`);
    expect(lines).toContain(
      `  Namespace:"${NS}" APIGroups:[apps] Resources:[deployments] ResourceNames:[acme-${RUN}-controller-manager] Verbs:[create,delete,get,patch]`,
    );
    // Upstream's text: its line, then the permissions sorted; the fix is the Event's advice.
    expect(lines.slice(1)).toEqual(lines.slice(1).sort());
    expect(missingPermissionsAdvice(missing, fix).split('\n')).toEqual([
      `grant them with the RBAC printed by: olmv1 rbac ${fix.bundleImage} --install-namespace ${NS} --watch-namespace ${WATCH} --service-account ${SA}`,
      // The bundle's Role grants every verb on Deployments: flagged before the administrator grants it.
      `warning: 1 of these grants amounts to privilege escalation (apps/deployments in "${WATCH}": "*" in verbs); review them before granting`,
    ]);
    console.info(
      `preauthorize: ${missingAtoms(missing).size} missing permissions in ${missing.length} lines, ${Buffer.byteLength(message)} bytes:\n${message}`,
    );
  });

  it('with exactly the printed RBAC, reports nothing, and the install as the ServiceAccount succeeds', async () => {
    await grant(v1.rbac);
    const { client, count } = counting(sa);
    expect(await preAuthorize(client, v1.input)).toEqual([]);
    expect(count()).toBe(3);
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      const start = performance.now();
      expect(await preAuthorize(sa, v1.input)).toEqual([]);
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    console.info(
      `preauthorize: one check (3 requests) takes ${times[0]?.toFixed(1)}-${times.at(-1)?.toFixed(1)} ms, median ${times[5]?.toFixed(1)} ms`,
    );
    await installRelease(sa, v1.objects);
  });

  it('with one printed Role deleted, reports exactly the permissions of that Role', async () => {
    await grant(v1.rbac); // as the test above leaves it
    const role = v1.rbac.find((o) => o.kind === 'Role' && o.metadata.namespace === WATCH) as KubeObject;
    const atoms = grantedBy([role]);
    await deleteAndWait(admin, role);
    await waitForRbac(atoms.values(), false);
    try {
      const missing = await preAuthorize(sa, v1.input);
      expect(missingAtoms(missing)).toEqual(new Set(atoms.keys()));
      expect(missing.every((m) => m.namespace === WATCH)).toBe(true);
    } finally {
      await grant([role]);
    }
    expect(await preAuthorize(sa, v1.input)).toEqual([]);
  });

  it("upgrade: deleting the dropped objects needs delete on each, which v1's RBAC grants", async () => {
    const dropped = v2.input.dropped ?? [];
    // The metrics Service, and the bundle's permission objects (their names derive from the CSV name).
    expect(dropped.map((o) => o.kind).sort()).toEqual(['ClusterRole', 'ClusterRoleBinding', 'Role', 'Role', 'RoleBinding', 'RoleBinding', 'Service']);
    // v1 granted and installed, as the tests above leave it.
    await grant(v1.rbac);
    await installRelease(sa, v1.objects);
    await grant(v2.rbac);
    expect(await preAuthorize(sa, v2.input)).toEqual([]);

    const v1Rbac = v1.rbac.filter((o) => o.kind !== 'ServiceAccount');
    for (const obj of v1Rbac) await deleteAndWait(admin, obj);
    const deletes = new Map<string, Atom>();
    for (const o of dropped) {
      const r = v2.input.mapper(o.apiVersion, o.kind);
      if (r === undefined) throw new Error(`no mapping for ${o.kind}`);
      const a: Atom = {
        namespace: r.namespaced ? (o.metadata.namespace ?? '') : '',
        verb: 'delete',
        group: r.group,
        resource: r.resource,
        name: o.metadata.name ?? '',
      };
      deletes.set(atomKey(a), a);
    }
    await waitForRbac(deletes.values(), false);
    const missing = await preAuthorize(sa, v2.input);
    expect(missingAtoms(missing)).toEqual(new Set(deletes.keys()));
    expect(missing).toContainEqual({ namespace: NS, apiGroup: '', resource: 'services', resourceNames: [`acme-${RUN}-metrics`], verbs: ['delete'] });
    console.info(`preauthorize, upgrade with v2's RBAC only:\n${formatMissingPermissions(missing)}`);
    // Without the dropped objects, v2's own RBAC is enough.
    expect(await preAuthorize(sa, { ...v2.input, dropped: [] })).toEqual([]);

    await grant(v1Rbac);
    expect(await preAuthorize(sa, v2.input)).toEqual([]);
    await upgradeRelease(sa, v1.objects, v2.objects);
    for (const o of dropped) await expect(admin.get(refOf(o))).rejects.toSatisfy(isNotFound);
  });
});
