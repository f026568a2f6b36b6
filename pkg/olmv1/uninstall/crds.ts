/**
 * The deletion of an uninstalled extension's CustomResourceDefinitions (decision 0119): each CRD
 * previewed is deleted only if it is still the one read with the extension's owner labels (its
 * custom resources go with it), then waited for with a bound. Custom resources whose finalizers
 * never clear are reported, never stripped. Refusals and failures are values, in the command's words.
 */
import { OWNER_KIND_LABEL, OWNER_NAME_LABEL } from '../../shared/api/index.ts';
import { err, errorMessage, ok, type Result } from '../../shared/errors/index.ts';
import { isForbidden, isNotFound, isUnauthorized, type KubeClient } from '../../shared/kube/index.ts';
import { CRD_TYPE, type CrdToDelete, type DeletionPreview } from '../crd-deletion/index.ts';
import type { UninstallEvent } from './types.ts';
import { pollUntilDone, type PollClock } from '../../shared/poll/index.ts';

/** How many custom resources of `c` the preview counted. */
export const customResourceCount = (c: CrdToDelete): number => c.customResources.reduce((n, x) => n + x.count, 0);

/** The refusal naming every CRD refused and who owns or uses it (nothing has been deleted); undefined when none is. */
export function crdRefusal(p: DeletionPreview): string | undefined {
  if (p.refusals.length === 0) return undefined;
  const lines = p.refusals.map((r) => `  CustomResourceDefinition ${r.crd}: ${r.reason}`);
  return `refusing to delete the CustomResourceDefinitions of ClusterExtension ${JSON.stringify(p.extension)}; nothing was deleted:\n${lines.join('\n')}`;
}

/** The API server's own words for a failure, saying when it refused the caller's identity. */
function serverSays(what: string, e: unknown): string {
  return `${what}: ${errorMessage(e)}${isForbidden(e) || isUnauthorized(e) ? ' (nothing further was deleted)' : ''}`;
}

/** Deletes the previewed CRDs and waits up to `timeoutMs` for them to go (see the file comment). */
export async function deleteCrds(
  client: Pick<KubeClient, 'get' | 'delete' | 'listAll'>,
  p: DeletionPreview,
  timeoutMs: number,
  clock: PollClock,
  report: (e: UninstallEvent) => void,
): Promise<Result<void, string>> {
  const pending: CrdToDelete[] = [];
  for (const c of p.crds) {
    let live;
    try {
      live = await client.get({ ...CRD_TYPE, name: c.name });
    } catch (e) {
      if (isNotFound(e)) continue;
      return err(serverSays(`error reading CustomResourceDefinition ${c.name}`, e));
    }
    const labels = live.metadata.labels ?? {};
    if (live.metadata.uid !== c.uid || labels[OWNER_KIND_LABEL] !== 'ClusterExtension' || labels[OWNER_NAME_LABEL] !== p.extension) {
      return err(
        `CustomResourceDefinition ${c.name} changed since the preview (another install took it, or it was made anew): not deleted; nothing further was deleted`,
      );
    }
    try {
      // Preconditioned on the CRD read, so a same-named CRD created since is never deleted.
      await client.delete({ ...CRD_TYPE, name: c.name }, { preconditions: { uid: c.uid } });
    } catch (e) {
      if (isNotFound(e)) continue;
      return err(serverSays(`error deleting CustomResourceDefinition ${c.name}`, e));
    }
    report({ type: 'deletingCrd', name: c.name, customResources: customResourceCount(c) });
    pending.push(c);
  }
  let failure: string | undefined;
  const look = async (): Promise<CrdToDelete[]> => {
    const left: CrdToDelete[] = [];
    for (const c of pending) {
      try {
        const live = await client.get({ ...CRD_TYPE, name: c.name });
        if (live.metadata.uid === c.uid) left.push(c);
      } catch (e) {
        if (isNotFound(e)) continue;
        failure = serverSays(`error reading CustomResourceDefinition ${c.name}`, e);
        return [];
      }
    }
    return left;
  };
  const left = await pollUntilDone(
    timeoutMs,
    look,
    (l) => (l.length === 0 ? undefined : l.map((c) => c.name).join(', ')),
    (state) => report({ type: 'waiting', for: 'crds', extension: p.extension, state }),
    clock,
  );
  if (failure !== undefined) return err(failure);
  if (left.length === 0) return ok(undefined);
  const held: string[] = [];
  for (const c of left) held.push(`  CustomResourceDefinition ${c.name}: ${await heldBy(client, c)}`);
  return err(
    `still there after ${Math.round(timeoutMs / 1000)} s (finalizers are not removed: the controller that set them may be gone; ` +
      `remove them yourself only if nothing outside the cluster needs cleaning up):\n${held.join('\n')}`,
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
