// Lines kept by position in an unlinked file (decision 0098).
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LineStore } from './line-store.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'line-store-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const lines = ['{"a":1}', '', 'é ünïcode 😀', 'x'.repeat(200_000), '{"last":true}'];

const make = (): LineStore => LineStore.file(join(dir, 'spill'));

describe('a line store', () => {
  it('gives back each line by position and in order, as pushed', () => {
    const store = make();
    for (const [i, line] of lines.entries()) expect(store.push(line)).toBe(i + 1);
    expect(store.length).toBe(lines.length);
    expect(lines.map((_, i) => store.at(i))).toEqual(lines);
    expect(store.at(-1)).toBe('{"last":true}');
    expect(store.at(lines.length)).toBeUndefined();
    expect([...store]).toEqual(lines);
    store.close();
  });

  it('drops lines: at gives undefined, iteration skips them, left counts the rest', () => {
    const store = make();
    for (const line of lines) store.push(line);
    store.drop(0);
    store.drop(0);
    store.drop(3);
    store.drop(99);
    expect(store.at(0)).toBeUndefined();
    expect(store.at(3)).toBeUndefined();
    expect(store.left).toBe(3);
    expect([...store]).toEqual([lines[1], lines[2], lines[4]]);
    store.close();
  });

  it('makes a sibling: a new file in the same directory', async () => {
    const store = make();
    const sibling = store.sibling();
    sibling.push('one');
    expect(await readdir(join(dir, 'spill'))).toEqual([]);
    expect([...sibling]).toEqual(['one']);
    expect(store.length).toBe(0);
    sibling.close();
    store.close();
  });
});

describe('a line store file', () => {
  it('leaves no file behind, even while open, and refuses reads after close', async () => {
    const store = LineStore.file(join(dir, 'spill'));
    store.push('kept where no other process can open it');
    expect(await readdir(join(dir, 'spill'))).toEqual([]);
    expect(store.at(0)).toBe('kept where no other process can open it');
    store.close();
    expect(() => store.at(0)).toThrow('line store: read or written after close');
    store.close();
  });
});
