import { describe, expect, it, vi } from 'vitest';
import { createHubAnswers } from './hub-answer.ts';
import type { HubTile } from './hub-index.ts';

const tile = (name: string, more: Partial<HubTile> = {}): HubTile => ({
  catalog: 'c',
  name,
  displayName: name,
  provider: 'p "quoted" \u2028',
  description: '}{,"installed":false}',
  hasIcon: false,
  defaultChannel: 'stable',
  version: '1.0.0',
  categories: [],
  capabilities: '',
  infrastructure: [],
  installModes: ['AllNamespaces'],
  keywords: [],
  arch: ['amd64'],
  os: ['linux'],
  support: '',
  ...more,
});

describe('/api/hub answers', () => {
  it("are the tiles with their Installed marks, the problems and the badges, each index's tiles serialized once", () => {
    const answer = createHubAnswers();
    const tiles = [tile('a'), tile('b', { deprecated: 'old' })];
    const badges = { c: { name: 'c', displayName: 'C', sourceType: 'Community' as const, needsAcknowledgement: true } };
    const stringify = vi.spyOn(JSON, 'stringify');
    const first = JSON.parse(answer({ tiles, installed: (t) => t.name === 'b', problems: ['p1'], badges })) as unknown;
    expect(first).toEqual({
      tiles: [
        { ...tiles[0], installed: false },
        { ...tiles[1], installed: true },
      ],
      problems: ['p1'],
      badges,
    });
    const calls = stringify.mock.calls.length;
    const second = JSON.parse(answer({ tiles, installed: (t) => t.name === 'a', problems: [], badges })) as { tiles: { installed: boolean }[] };
    expect(second.tiles.map((t) => t.installed)).toEqual([true, false]);
    // The second answer serialized the problems and badges only.
    expect(stringify.mock.calls.length - calls).toBe(2);
    stringify.mockRestore();
  });
});
