import { describe, expect, it } from 'vitest';
import { connectChanges, parseEvents, reconnectDelay, type Change } from './changes.ts';

const change = { topic: 'extensions', kind: 'ClusterExtension', name: 'argocd' } as const;
const wire = `event: change\ndata: ${JSON.stringify(change)}\n\n`;

describe('parseEvents', () => {
  it('yields complete change events, skips comments, and keeps an unfinished one for the next chunk', () => {
    const first = parseEvents(`: watching\n\n${wire}event: change\ndata: {"topic":"cat`);
    expect(first.events).toEqual([change]);
    const second = parseEvents(`${first.rest}alogs","kind":"ClusterCatalog","name":"c"}\n\n`);
    expect(second).toEqual({ events: [{ topic: 'catalogs', kind: 'ClusterCatalog', name: 'c' }], rest: '' });
  });
});

describe('connectChanges', () => {
  it('tells listeners each change, and resync after it reconnected with backoff', async () => {
    const bodies = [wire, wire];
    const delays: number[] = [];
    const ac = new AbortController();
    const heard: Change[] = [];
    const source = connectChanges(
      async () => {
        const text = bodies.shift();
        if (text === undefined) return new Promise<never>(() => undefined);
        return new Response(text).body as ReadableStream<Uint8Array>;
      },
      async (ms) => void delays.push(ms),
      ac.signal,
    );
    source.subscribe((c) => heard.push(c));
    await expect.poll(() => heard).toEqual([change, 'resync', change]);
    expect(delays).toEqual([reconnectDelay(0), reconnectDelay(0)]);
    ac.abort();
  });
});
