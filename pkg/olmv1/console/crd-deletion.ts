/**
 * The uninstall page's opt-in "also delete the CustomResourceDefinitions" (issue 63 item 4),
 * pure: the command lines of `olmv1 uninstall NAME --delete-crds -o json` (the preview) and of
 * `--yes` (the deletion), and the preview the page shows, read from the command's JSON, with a
 * digest the confirmation sends back so the server deletes only what the user saw. The
 * computation, the refusals and the deletion are the CLI's own (cmd/olmv1/uninstall.ts).
 */
import { createHash } from 'node:crypto';
import { failureText, type CommandRun } from './admin.ts';

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

/**
 * The arguments of `olmv1 uninstall` for the console: `--keep-rbac` because the console's
 * uninstall keeps the installer's ServiceAccount and RBAC (its preview says so); the name after
 * `--`, so it is never read as a flag.
 */
export function uninstallCrdsArgs(name: string, yes: boolean): string[] {
  return ['--delete-crds', '--output=json', '--keep-rbac', ...(yes ? ['--yes', '--timeout=2m'] : []), '--', name];
}

/** The digest of a list of CRDs with their counts: equal digests, equal lists. */
export function crdDeletionDigest(rows: readonly CrdDeletionRow[]): string {
  return createHash('sha256').update(JSON.stringify(rows)).digest('base64url');
}

const rec = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The view of a run of `olmv1 uninstall --delete-crds -o json`, or the command's own message (a refusal names who owns or uses a CRD). */
export function crdDeletionOutcome(run: CommandRun): { ok: true; view: CrdDeletionView; log: string } | { ok: false; error: string } {
  if (run.code !== 0) return { ok: false, error: failureText(run, 'uninstall --delete-crds') };
  let doc: Record<string, unknown>;
  try {
    doc = rec(JSON.parse(run.stdout));
  } catch {
    return { ok: false, error: `olmv1 uninstall --delete-crds printed no JSON document: ${failureText(run, 'uninstall --delete-crds')}` };
  }
  const list = Array.isArray(doc.customResourceDefinitions) ? doc.customResourceDefinitions.map(rec) : [];
  const rows = list.map((c) => ({
    name: str(c.name),
    group: str(c.group),
    kind: str(c.kind),
    scope: str(c.scope),
    customResources: (Array.isArray(c.customResources) ? c.customResources.map(rec) : []).map((n) => ({
      namespace: str(n.namespace),
      count: typeof n.count === 'number' ? n.count : 0,
    })),
  }));
  return { ok: true, view: { extension: str(doc.extension), customResourceDefinitions: rows, digest: crdDeletionDigest(rows) }, log: run.stderr };
}
