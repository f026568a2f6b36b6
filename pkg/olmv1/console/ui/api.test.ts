import { afterEach, describe, expect, it, vi } from 'vitest';
import { getJson, iconUrl, retryable, startSession } from './api.ts';

/** A browser place: its fragment, its stored key, and what the session did with them. */
function place(hash: string, stored: string | null) {
  const p = {
    hash,
    kept: [] as string[],
    dropped: 0,
    stored: () => stored,
    dropHash: () => void p.dropped++,
    keep: (k: string) => void p.kept.push(k),
  };
  return p;
}

/** A console that knows one key: what `/api/session` answers, and the headers each request carried. */
function consoleKnowing(key: string) {
  const sent: Record<string, string>[] = [];
  vi.stubGlobal('fetch', async (_path: string, init: { headers: Record<string, string> }) => {
    sent.push(init.headers);
    const ok = init.headers['x-olmv1-session'] === key;
    return new Response(JSON.stringify(ok ? { csrfToken: 'csrf', iconKey: 'ik' } : { error: 'no' }), { status: ok ? 200 : 403 });
  });
  return sent;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the page session', () => {
  it('takes the key from the fragment, drops it from the address, keeps it, and sends it with every request', async () => {
    const sent = consoleKnowing('K');
    const p = place('#olmv1-session=K', null);
    expect(await startSession(p)).toBe(true);
    expect(p.dropped).toBe(1);
    expect(p.kept).toEqual(['K']);
    await getJson('/api/hub');
    expect(sent.at(-1)).toMatchObject({ 'x-olmv1-session': 'K' });
    expect(iconUrl({ catalog: 'c', name: 'p' })).toBe('/api/icons/c/p?k=ik');
  });

  it('uses the stored key on a later load, and a refused fragment key replaces nothing', async () => {
    consoleKnowing('K');
    const later = place('#/installed', 'K');
    expect(await startSession(later)).toBe(true);
    expect([later.dropped, later.kept]).toEqual([0, []]);
    const planted = place('#olmv1-session=planted', 'K');
    expect(await startSession(planted)).toBe(true);
    expect([planted.dropped, planted.kept]).toEqual([1, []]);
  });

  it('has no session when the console accepts no key', async () => {
    consoleKnowing('K');
    expect(await startSession(place('#olmv1-session=old', 'older'))).toBe(false);
    expect(await startSession(place('', null))).toBe(false);
  });
});

describe('a failed read', () => {
  const failing = (status: number, body: unknown) => vi.stubGlobal('fetch', async () => new Response(JSON.stringify(body), { status }));

  it('is gone only when the console says the object is not there, not for any 404', async () => {
    failing(404, { error: 'there is no ClusterExtension x', gone: true });
    const gone = await getJson('/api/extensions/x').catch((e: unknown) => e);
    expect(gone).toMatchObject({ status: 404, gone: true, message: 'there is no ClusterExtension x' });
    failing(404, { error: 'configmaps "y" not found' });
    expect(await getJson('/api/extensions/x').catch((e: unknown) => e)).toMatchObject({ status: 404, gone: false });
  });

  it('is a failure when a document does not arrive whole (its read aborted, the connection lost), never an empty document', async () => {
    failing(200, { version: '0.2.0', channels: ['stable'] });
    expect(await getJson('/api/extensions/x/source')).toEqual({ version: '0.2.0', channels: ['stable'] });
    vi.stubGlobal('fetch', async () => new Response('{"version":"0.2.0","chan', { status: 200 }));
    await expect(getJson('/api/extensions/x/source')).rejects.toThrow(SyntaxError);
    // A body whose read is aborted by a newer read of the same page.
    vi.stubGlobal('fetch', async (_path: string, init: { signal?: AbortSignal }) => {
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode('{"version":'));
          init.signal?.addEventListener('abort', () => c.error(new DOMException('aborted', 'AbortError')));
        },
      });
      return new Response(body, { status: 200 });
    });
    const ac = new AbortController();
    const read = getJson('/api/extensions/x/source', ac.signal);
    ac.abort();
    await expect(read).rejects.toThrow('aborted');
  });

  it('is read again after a failure of the console or the way to it, not after a refusal or an object gone', async () => {
    for (const [status, again] of [
      [502, true],
      [503, true],
      [408, true],
      [429, true],
      [403, false],
      [401, false],
      [404, false],
    ] as const) {
      failing(status, { error: 'x' });
      expect([status, retryable(await getJson('/api/x').catch((e: unknown) => e))]).toEqual([status, again]);
    }
    expect(retryable(new TypeError('Failed to fetch'))).toBe(true);
  });
});
