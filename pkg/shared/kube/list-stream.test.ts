import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ListItemSplitter, decodeListStream } from './list-stream.ts';
import type { KubeObject } from '../unstructured/index.ts';

const tricky: KubeObject[] = [
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a', namespace: 'ns', annotations: { items: '[{"not":"an item"}]', q: 'a "quoted" \\ value \\' } },
    data: { 'k}': '{[', items: ']', é: 'ü€😀', esc: '\\"\\\\"' },
  },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' }, data: { nested: JSON.stringify({ items: [1, 2, { items: [] }] }) } },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: {} }, data: {}, binaryData: { x: 'AAEC' } },
];

const envelope = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '42', continue: 'tok"en' } };

/** The body as the API server writes it (Go's encoder ends it with a newline). */
function body(items: unknown, order: 'meta-first' | 'items-first' = 'meta-first', indent?: number): Buffer {
  const value = order === 'meta-first' ? { ...envelope, items } : { items, ...envelope };
  return Buffer.from(`${JSON.stringify(value, null, indent)}\n`);
}

/** Runs the splitter over `bytes` cut at `cuts`; returns the items and the envelope. */
function split(bytes: Buffer, cuts: number[]): { items: KubeObject[]; envelope: unknown } {
  const items: KubeObject[] = [];
  const splitter = new ListItemSplitter((item) => items.push(item));
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    splitter.write(bytes.subarray(from, cut));
    from = cut;
  }
  return { items, envelope: splitter.end() };
}

describe('ListItemSplitter', () => {
  it.each([
    ['compact, metadata first', body(tricky)],
    ['compact, items first', body(tricky, 'items-first')],
    ['indented', body(tricky, 'meta-first', 2)],
  ])('hands out every item and the envelope at every single cut: %s', (_name, bytes) => {
    for (let cut = 0; cut <= bytes.length; cut++) {
      const out = split(bytes, [cut]);
      expect(out.items).toEqual(tricky);
      expect(out.envelope).toEqual(envelope);
    }
  });

  it('survives a body that arrives a byte at a time (escapes and multi-byte characters cut)', () => {
    const bytes = body(tricky, 'meta-first', 1);
    const out = split(
      bytes,
      Array.from({ length: bytes.length - 1 }, (_, i) => i + 1),
    );
    expect(out.items).toEqual(tricky);
    expect(out.envelope).toEqual(envelope);
  });

  it('hands an item out as soon as its bytes are complete, before the body ends', () => {
    const bytes = body(tricky);
    const seen: string[] = [];
    const splitter = new ListItemSplitter((item) => seen.push(item.metadata.name ?? ''));
    const afterFirst = bytes.indexOf('},{"apiVersion"') + 1;
    splitter.write(bytes.subarray(0, afterFirst));
    expect(seen).toEqual(['a']);
    splitter.write(bytes.subarray(afterFirst));
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('reads empty and null items (a metadata-only list answers an empty page with null)', () => {
    expect(split(body([]), [])).toEqual({ items: [], envelope });
    expect(split(body(null), [5])).toEqual({ items: [], envelope });
  });

  it.each([
    ['a truncated body', body(tricky).subarray(0, 200), 'the list response ended early'],
    ['no body', Buffer.alloc(0), 'the list response ended early'],
    ['a top-level array', Buffer.from('[{"a":1}]'), 'the list response is not a JSON object'],
    ['a second value', Buffer.from('{"items":[]}{}'), 'the server sent more after the list ended'],
    ['an item that is not an object', Buffer.from('{"items":[1]}'), 'a list item is not a JSON object'],
    ['an unbalanced bracket', Buffer.from('{"items":[]}]'), 'the server sent more after the list ended'],
    ['a malformed item', Buffer.from('{"items":[{"a":}]}'), 'the server sent malformed JSON'],
    ['a malformed envelope', Buffer.from('{"metadata":{"a" 1},"items":[]}'), 'the server sent malformed JSON'],
  ])('rejects %s', (_name, bytes, message) => {
    expect(() => split(bytes, [])).toThrow(message);
  });
});

describe('decodeListStream', () => {
  it('reads a streamed body to its envelope and destroys it', async () => {
    const bytes = body(tricky);
    const stream = Readable.from([bytes.subarray(0, 100), bytes.subarray(100, 101), bytes.subarray(101)]);
    const items: KubeObject[] = [];
    await expect(decodeListStream(stream, (i) => items.push(i), { timeoutMs: 5_000 })).resolves.toEqual(envelope);
    expect(items).toEqual(tricky);
    expect(stream.destroyed).toBe(true);
  });

  it('ends the read with what the item handler throws', async () => {
    const stream = new PassThrough();
    stream.write(body(tricky));
    const boom = new Error('no room');
    await expect(
      decodeListStream(
        stream,
        () => {
          throw boom;
        },
        { timeoutMs: 5_000 },
      ),
    ).rejects.toBe(boom);
    expect(stream.destroyed).toBe(true);
  });

  it('rejects a malformed body, a broken one, one that never ends, and an abort', async () => {
    const malformed = Readable.from([Buffer.from('{"items":[{"a":}]}')]);
    await expect(decodeListStream(malformed, () => undefined, { timeoutMs: 5_000 })).rejects.toThrow('the server sent malformed JSON');

    const broken = new PassThrough();
    broken.write(body(tricky).subarray(0, 50));
    setImmediate(() => broken.destroy(new Error('socket hang up')));
    await expect(decodeListStream(broken, () => undefined, { timeoutMs: 5_000 })).rejects.toThrow('reading the response: socket hang up');

    const hanging = new PassThrough();
    hanging.write(body(tricky).subarray(0, 50));
    await expect(decodeListStream(hanging, () => undefined, { timeoutMs: 50 })).rejects.toThrow('reading the response timed out after 50 ms');
    expect(hanging.destroyed).toBe(true);

    const aborted = new PassThrough();
    const ctl = new AbortController();
    const reading = decodeListStream(aborted, () => undefined, { timeoutMs: 5_000, signal: ctl.signal });
    const reason = new Error('leadership lost');
    ctl.abort(reason);
    aborted.destroy(reason);
    await expect(reading).rejects.toBe(reason);
  });
});
