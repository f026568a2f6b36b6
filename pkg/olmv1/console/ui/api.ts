/** The browser's view of the console API (types mirror ../hub-index.ts and ../extensions.ts). */
import type { ExtensionDetail, ExtensionRow, ReleaseObjectsView, UninstallPreview } from '../extensions.ts';
import type { HubTile, PackageDetail } from '../hub-index.ts';
import type { CrdDeletionView } from '../crd-deletion.ts';
import type { CatalogBadge } from '../catalog-badge.ts';
import { ICON_KEY_PARAM, PAGE_KEY_FRAGMENT, PAGE_KEY_HEADER } from './session-wire.ts';

export type Tile = HubTile & { installed: boolean };
/** A package's page: its catalog's badge when the console knows the catalog (catalog-badge.ts). */
export type Detail = PackageDetail & { installed: boolean; badge?: CatalogBadge };
export type { CatalogBadge };
export type { CrdDeletionView, ExtensionDetail, ExtensionRow, ReleaseObjectsView, UninstallPreview };

/** Thrown by getJson and postJson: the server's error text, with the HTTP status. */
export class ApiFailure extends Error {
  readonly status: number;
  /** The server said the object asked for is not there (`gone: true`), not merely that something failed with a 404. */
  readonly gone: boolean;
  /** The refusal's body as the server sent it (its flags, such as `community: true`); empty when none. */
  readonly answer: Readonly<Record<string, unknown>>;
  constructor(status: number, message: string, gone = false, answer: Readonly<Record<string, unknown>> = {}) {
    super(message);
    this.status = status;
    this.gone = gone;
    this.answer = answer;
  }
}

/**
 * Whether a failed read is worth reading again without a change: a failure of the console or of
 * the way to it (5xx, 408, 429, no answer), not a refusal (another 4xx) or an object gone.
 */
export function retryable(e: unknown): boolean {
  if (!(e instanceof ApiFailure)) return true;
  return e.status >= 500 || e.status === 408 || e.status === 429;
}

/**
 * The session of this page (decision 0127): the key the sign-in handed it in the URL fragment
 * (kept in this origin's storage, which no other port can read, and sent in a header on every
 * API request), and what `/api/session` answers for it.
 */
const session = { key: '', csrfToken: '', iconKey: '', signOut: '' };

/** What startSession needs of the browser (main.tsx passes the window's). */
interface SessionPlace {
  /** The address's fragment, `#...`. */
  hash: string;
  /** Drops the fragment from the address (history.replaceState: no new entry, no reload). */
  dropHash(): void;
  /** The key kept for this origin (its local storage), if any. */
  stored(): string | null;
  keep(key: string): void;
}

/**
 * Takes the key from the URL fragment (dropping it from the address at once) or from storage,
 * and keeps the first one the console accepts; false when neither is (the page then says to open
 * the printed URL). A key in the fragment that the console refuses replaces nothing.
 */
export async function startSession(place: SessionPlace): Promise<boolean> {
  const prefix = `#${PAGE_KEY_FRAGMENT}=`;
  const fromUrl = place.hash.startsWith(prefix) ? place.hash.slice(prefix.length) : undefined;
  if (fromUrl !== undefined) place.dropHash();
  const stored = place.stored();
  for (const key of [fromUrl, stored]) {
    if (key === undefined || key === null || key === '') continue;
    const res = await fetch('/api/session', { credentials: 'same-origin', headers: { [PAGE_KEY_HEADER]: key } });
    if (!res.ok) continue;
    const answer = (await res.json()) as { csrfToken: string; iconKey: string; signOut?: string };
    Object.assign(session, { key, csrfToken: answer.csrfToken, iconKey: answer.iconKey, signOut: answer.signOut ?? '' });
    if (key !== stored) place.keep(key);
    return true;
  }
  return false;
}

/** GETs a JSON document of the console API; throws with the server's error text. */
export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(path, {
    credentials: 'same-origin',
    headers: { [PAGE_KEY_HEADER]: session.key },
    ...(signal === undefined ? {} : { signal }),
  });
  if (res.ok) return (await res.json()) as T;
  const body = (await errorBody(res)) as { error?: string; gone?: unknown };
  throw new ApiFailure(res.status, body.error ?? `${res.status} ${res.statusText}`, res.status === 404 && body.gone === true);
}

/** The hub's `/api/hub` read started before the page renders (prefetchHub), for the hub page to take once. */
const early: { hub?: Promise<unknown> | undefined } = {};

/** Starts reading `/api/hub` now (the session started, the hub about to render), so the read and the page's first render overlap. */
export function prefetchHub(): void {
  early.hub = getJson('/api/hub');
  // Not taken (another page shown): its failure is nobody's.
  early.hub.catch(() => undefined);
}

/** The hub's `/api/hub`: the read prefetchHub started, once, else a new one. */
export function hubJson<T>(signal: AbortSignal): Promise<T> {
  const started = early.hub;
  early.hub = undefined;
  return started === undefined ? getJson<T>('/api/hub', signal) : (started as Promise<T>);
}

/**
 * A refusal's JSON body, or nothing when it has none. Only for refusals: a document that fails to
 * arrive whole (its read aborted by a newer one, the connection lost) is a failure, never `{}`.
 */
async function errorBody(res: Response): Promise<Record<string, unknown>> {
  return ((await res.json().catch(() => undefined)) ?? {}) as Record<string, unknown>;
}

/** Opens a change stream of the console (`/api/events` by default); its body, or throws with the status. */
export async function openEvents(signal: AbortSignal, path = '/api/events'): Promise<ReadableStream<Uint8Array>> {
  const res = await fetch(path, { credentials: 'same-origin', headers: { [PAGE_KEY_HEADER]: session.key }, signal });
  if (!res.ok || res.body === null) throw new ApiFailure(res.status, `${res.status} ${res.statusText}`);
  return res.body;
}

/** POSTs a JSON body with the session's CSRF token (the server refuses writes without it); throws with the server's error text. */
export async function postJson<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', [PAGE_KEY_HEADER]: session.key, 'x-csrf-token': session.csrfToken },
    body: JSON.stringify(body),
  });
  if (res.ok) return (await res.json()) as T;
  const answer = await errorBody(res);
  throw new ApiFailure(res.status, typeof answer['error'] === 'string' ? answer['error'] : `${res.status} ${res.statusText}`, false, answer);
}

/** Where this session signs out (the in-cluster console's sign-out page); undefined for the local console, which has no sign-in. */
export function signOutHref(): string | undefined {
  return session.signOut === '' ? undefined : session.signOut;
}

/** The page address of a package's install form. */
export function installHref(t: { catalog: string; name: string }): string {
  return `#/install/${encodeURIComponent(t.catalog)}/${encodeURIComponent(t.name)}`;
}

/** The page address of a ClusterExtension's detail. */
export function extensionHref(name: string): string {
  return `#/installed/${encodeURIComponent(name)}`;
}

/** The icon URL of a package, with the session's icon key (an `<img>` sends no header). */
export function iconUrl(t: { catalog: string; name: string }): string {
  return `/api/icons/${encodeURIComponent(t.catalog)}/${encodeURIComponent(t.name)}?${ICON_KEY_PARAM}=${encodeURIComponent(session.iconKey)}`;
}

/** The page address of a package. */
export function packageHref(t: { catalog: string; name: string }): string {
  return `#/package/${encodeURIComponent(t.catalog)}/${encodeURIComponent(t.name)}`;
}
