/** The browser's view of the console API (types mirror ../hub-index.ts and ../extensions.ts). */
import type { ExtensionDetail, ExtensionRow, ReleaseObjectsView, UninstallPreview } from '../extensions.ts';
import type { HubTile, PackageDetail } from '../hub-index.ts';
import type { CrdDeletionView } from '../crd-deletion.ts';

export type Tile = HubTile & { installed: boolean };
export type Detail = PackageDetail & { installed: boolean };
export type { CrdDeletionView, ExtensionDetail, ExtensionRow, ReleaseObjectsView, UninstallPreview };

/** Thrown by getJson and postJson: the server's error text, with the HTTP status. */
export class ApiFailure extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** GETs a JSON document of the console API; throws with the server's error text. */
export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(path, { credentials: 'same-origin', ...(signal === undefined ? {} : { signal }) });
  const body = (await res.json().catch(() => ({}))) as { error?: string };
  if (!res.ok) throw new ApiFailure(res.status, body.error ?? `${res.status} ${res.statusText}`);
  return body as T;
}

let csrf: Promise<string> | undefined;

/** POSTs a JSON body with the session's CSRF token (the server refuses writes without it); throws with the server's error text. */
export async function postJson<T>(path: string, body: unknown): Promise<T> {
  csrf ??= getJson<{ csrfToken: string }>('/api/session').then((s) => s.csrfToken);
  const res = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'x-csrf-token': await csrf },
    body: JSON.stringify(body),
  });
  const answer = (await res.json().catch(() => ({}))) as { error?: string };
  if (!res.ok) throw new ApiFailure(res.status, answer.error ?? `${res.status} ${res.statusText}`);
  return answer as T;
}

/** The page address of a package's install form. */
export function installHref(t: { catalog: string; name: string }): string {
  return `#/install/${encodeURIComponent(t.catalog)}/${encodeURIComponent(t.name)}`;
}

/** The page address of a ClusterExtension's detail. */
export function extensionHref(name: string): string {
  return `#/installed/${encodeURIComponent(name)}`;
}

/** The icon URL of a package. */
export function iconUrl(t: { catalog: string; name: string }): string {
  return `/api/icons/${encodeURIComponent(t.catalog)}/${encodeURIComponent(t.name)}`;
}

/** The page address of a package. */
export function packageHref(t: { catalog: string; name: string }): string {
  return `#/package/${encodeURIComponent(t.catalog)}/${encodeURIComponent(t.name)}`;
}
