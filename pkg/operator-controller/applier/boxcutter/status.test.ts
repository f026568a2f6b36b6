import { describe, expect, it } from 'vitest';
import { setCondition, type SetCondition } from '../../../../test/support/revision-fixtures.ts';
import { Manifest } from '../../release/index.ts';
import { desiredRevision, type ObjectSetManifest } from './revision.ts';
import { activeRevisions, deployedSummary, releaseOf, releaseSummaryOf, revisionStates, rolloutOf } from './status.ts';

const T = '2026-11-28T00:00:00Z';
type Cond = SetCondition;
const cond = (type: string, status: string, reason: string, message = ''): Cond => setCondition(type, status, reason, message, T);

const set = (revision: number, version: string, conditions: Cond[] = [], lifecycleState: 'Active' | 'Archived' = 'Active'): ObjectSetManifest => {
  const s = desiredRevision(
    { name: 'ext', uid: 'ce-uid' },
    {
      extension: 'ext',
      extensionUID: 'ce-uid',
      installNamespace: 'ns',
      bundle: { package: 'p', name: `p.v${version}`, version, image: `img:${version}` },
      manifest: Manifest.ofObjects([]),
      properties: [{ type: 'olm.package', value: { packageName: 'p', version } }],
    },
    revision,
  );
  return { ...s, metadata: { ...s.metadata, creationTimestamp: T }, spec: { ...s.spec, lifecycleState }, status: { conditions } };
};

const succeeded = cond('Succeeded', 'True', 'Succeeded', 'Revision succeeded rolling out.');
const available = cond('Available', 'True', 'ProbesSucceeded', 'Objects are available and pass all probes.');
const rolledOut = (v: string) => cond('Progressing', 'True', 'Succeeded', `Revision ${v} has rolled out.`);
const rollingOut = (v: string) => cond('Progressing', 'True', 'RollingOut', `Revision ${v} is rolling out.`);
const probeFailure = cond('Available', 'False', 'ProbeFailure', 'apps/v1 Deployment ns/op: condition Available is False');

describe('revisionStates', () => {
  it('skips archived revisions; the newest Succeeded is installed, others roll out, oldest first', () => {
    const sets = [
      set(3, '1.2.0', [rollingOut('1.2.0')]),
      set(1, '1.0.0', [succeeded], 'Archived'),
      set(2, '1.1.0', [succeeded, available]),
      set(4, '1.3.0', []),
    ];
    const states = revisionStates(sets);
    expect(states.installed?.metadata.name).toBe('ext-2');
    expect(states.rollingOut.map((s) => s.metadata.name)).toEqual(['ext-3', 'ext-4']);
  });

  it('has nothing installed before the first revision succeeds', () => {
    expect(revisionStates([set(1, '1.0.0', [rollingOut('1.0.0')])]).installed).toBeUndefined();
  });
});

describe('activeRevisions', () => {
  it('lists the installed revision by name, then each rolling out one with Available and Progressing at the extension generation', () => {
    const sets = [
      set(1, '1.0.0', [succeeded], 'Archived'),
      set(2, '1.1.0', [succeeded, available, rolledOut('1.1.0')]),
      set(3, '1.2.0', [probeFailure, rollingOut('1.2.0')]),
    ];
    expect(activeRevisions(sets, 7)).toEqual([
      { name: 'ext-2' },
      {
        name: 'ext-3',
        conditions: [
          { ...probeFailure, observedGeneration: 7 },
          { ...rollingOut('1.2.0'), observedGeneration: 7 },
        ],
      },
    ]);
  });

  it.each<[string, ObjectSetManifest[], unknown]>([
    ['nothing', [], []],
    ['a first install without conditions yet', [set(1, '1.0.0')], [{ name: 'ext-1' }]],
    ['only archived', [set(1, '1.0.0', [succeeded], 'Archived')], []],
  ])('%s', (_name, sets, want) => {
    expect(activeRevisions(sets, 1)).toEqual(want);
  });
});

describe('revisions as release records', () => {
  const sets = [
    set(1, '1.0.0', [succeeded], 'Archived'),
    set(2, '1.1.0', [succeeded, available, rolledOut('1.1.0')]),
    set(3, '1.2.0', [rollingOut('1.2.0')]),
    set(4, '1.3.0', [cond('Progressing', 'False', 'ProgressDeadlineExceeded', 'Revision has not rolled out for 10 minute(s).')]),
  ];

  it.each([
    [0, 'superseded'],
    [1, 'deployed'],
    [2, 'pending-upgrade'],
    [3, 'failed'],
  ])('revision %s is %s', (i, status) => {
    expect(releaseSummaryOf(sets[i] as ObjectSetManifest, sets).status).toBe(status);
  });

  it('a first revision rolling out is a pending install; one blocked is failed', () => {
    const first = [set(1, '1.0.0', [rollingOut('1.0.0')])];
    expect(releaseSummaryOf(first[0] as ObjectSetManifest, first).status).toBe('pending-install');
    const blocked = [set(1, '1.0.0', [cond('Progressing', 'False', 'Blocked', 'no')])];
    expect(releaseSummaryOf(blocked[0] as ObjectSetManifest, blocked).status).toBe('failed');
  });

  it('reads the bundle, properties, owner and times from the revision', () => {
    expect(releaseSummaryOf(sets[1] as ObjectSetManifest, sets)).toEqual({
      extension: 'ext',
      extensionUID: 'ce-uid',
      revision: 2,
      status: 'deployed',
      bundle: { package: 'p', name: 'p.v1.1.0', version: '1.1.0', image: 'img:1.1.0' },
      properties: [{ type: 'olm.package', value: { packageName: 'p', version: '1.1.0' } }],
      description: 'Revision 1.1.0 has rolled out.',
      firstDeployed: T,
      lastDeployed: T,
      objectSet: 'ext-2',
    });
    const objects = [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }];
    expect(releaseOf(sets[1] as ObjectSetManifest, sets, objects).manifest.objects()).toEqual(objects);
  });

  it('deployedSummary is the installed revision', () => {
    expect(deployedSummary(sets)?.revision).toBe(2);
    expect(deployedSummary([set(1, '1.0.0')])).toBeUndefined();
  });
});

describe('rolloutOf', () => {
  const retrying = cond('Progressing', 'True', 'Retrying', 'revision object collisions in phase 1');
  it.each([
    ['nothing yet', [], undefined, 'Failed', []],
    ['the first revision rolling out', [set(1, '1.0.0', [rollingOut('1.0.0')])], undefined, 'Absent', ['Progressing/RollingOut']],
    ['the first revision retrying', [set(1, '1.0.0', [retrying])], undefined, 'Failed', ['Progressing/Retrying']],
    [
      'installed, an upgrade rolling out',
      [set(1, '1.0.0', [succeeded, available, rolledOut('1.0.0')]), set(2, '1.1.0', [probeFailure, rollingOut('1.1.0')])],
      'ext-1',
      'Failed',
      ['Available/ProbesSucceeded', 'Progressing/Succeeded', 'Progressing/RollingOut'],
    ],
  ] as const)('%s', (_name, sets, installed, reason, mirrored) => {
    const r = rolloutOf(sets, 7);
    expect(r.installed?.objectSet).toBe(installed);
    if (installed === undefined) expect(r.notInstalledReason).toBe(reason);
    expect(r.mirrored.map((c) => `${c.type}/${c.reason}`)).toEqual(mirrored);
    expect(r.mirrored.every((c) => c.observedGeneration === 7)).toBe(true);
    expect(r.activeRevisions).toEqual(activeRevisions(sets, 7));
  });
});
