/**
 * `olmv1 uninstall NAME --delete-crds` (decision 0119): the preview as a table or JSON, the
 * refusal, and after the extension is uninstalled the deletion of the previewed CRDs (which takes
 * their custom resources with them), waited for with progress and a bound. Custom resources whose
 * finalizers never clear are reported, never stripped.
 */
import { OWNER_KIND_LABEL, OWNER_NAME_LABEL } from '../../pkg/shared/api/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { isForbidden, isNotFound, isUnauthorized, type KubeClient } from '../../pkg/shared/kube/index.ts';
import { CRD_TYPE, previewSummary, type CrdToDelete, type DeletionPreview } from '../../pkg/olmv1/crd-deletion/index.ts';
import { type Clock, type CommandIO, EXIT, poll, table } from './io.ts';
import { CommandError } from './render.ts';

const total = (c: CrdToDelete): number => c.customResources.reduce((n, x) => n + x.count, 0);

/** The preview (or summary) as a table: one row per CRD and namespace; '-' for none, '(cluster)' for cluster-scoped ones. */
export function crdTable(p: DeletionPreview): string {
  const rows = [['CUSTOMRESOURCEDEFINITION', 'KIND', 'NAMESPACE', 'CUSTOM RESOURCES']];
  for (const c of p.crds) {
    if (c.customResources.length === 0) rows.push([c.name, c.kind, '-', '0']);
    for (const n of c.customResources) rows.push([c.name, c.kind, n.namespace === '' ? '(cluster)' : n.namespace, String(n.count)]);
  }
  return table(rows);
}

/** `N CustomResourceDefinitions and M custom resources`. */
export function crdCounts(p: DeletionPreview): string {
  const crs = p.crds.reduce((n, c) => n + total(c), 0);
  return `${p.crds.length} CustomResourceDefinition${p.crds.length === 1 ? '' : 's'} and ${crs} custom resource${crs === 1 ? '' : 's'}`;
}

/** The JSON document of `-o json`: the preview, or with `deleted: true` the summary. */
export function crdJson(p: DeletionPreview, deleted: boolean): string {
  return `${JSON.stringify({ ...previewSummary(p), deleted }, null, 2)}\n`;
}

/** Throws the refusal naming every CRD refused and who owns or uses it; nothing has been deleted. */
export function refuse(p: DeletionPreview): void {
  if (p.refusals.length === 0) return;
  const lines = p.refusals.map((r) => `  CustomResourceDefinition ${r.crd}: ${r.reason}`);
  throw new CommandError(
    `refusing to delete the CustomResourceDefinitions of ClusterExtension ${JSON.stringify(p.extension)}; nothing was deleted:\n${lines.join('\n')}`,
    EXIT.failed,
  );
}

/** The API server's own words for a refusal of the caller's identity. */
function serverSays(what: string, e: unknown): CommandError {
  return new CommandError(`${what}: ${errorMessage(e)}${isForbidden(e) || isUnauthorized(e) ? ' (nothing further was deleted)' : ''}`, EXIT.failed);
}

/**
 * Deletes the previewed CRDs (each only if it is still the one read, with the extension's owner
 * labels), then waits up to `timeoutMs` for them to go. A refusal stops at once, naming the
 * server's message. What is still there at the bound is reported with the finalizers holding it.
 */
export async function deleteCrds(
  client: Pick<KubeClient, 'get' | 'delete' | 'listAll'>,
  p: DeletionPreview,
  timeoutMs: number,
  io: CommandIO,
  clock: Clock,
): Promise<void> {
  const pending: CrdToDelete[] = [];
  for (const c of p.crds) {
    let live;
    try {
      live = await client.get({ ...CRD_TYPE, name: c.name });
    } catch (e) {
      if (isNotFound(e)) continue;
      throw serverSays(`error reading CustomResourceDefinition ${c.name}`, e);
    }
    const labels = live.metadata.labels ?? {};
    if (live.metadata.uid !== c.uid || labels[OWNER_KIND_LABEL] !== 'ClusterExtension' || labels[OWNER_NAME_LABEL] !== p.extension) {
      throw new CommandError(
        `CustomResourceDefinition ${c.name} changed since the preview (another install took it, or it was made anew): not deleted; nothing further was deleted`,
        EXIT.failed,
      );
    }
    try {
      // Preconditioned on the CRD read, so a same-named CRD created since is never deleted.
      await client.delete({ ...CRD_TYPE, name: c.name }, { preconditions: { uid: c.uid } });
    } catch (e) {
      if (isNotFound(e)) continue;
      throw serverSays(`error deleting CustomResourceDefinition ${c.name}`, e);
    }
    io.stderr.write(`deleting CustomResourceDefinition ${c.name} and its ${total(c)} custom resources\n`);
    pending.push(c);
  }
  const look = async (): Promise<CrdToDelete[]> => {
    const left: CrdToDelete[] = [];
    for (const c of pending) {
      try {
        const live = await client.get({ ...CRD_TYPE, name: c.name });
        if (live.metadata.uid === c.uid) left.push(c);
      } catch (e) {
        if (!isNotFound(e)) throw serverSays(`error reading CustomResourceDefinition ${c.name}`, e);
      }
    }
    return left;
  };
  const left = await poll(
    'waiting for the CustomResourceDefinitions to go',
    timeoutMs,
    look,
    (l) => (l.length === 0 ? undefined : l.map((c) => c.name).join(', ')),
    io,
    clock,
  );
  if (left.length === 0) return;
  const held: string[] = [];
  for (const c of left) held.push(`  CustomResourceDefinition ${c.name}: ${await heldBy(client, c)}`);
  throw new CommandError(
    `still there after ${Math.round(timeoutMs / 1000)} s (finalizers are not removed: the controller that set them may be gone; ` +
      `remove them yourself only if nothing outside the cluster needs cleaning up):\n${held.join('\n')}`,
    EXIT.failed,
  );
}

/** Which custom resources of `c` are left and the finalizers holding them (the first few). */
async function heldBy(client: Pick<KubeClient, 'listAll' | 'get'>, c: CrdToDelete): Promise<string> {
  let items;
  try {
    const live = await client.get({ ...CRD_TYPE, name: c.name });
    const spec = (live.spec ?? {}) as { group?: string; versions?: { name?: string; served?: boolean; storage?: boolean }[] };
    const version = spec.versions?.find((v) => v.storage === true) ?? spec.versions?.[0];
    items = (await client.listAll({ apiVersion: `${c.group}/${version?.name ?? ''}`, kind: c.kind }, { metadataOnly: true })).items;
  } catch (e) {
    return `its custom resources could not be listed: ${errorMessage(e)}`;
  }
  const withFinalizers = items.filter((o) => (o.metadata.finalizers ?? []).length > 0);
  if (withFinalizers.length === 0) return `${items.length} custom resources left, none with finalizers`;
  const shown = withFinalizers
    .slice(0, 3)
    .map(
      (o) =>
        `${o.metadata.namespace === undefined ? '' : `${o.metadata.namespace}/`}${o.metadata.name ?? ''} (${(o.metadata.finalizers ?? []).join(', ')})`,
    );
  const more = withFinalizers.length > 3 ? `, and ${withFinalizers.length - 3} more` : '';
  return `${withFinalizers.length} custom resources wait for finalizers: ${shown.join(', ')}${more}`;
}
