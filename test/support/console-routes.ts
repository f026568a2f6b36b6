/**
 * A console started on 127.0.0.1 over sources a route test gives (the rest answer nothing), with
 * the page's session: what the console's route unit tests request through, as the browser would
 * (session cookie and key, and for a POST the origin and CSRF token).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { sessionCookieName, startConsole, type ConsoleSources } from '../../pkg/olmv1/console/index.ts';

/** Sources that list nothing, find no history and install nothing: a test overrides what its routes read. */
export function emptySources(): ConsoleSources {
  const none = async () => [];
  return {
    listCatalogs: none,
    loadCatalog: async () => ({ packageNames: [], load: () => ({ packages: [], channels: [], bundles: [], deprecations: [], others: [] }) }),
    listExtensions: none,
    getExtension: async () => ({}),
    extensionEvents: none,
    releaseHistory: none,
    crdPreview: async (extension) => ({ extension, crds: [], refusals: [], unchecked: [] }),
    installerObjects: none,
    deleteExtension: async () => undefined,
    installState: () => ({ state: 'waiting', progress: '' }),
    install: async () => ({ ok: false, error: 'not here' }),
  };
}

/** A running test console. */
export interface TestConsole {
  origin: string;
  get(path: string): Promise<Response>;
  post(path: string, body: unknown): Promise<Response>;
  close(): Promise<void>;
}

/** Starts a console over `sources` (emptySources() with them over it). */
export async function startTestConsole(sources: Partial<ConsoleSources>): Promise<TestConsole> {
  const dir = await mkdtemp(join(tmpdir(), 'console-routes-'));
  const secrets = { token: 'a'.repeat(43), cookie: 'b'.repeat(43), pageKey: 'k'.repeat(43), csrfToken: 'c'.repeat(43), iconKey: 'i'.repeat(43) };
  const running = await startConsole({
    port: 0,
    secrets,
    assetsDir: dir,
    log: pino({ level: 'silent' }),
    catalogTtlMs: 30_000,
    now: () => Date.now(),
    sources: { ...emptySources(), ...sources },
  });
  const { origin } = running;
  const session = { cookie: `${sessionCookieName(new URL(origin).port)}=${secrets.cookie}`, 'x-olmv1-session': secrets.pageKey };
  return {
    origin,
    get: (path) => fetch(`${origin}${path}`, { headers: session }),
    post: (path, body) =>
      fetch(`${origin}${path}`, {
        method: 'POST',
        headers: { ...session, origin, 'x-csrf-token': secrets.csrfToken, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    close: async () => {
      await running.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
