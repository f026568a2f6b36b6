/**
 * What "the job is finished" means for an extension after crashes and restarts, checked on the
 * cluster: its release records (no revision left pending, no duplicate, every Secret part of a
 * recorded revision) and its objects (exactly the deployed revision's, plus CRDs kept on purpose).
 */
import { expect } from 'vitest';
import { OWNER_NAME_LABEL } from '../../pkg/shared/api/index.ts';
import { describeObject } from '../../pkg/operator-controller/applier/index.ts';
import type { KubeClient, KubeObject } from '../../pkg/shared/kube/index.ts';
import { Label, createReleaseStore, keyLabelValue, releaseKey, type Release } from '../../pkg/operator-controller/release/index.ts';

const SYSTEM_NAMESPACE = 'olmv1-system';

/** Every kind the generated bundles (test/support/bundle-gen.ts) render to. */
const KINDS = [
  { apiVersion: 'v1', kind: 'ConfigMap' },
  { apiVersion: 'v1', kind: 'Service' },
  { apiVersion: 'v1', kind: 'ServiceAccount' },
  { apiVersion: 'apps/v1', kind: 'Deployment' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' },
  { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' },
];

/** The live objects carrying the owner label of `extension`, as `Kind ns/name`, sorted. */
export async function ownedObjects(client: KubeClient, extension: string): Promise<{ names: string[]; objects: KubeObject[] }> {
  const objects: KubeObject[] = [];
  for (const kind of KINDS) {
    // List items carry no apiVersion and kind of their own.
    const { items } = await client.listAll(kind, { labelSelector: `${OWNER_NAME_LABEL}=${extension}` });
    objects.push(...items.map((o) => ({ ...o, ...kind })));
  }
  return { names: objects.map(describeObject).sort(), objects };
}

/**
 * Asserts the records and objects of `extension`: revisions and statuses exactly `revisions`
 * (newest first); one index Secret per revision and no other Secret than chunks of those
 * revisions (with `split`, each revision spans two Secrets or more); the live objects exactly the
 * deployed manifest plus the CRDs it kept. Returns the history.
 */
export async function expectSettled(
  client: KubeClient,
  extension: string,
  revisions: [number, string][],
  options: { split?: boolean } = {},
): Promise<Release[]> {
  const history = await createReleaseStore({ client, namespace: SYSTEM_NAMESPACE }).history(extension);
  expect(
    history.map((r) => [r.revision, r.status]),
    `${extension} revisions`,
  ).toEqual(revisions);

  const secrets = (
    await client.listAll({ apiVersion: 'v1', kind: 'Secret' }, { namespace: SYSTEM_NAMESPACE, labelSelector: `${Label.name}=${extension}` })
  ).items;
  const indexes = secrets.filter((s) => s.metadata.labels?.[Label.type] === 'index');
  const keys = history.map((r) => releaseKey(extension, r.revision));
  expect(indexes.map((s) => s.metadata.name).sort(), `${extension} index Secrets`).toEqual([...keys].sort());
  const chunkKeys = secrets.filter((s) => s.metadata.labels?.[Label.type] !== 'index').map((s) => s.metadata.labels?.[Label.key]);
  // A chunk a crash left unreferenced still belongs to (and is owned by) a recorded revision.
  const keyLabels = keys.map(keyLabelValue);
  for (const key of chunkKeys) expect(keyLabels, `${extension}: chunk of an unknown revision`).toContain(key);
  if (options.split === true) {
    for (const index of indexes) {
      const extra = JSON.parse(Buffer.from((index['data'] as Record<string, string>)['extraChunks'] ?? '', 'base64').toString()) as string[];
      expect(extra.length, `${index.metadata.name} is split`).toBeGreaterThanOrEqual(1);
    }
  }

  const deployed = history.find((r) => r.status === 'deployed');
  if (deployed === undefined) throw new Error(`${extension} has no deployed revision`);
  const expected = [...deployed.manifest.map(describeObject), ...(deployed.notes?.keptObjects ?? [])].sort();
  expect((await ownedObjects(client, extension)).names, `${extension} objects`).toEqual(expected);
  return history;
}
