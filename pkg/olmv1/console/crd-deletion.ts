/**
 * The uninstall page's opt-in "also delete the CustomResourceDefinitions" (issue 63 item 4),
 * pure: the preview the page shows, read from the uninstall service's value (pkg/olmv1/uninstall,
 * as `olmv1 uninstall NAME --delete-crds` computes it), with a digest the confirmation sends back
 * so the server deletes only what the user saw. The computation, the refusals and the deletion
 * are the service's.
 */
import { createHash } from 'node:crypto';
import type { DeletionPreview } from '../crd-deletion/index.ts';
import type { UninstallOutcome } from '../uninstall/index.ts';

/** One CRD that would be (or was) deleted, with its custom resources per namespace ('' cluster-scoped). */
interface CrdDeletionRow {
  name: string;
  group: string;
  kind: string;
  scope: string;
  customResources: { namespace: string; count: number }[];
}

/** What `--delete-crds` deletes, as the page shows it; `digest` identifies exactly this list. */
export interface CrdDeletionView {
  extension: string;
  customResourceDefinitions: CrdDeletionRow[];
  digest: string;
}

/** The digest of a list of CRDs with their counts: equal digests, equal lists. */
export function crdDeletionDigest(rows: readonly CrdDeletionRow[]): string {
  return createHash('sha256').update(JSON.stringify(rows)).digest('base64url');
}

/** The page's view of a preview (or of what was deleted). */
function crdDeletionView(extension: string, p: DeletionPreview | undefined): CrdDeletionView {
  const rows = (p?.crds ?? []).map((c) => ({
    name: c.name,
    group: c.group,
    kind: c.kind,
    scope: c.scope,
    customResources: c.customResources.map((n) => ({ namespace: n.namespace, count: n.count })),
  }));
  return { extension, customResourceDefinitions: rows, digest: crdDeletionDigest(rows) };
}

/** The view of the service's preview or deletion, or its own message (a refusal names who owns or uses a CRD). */
export function crdDeletionOutcome(out: UninstallOutcome): { ok: true; view: CrdDeletionView } | { ok: false; error: string } {
  if (!out.ok) return { ok: false, error: out.error.message };
  return { ok: true, view: crdDeletionView(out.value.extension, out.value.crds) };
}
