// Drift watches under RBAC from before decision 0109, end to end: operator-controller runs in this
// process as a ServiceAccount bound to config/rbac's grants without list/watch of ClusterRoles and
// ClusterRoleBindings (an administrator who upgraded operator-controller but not its RBAC). CRDs,
// which it may still watch, are watched once for all extensions; ClusterRoles and
// ClusterRoleBindings per extension as its ServiceAccount, and their drift is still repaired.
// The file has its own control plane: the watch count is cluster-wide, and extensions other files
// left on the shared one would add to it.
import { randomBytes } from 'node:crypto';
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { useOwnControlPlane } from '../support/own-control-plane.ts';
import { connect, isNotFound, type KubeContext, type KubeObject, type ObjectRef } from '../../pkg/shared/kube/index.ts';
import { createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import { ensureServiceAccount, requestServiceAccountToken, serviceAccountKubeconfig } from '../envtest/index.ts';
import { waitUntil } from '../support/bundle-flow.ts';
import {
  applyAsAdmin,
  clusterExtension,
  installedAs,
  installerFor,
  offerPackage,
  startExtensionStack,
  waitForExtension,
  type BundleSpec,
  type ExtensionStack,
} from '../support/extensions.ts';
import { readMetric } from '../support/operator-controller.ts';

const run = randomBytes(3).toString('hex');
const SYSTEM = 'olmv1-system';
/** operator-controller's identity here, and the name of its roles and bindings. */
const IDENTITY = `oc-old-rbac-${run}`;
const specs: BundleSpec[] = ['a', 'b'].map((x) => ({ pkg: `fallback-${x}-${run}`, version: '1.0.0' }));
const RBAC = 'rbac.authorization.k8s.io';
const own = useOwnControlPlane();
let kube: KubeContext;
let stack: ExtensionStack;
let work: string;

/**
 * config/rbac/operator-controller.yaml for ServiceAccount IDENTITY, every object renamed to it,
 * without the grant of list/watch on ClusterRoles and ClusterRoleBindings.
 */
async function rbacWithoutSharedRoles(): Promise<KubeObject[]> {
  const text = await readFile(new URL('../../config/rbac/operator-controller.yaml', import.meta.url), 'utf8');
  const out: KubeObject[] = [];
  for (const doc of loadAll(text) as KubeObject[]) {
    if (doc.kind === 'ServiceAccount') continue;
    const obj = structuredClone(doc);
    obj.metadata.name = IDENTITY;
    if (obj.kind === 'ClusterRole') {
      const rules = obj['rules'] as { apiGroups: string[]; resources: string[] }[];
      const kept = rules.filter((r) => !(r.apiGroups.includes(RBAC) && r.resources.includes('clusterroles')));
      expect(kept).toHaveLength(rules.length - 1);
      obj['rules'] = kept;
    }
    if (obj.kind.endsWith('Binding')) {
      (obj['roleRef'] as { name: string }).name = IDENTITY;
      obj['subjects'] = [{ kind: 'ServiceAccount', name: IDENTITY, namespace: SYSTEM }];
    }
    out.push(obj);
  }
  return out;
}

beforeAll(async () => {
  const cp = own.info;
  kube = await connect({ kind: 'file', path: cp.kubeconfigPath });
  work = await mkdtemp(join(tmpdir(), 'drift-fallback-'));
  await ensureServiceAccount(cp, SYSTEM, IDENTITY);
  await applyAsAdmin(kube.client, await rbacWithoutSharedRoles());
  const kubeconfig = join(work, 'operator-controller.kubeconfig');
  await writeFile(kubeconfig, serviceAccountKubeconfig(cp, await requestServiceAccountToken(cp, SYSTEM, IDENTITY)));
  stack = await startExtensionStack(cp, inject('envtestRegistries').anonymous.host, { controller: { kubeconfig } });
  for (const spec of specs) {
    await installerFor(kube.client, spec.pkg, 'installer', [spec]);
    await offerPackage(stack, spec.pkg, [{ spec }]);
  }
  for (const spec of specs) {
    await kube.client.create(clusterExtension(spec.pkg, { namespace: spec.pkg, serviceAccount: 'installer', packageName: spec.pkg }));
  }
  for (const spec of specs) await waitForExtension(kube.client, spec.pkg, 'installed', installedAs(`${spec.pkg}.v1.0.0`));
});

afterAll(async () => {
  await stack?.stop();
  for (const kind of ['ClusterRoleBinding', 'ClusterRole'])
    await kube?.client.delete({ apiVersion: `${RBAC}/v1`, kind, name: IDENTITY }).catch(() => undefined);
  kube?.close();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

const metric = (name: string, labels: Record<string, string> = {}): Promise<number> => readMetric(stack.controller.healthUrl, name, labels);

/** The objects of `pkg`'s deployed release, and its watch targets (resource and namespace) other than CRDs. */
async function release(pkg: string): Promise<{ objects: readonly KubeObject[]; own: number }> {
  const [deployed] = await createReleaseStore({ client: kube.client, namespace: SYSTEM }).history(pkg);
  const objects = deployed?.manifest.objects() ?? [];
  const targets = new Set<string>();
  for (const obj of objects) {
    const info = await kube.client.resourceFor(obj);
    if (info.resource !== 'customresourcedefinitions')
      targets.add(`${info.group}/${info.resource}/${info.namespaced ? (obj.metadata.namespace ?? pkg) : ''}`);
  }
  return { objects, own: targets.size };
}

async function get(ref: ObjectRef): Promise<KubeObject | undefined> {
  return kube.client.get(ref).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
}

describe('drift watches without the shared grants on ClusterRoles and ClusterRoleBindings', () => {
  it('watches those kinds per extension as its ServiceAccount, CRDs once for all, and puts back a deleted ClusterRole', async () => {
    const [a, b] = await Promise.all(specs.map((s) => release(s.pkg)));
    for (const { objects } of [a, b] as { objects: readonly KubeObject[] }[]) {
      const kinds = new Set(objects?.map((o) => o.kind));
      for (const kind of ['CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding']) expect(kinds).toContain(kind);
    }
    // Each extension's own watches, ClusterRoles and ClusterRoleBindings included, and one CRD
    // informer for both (with the shipped grants it would be 3 shared, 2 fewer per extension).
    const watches = (a?.own ?? 0) + (b?.own ?? 0) + 1;
    let running = 0;
    await waitUntil(
      () => `${watches} drift watches running (${running} running)`,
      async () => (running = await metric('operator_controller_drift_watches')) === watches,
    );
    expect(await metric('informer_list_errors_total', { name: 'drift' })).toBe(0);
    expect(await metric('informer_list_errors_total', { name: 'drift-shared' })).toBe(0);
    expect(await metric('informer_watch_errors_total', { name: 'drift-shared' })).toBe(0);

    const role = b?.objects.find((o) => o.kind === 'ClusterRole');
    const ref: ObjectRef = { apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', name: role?.metadata.name ?? '' };
    const before = await get(ref);
    expect(before).toBeDefined();
    // A departure is counted as `delete`, or as `missing` when its watch (re)listed meanwhile.
    const departures = async (): Promise<number> =>
      (await metric('operator_controller_drift_events_total', { event: 'delete' })) +
      (await metric('operator_controller_drift_events_total', { event: 'missing' }));
    const deletes = await departures();
    await kube.client.delete(ref);
    await waitUntil('the ClusterRole put back', async () => {
      const after = await get(ref);
      return after !== undefined && after.metadata.uid !== before?.metadata.uid;
    });
    expect(await departures()).toBeGreaterThan(deletes);
  });
});
