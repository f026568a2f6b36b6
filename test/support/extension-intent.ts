/**
 * What the cluster shows of a ClusterExtension against what its last write asked (an installed
 * version, or gone): its conditions at its generation, its release records (one deployed
 * revision, the older ones superseded; test/support/release-invariants.ts) and a footprint of
 * its objects and records that any write changes. For the fault tests on a node.
 */
import { expect } from 'vitest';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { SYSTEM_NAMESPACE } from '../../pkg/olmv1/in-cluster/index.ts';
import { isNotFound, type KubeClient, type KubeObject } from '../../pkg/shared/kube/index.ts';
import type { Intent } from './change-stream.ts';
import { ownedObjects } from './release-invariants.ts';

const CE = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind };

/** The condition `type` of `o`. */
export function conditionOf(
  o: KubeObject,
  type: string,
): { status: string; reason: string; message: string; observedGeneration?: number } | undefined {
  return (
    (o.status as Record<string, unknown> | undefined)?.['conditions'] as
      Array<{ type: string; status: string; reason: string; message: string; observedGeneration?: number }> | undefined
  )?.find((c) => c.type === type);
}

const releaseSelector = (name: string): string => `owner=operator-controller,name=${name}`;

/** What still differs from `intent` for `name`: nothing ([]) once it is reflected. */
export async function lagging(client: KubeClient, name: string, intent: Intent): Promise<string[]> {
  const ext = await client.get({ ...CE, name }).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
  if ('deleted' in intent) {
    if (ext !== undefined) return [`${name}: still present${ext.metadata.deletionTimestamp === undefined ? '' : ' (terminating)'}`];
    const records = (
      await client.listAll({ apiVersion: 'v1', kind: 'Secret' }, { namespace: SYSTEM_NAMESPACE, labelSelector: releaseSelector(name) })
    ).items;
    const objects = (await ownedObjects(client, name)).names;
    return records.length + objects.length === 0 ? [] : [`${name}: deleted but ${records.length} records and ${objects.join(', ')} remain`];
  }
  if (ext === undefined) return [`${name}: missing`];
  const generation = ext.metadata.generation;
  const conditions = ((ext.status as Record<string, unknown> | undefined)?.['conditions'] ?? []) as Array<{
    type: string;
    observedGeneration?: number;
  }>;
  const version = ((ext.status as Record<string, unknown> | undefined)?.['install'] as { bundle?: { version?: string } } | undefined)?.bundle
    ?.version;
  const out: string[] = [];
  if (conditions.length === 0 || conditions.some((c) => c.observedGeneration !== generation))
    out.push(`${name}: conditions not at generation ${generation}`);
  if (conditionOf(ext, 'Installed')?.status !== 'True' || version !== intent.version)
    out.push(`${name}: installed ${version}, wants ${intent.version}`);
  if (conditionOf(ext, 'Progressing')?.reason !== 'Succeeded') out.push(`${name}: Progressing ${conditionOf(ext, 'Progressing')?.reason}`);
  return out;
}

/** The revisions and statuses the records of `name` hold, newest first (what expectSettled then checks the Secrets and objects against). */
export async function revisionsOf(client: KubeClient, name: string): Promise<[number, string][]> {
  const secrets = (await client.listAll({ apiVersion: 'v1', kind: 'Secret' }, { namespace: SYSTEM_NAMESPACE, labelSelector: releaseSelector(name) }))
    .items;
  const revisions = secrets
    .filter((s) => s.metadata.labels?.['type'] === 'index')
    .map((s) => [Number(s.metadata.labels?.['version']), s.metadata.labels?.['status'] ?? ''] as [number, string])
    .sort((a, b) => b[0] - a[0]);
  // Exactly one deployed revision, the newest; the older ones superseded.
  expect(
    revisions.map(([, s]) => s),
    `${name} statuses`,
  ).toEqual(['deployed', ...revisions.slice(1).map(() => 'superseded')]);
  return revisions;
}

/** The objects and release records of `name` with everything a write changes (resourceVersion, managedFields). */
export async function footprint(client: KubeClient, name: string): Promise<string[]> {
  const secrets = (await client.listAll({ apiVersion: 'v1', kind: 'Secret' }, { namespace: SYSTEM_NAMESPACE, labelSelector: releaseSelector(name) }))
    .items;
  const objects = (await ownedObjects(client, name)).objects;
  return [...secrets, ...objects]
    .map(
      (o) => `${o.kind ?? 'Secret'} ${o.metadata.name} ${o.metadata.uid} ${o.metadata.resourceVersion} ${JSON.stringify(o.metadata.managedFields)}`,
    )
    .sort();
}
