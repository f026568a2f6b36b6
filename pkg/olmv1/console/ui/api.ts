/** The browser's view of the console API (types mirror ../hub-index.ts and ../extensions.ts). */
import type { ExtensionRow } from '../extensions.ts';
import type { HubTile, PackageDetail } from '../hub-index.ts';

export type Tile = HubTile & { installed: boolean };
export type Detail = PackageDetail & { installed: boolean };
export type { ExtensionRow };

/** GETs a JSON document of the console API; throws with the server's error text. */
export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(path, { credentials: 'same-origin', ...(signal === undefined ? {} : { signal }) });
  const body = (await res.json().catch(() => ({}))) as { error?: string };
  if (!res.ok) throw new Error(body.error ?? `${res.status} ${res.statusText}`);
  return body as T;
}

/** The icon URL of a package. */
export function iconUrl(t: { catalog: string; name: string }): string {
  return `/api/icons/${encodeURIComponent(t.catalog)}/${encodeURIComponent(t.name)}`;
}

/** The page address of a package. */
export function packageHref(t: { catalog: string; name: string }): string {
  return `#/package/${encodeURIComponent(t.catalog)}/${encodeURIComponent(t.name)}`;
}
