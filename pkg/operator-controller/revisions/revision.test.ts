import { describe, expect, it } from 'vitest';
import { Manifest, ReleaseStatus, type Release } from '../release/index.ts';
import { installed, newest, revisionOf, RevisionState } from './revision.ts';

const record = (revision: number, status: Release['status']): Release => ({
  extension: 'ext',
  extensionUID: 'u',
  revision,
  status,
  bundle: { package: 'p', name: `p.v${revision}`, version: `${revision}.0.0`, image: 'r/p' },
  manifest: Manifest.ofObjects([]),
  properties: [],
  description: '',
  firstDeployed: `2026-01-0${revision}T00:00:00Z`,
});

describe('the neutral revision of a Helm record', () => {
  it('maps every Helm status to a lifecycle state and keeps the Helm status on the record', () => {
    const states = Object.values(ReleaseStatus).map((s, i) => [s, revisionOf(record(i + 1, s)).state]);
    expect(states).toEqual([
      ['pending-install', RevisionState.RollingOut],
      ['pending-upgrade', RevisionState.RollingOut],
      ['deployed', RevisionState.Installed],
      ['superseded', RevisionState.Archived],
      ['failed', RevisionState.Failed],
    ]);
    const r = revisionOf(record(3, 'failed'));
    expect([r.number, r.when, r.record.status, r.objectSet]).toEqual([3, '2026-01-03T00:00:00Z', 'failed', undefined]);
  });

  it('finds the installed revision (the newest Installed) and the newest one in any order', () => {
    const revisions = [record(2, 'deployed'), record(4, 'failed'), record(3, 'deployed'), record(1, 'superseded')].map((r) => revisionOf(r));
    expect(installed(revisions)?.number).toBe(3);
    expect(newest(revisions)?.number).toBe(4);
    expect([installed([]), newest([])]).toEqual([undefined, undefined]);
  });
});
