import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startConsole } from './server.ts';
import { sessionCookieName } from './security.ts';
import type { ChangeEvent } from './live.ts';

const secrets = { token: 'a'.repeat(43), cookie: 'b'.repeat(43), pageKey: 'k'.repeat(43), csrfToken: 'c'.repeat(43), iconKey: 'i'.repeat(43) };
let dir: string;
let running: Awaited<ReturnType<typeof startConsole>>;
/** The watches' emit while they run (a watched object's change), and how often they were started. */
let emit: ((e: ChangeEvent) => void) | undefined;
let started = 0;
let stopped = false;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'console-live-'));
  const none = async () => {
    throw new Error('not read in this test');
  };
  running = await startConsole({
    port: 0,
    secrets,
    assetsDir: dir,
    log: pino({ level: 'silent' }),
    catalogTtlMs: 30_000,
    now: () => Date.now(),
    watches: (e, signal) => {
      started++;
      emit = e;
      signal.addEventListener('abort', () => (stopped = true));
    },
    sources: {
      listCatalogs: none,
      loadCatalog: none,
      listExtensions: none,
      getExtension: none,
      extensionEvents: none,
      releaseHistory: none,
      crdPreview: none,
      installerObjects: none,
      deleteExtension: none,
      installState: () => ({ state: 'waiting', progress: '' }),
      install: none,
    },
  });
});

afterAll(async () => {
  await running.close();
  await rm(dir, { recursive: true, force: true });
});

/** Opens `/api/events` as the page does and collects what it receives. */
async function subscribe(): Promise<{ text: () => string; contentType: string | null; stop: () => void }> {
  const ac = new AbortController();
  const port = new URL(running.origin).port;
  const res = await fetch(`${running.origin}/api/events`, {
    headers: { cookie: `${sessionCookieName(port)}=${secrets.cookie}`, 'x-olmv1-session': secrets.pageKey },
    signal: ac.signal,
  });
  let text = '';
  const reader = (res.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    for (;;) {
      const r = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (r.done) return;
      text += r.value;
    }
  })();
  return { text: () => text, contentType: res.headers.get('content-type'), stop: () => ac.abort() };
}

describe('/api/events', () => {
  it('streams a change of a watched object to every open page as a server-sent event', async () => {
    const a = await subscribe();
    const b = await subscribe();
    expect(a.contentType).toBe('text/event-stream; charset=utf-8');
    await vi.waitFor(() => expect(emit).toBeDefined());
    expect(started).toBe(1);
    emit?.({ topic: 'extensions', kind: 'ClusterExtension', name: 'argocd' });
    const event = 'event: change\ndata: {"topic":"extensions","kind":"ClusterExtension","name":"argocd"}\n\n';
    await vi.waitFor(() => expect(a.text()).toContain(event));
    await vi.waitFor(() => expect(b.text()).toContain(event));
    a.stop();
    b.stop();
  });

  it('refuses a request without the session, as every API route', async () => {
    const res = await fetch(`${running.origin}/api/events`);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.headers.get('content-type')).not.toContain('event-stream');
  });

  it('stops the watches when the console closes', async () => {
    await running.close();
    expect(stopped).toBe(true);
  });
});
