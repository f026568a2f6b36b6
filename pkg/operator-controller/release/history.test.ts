import { describe, expect, it } from 'vitest';
import { ReleaseStatus, deployedRelease, type Release } from './index.ts';
import { revisionsToPrune } from './types.ts';
import { Manifest } from './manifest.ts';

const D = ReleaseStatus.Deployed;
const S = ReleaseStatus.Superseded;
const F = ReleaseStatus.Failed;
const P = ReleaseStatus.PendingUpgrade;

function entries(statuses: string[]): { revision: number; status: string }[] {
  return statuses.map((status, i) => ({ revision: i + 1, status }));
}

describe('revisionsToPrune', () => {
  it.each([
    { name: 'nothing within the limit', statuses: [S, S, D], max: 3, want: [] },
    { name: 'the oldest beyond the limit', statuses: [S, S, S, S, D], max: 3, want: [1, 2] },
    { name: 'never the newest deployed one', statuses: [D, F, F, F, F], max: 3, want: [2, 3] },
    { name: 'never the newest revision', statuses: [D, P], max: 1, want: [] },
    { name: 'an older deployed revision may go when a newer one is deployed', statuses: [D, S, D, P], max: 2, want: [1, 2] },
    { name: 'maxHistory 0 keeps everything', statuses: [S, S, S, D], max: 0, want: [] },
    { name: 'eleven revisions pruned to ten', statuses: [S, S, S, S, S, S, S, S, S, D, P], max: 10, want: [1] },
  ])('$name', ({ statuses, max, want }) => {
    expect(revisionsToPrune(entries(statuses), max)).toEqual(want);
  });

  it('does not depend on the order entries are listed in', () => {
    expect(revisionsToPrune(entries([S, D, F, F, F]).reverse(), 3)).toEqual([1, 3]);
  });
});

describe('deployedRelease', () => {
  function rel(revision: number, status: Release['status']): Release {
    return {
      extension: 'x',
      extensionUID: 'u',
      revision,
      status,
      bundle: { package: 'p', name: `p.v${revision}`, version: `${revision}.0.0`, image: 'i' },
      manifest: Manifest.ofObjects([]),
      properties: [],
      description: '',
    };
  }

  it('is the newest deployed revision, ignoring later failed or pending ones', () => {
    expect(deployedRelease([rel(4, F), rel(3, D), rel(2, S), rel(1, D)])?.revision).toBe(3);
    expect(deployedRelease([rel(1, D), rel(2, D)])?.revision).toBe(2);
  });

  it('is undefined without a deployed revision', () => {
    expect(deployedRelease([rel(2, F), rel(1, ReleaseStatus.PendingInstall)])).toBeUndefined();
    expect(deployedRelease([])).toBeUndefined();
  });
});
