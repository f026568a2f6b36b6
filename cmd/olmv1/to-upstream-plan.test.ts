import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import { describeChange, latestRecords, leaseHolder, metadataPatch, planExtension, statusPatch, type ExtensionPlan } from './to-upstream-plan.ts';

const UNPACK = 'olm.operatorframework.io/cleanup-unpack-cache';
const CONTENT = 'olm.operatorframework.io/cleanup-contentmanager-cache';
const UNINSTALL = 'olm.operatorframework.io/uninstall';
const ORPHAN = 'olm.operatorframework.io/orphan-objects';
const POLICY = 'olm.operatorframework.io/update-policy';
const APPROVED = 'olm.operatorframework.io/approved-bundle';

const cond = (type: string) => ({ type, status: 'True', reason: 'Succeeded', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' });

function ce(meta: { finalizers?: string[]; annotations?: Record<string, string>; deleting?: boolean; conditions?: string[] } = {}): KubeObject {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: {
      name: 'argocd',
      resourceVersion: '42',
      ...(meta.finalizers === undefined ? {} : { finalizers: meta.finalizers }),
      ...(meta.annotations === undefined ? {} : { annotations: meta.annotations }),
      ...(meta.deleting === true ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    ...(meta.conditions === undefined ? {} : { status: { conditions: meta.conditions.map(cond) } }),
  };
}

/** The plan reduced to what the table compares. */
function summary(plan: ExtensionPlan): unknown {
  if (plan.kind === 'blocked') return { blocked: plan.reason };
  if (plan.kind === 'unchanged') return { unchanged: true, notes: plan.notes.length };
  const c = plan.change;
  return { finalizers: c.finalizers, annotations: c.removedAnnotations, conditions: c.removedConditions, notes: plan.notes.length };
}

describe('planExtension', () => {
  it.each([
    [
      'a live extension of ours: our finalizer, the orphan annotation and our conditions go, upstream finalizers stay',
      ce({
        finalizers: [UNPACK, CONTENT, UNINSTALL],
        annotations: { [ORPHAN]: 'true', other: 'x' },
        conditions: ['Installed', 'Healthy', 'UpgradeAvailable'],
      }),
      undefined,
      { finalizers: [UNPACK, CONTENT], annotations: [ORPHAN], conditions: ['Healthy', 'UpgradeAvailable'], notes: 0 },
    ],
    [
      'our finalizer only: the list is written without it',
      ce({ finalizers: [UNINSTALL, 'example.com/someone-else'] }),
      { revision: 3, status: 'deployed' },
      { finalizers: ['example.com/someone-else'], annotations: [], conditions: [], notes: 0 },
    ],
    [
      'only upstream finalizers and conditions: nothing to change',
      ce({ finalizers: [UNPACK, CONTENT], conditions: ['Installed', 'Progressing', 'Deprecated'] }),
      undefined,
      { unchanged: true, notes: 0 },
    ],
    ['a live extension without finalizers (never reconciled)', ce(), undefined, { unchanged: true, notes: 0 }],
    [
      'being deleted with our finalizer: refused, only our controller can finish the uninstall',
      ce({ finalizers: [UNPACK, UNINSTALL], deleting: true }),
      undefined,
      {
        blocked: expect.stringMatching(
          /^it is being deleted and its uninstall has not finished \(finalizer olm\.operatorframework\.io\/uninstall\); /,
        ),
      },
    ],
    [
      'being deleted, our uninstall done, upstream finalizers left: nothing to change, its annotation and status go with it',
      ce({ finalizers: [UNPACK, CONTENT], annotations: { [ORPHAN]: 'true' }, conditions: ['Healthy'], deleting: true }),
      undefined,
      { unchanged: true, notes: 0 },
    ],
    [
      'latest record pending-upgrade: refused',
      ce({ finalizers: [UNINSTALL] }),
      { revision: 4, status: 'pending-upgrade' },
      { blocked: expect.stringMatching(/^its latest release record \(revision 4\) is pending-upgrade: /) },
    ],
    [
      'latest record pending-install: refused',
      ce({ finalizers: [UNINSTALL] }),
      { revision: 1, status: 'pending-install' },
      { blocked: expect.stringMatching(/^its latest release record \(revision 1\) is pending-install: /) },
    ],
    [
      'latest record failed: upstream retries it as an upgrade, so it is handed over, with a note',
      ce({ finalizers: [UNINSTALL] }),
      { revision: 2, status: 'failed' },
      { finalizers: [], annotations: [], conditions: [], notes: 1 },
    ],
    [
      'a Manual update policy and an approval are kept, with a note',
      ce({ finalizers: [UNINSTALL], annotations: { [POLICY]: 'Manual', [APPROVED]: 'argocd.v2' } }),
      undefined,
      { finalizers: [], annotations: [], conditions: [], notes: 1 },
    ],
    [
      'an Automatic update policy needs no note',
      ce({ finalizers: [UNPACK], annotations: { [POLICY]: 'Automatic' } }),
      undefined,
      { unchanged: true, notes: 0 },
    ],
  ])('%s', (_name, obj, latest, expected) => {
    expect(summary(planExtension(obj, latest))).toEqual(expected);
  });

  it('keeps every condition but ours, in order and whole', () => {
    const plan = planExtension(ce({ conditions: ['Installed', 'Healthy', 'Progressing', 'UpgradeAvailable', 'BundleDeprecated'] }), undefined);
    if (plan.kind !== 'change') throw new Error(`expected a change, got ${plan.kind}`);
    expect(plan.change.conditions).toEqual([cond('Installed'), cond('Progressing'), cond('BundleDeprecated')]);
    expect(plan.change.finalizers).toBeUndefined();
  });

  it('names the policy and the approval in its note', () => {
    const plan = planExtension(ce({ annotations: { [POLICY]: 'AutomaticPatch', [APPROVED]: 'argocd.v2' } }), undefined);
    expect(plan.kind === 'blocked' ? [] : plan.notes).toEqual([
      `argocd: upstream ignores ${POLICY}=AutomaticPatch and ${APPROVED} (kept): it installs whatever its resolution picks; ` +
        'to hold the installed version, set spec.source.catalog.version before starting it',
    ]);
  });
});

describe('the patches', () => {
  const plan = planExtension(
    ce({ finalizers: [UNPACK, UNINSTALL, CONTENT], annotations: { [ORPHAN]: 'true', [POLICY]: 'Manual' }, conditions: ['Installed', 'Healthy'] }),
    undefined,
  );
  if (plan.kind !== 'change') throw new Error(`expected a change, got ${plan.kind}`);

  it('metadata: the resourceVersion read, the whole finalizer list, removed annotations as null', () => {
    expect(metadataPatch(plan.change)).toEqual({
      metadata: { resourceVersion: '42', finalizers: [UNPACK, CONTENT], annotations: { [ORPHAN]: null } },
    });
  });

  it('status: the resourceVersion after the metadata write, the whole condition list', () => {
    expect(statusPatch(plan.change, '43')).toEqual({ metadata: { resourceVersion: '43' }, status: { conditions: [cond('Installed')] } });
  });

  it('says what it removes', () => {
    expect(describeChange(plan.change)).toBe(`finalizer ${UNINSTALL}; annotation ${ORPHAN}; condition Healthy`);
  });

  it('leaves out what does not change', () => {
    const onlyStatus = planExtension(ce({ finalizers: [UNPACK], conditions: ['UpgradeAvailable'] }), undefined);
    if (onlyStatus.kind !== 'change') throw new Error(`expected a change, got ${onlyStatus.kind}`);
    expect(metadataPatch(onlyStatus.change)).toBeUndefined();
    const onlyMeta = planExtension(ce({ finalizers: [UNINSTALL], conditions: ['Installed'] }), undefined);
    if (onlyMeta.kind !== 'change') throw new Error(`expected a change, got ${onlyMeta.kind}`);
    expect(statusPatch(onlyMeta.change, '43')).toBeUndefined();
  });
});

describe('latestRecords', () => {
  const index = (labels: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x', labels } });

  it('takes the highest revision of each extension', () => {
    const records = latestRecords([
      index({ name: 'a', version: '9', status: 'superseded' }),
      index({ name: 'a', version: '10', status: 'pending-upgrade' }),
      index({ name: 'a', version: '2', status: 'superseded' }),
      index({ name: 'b', version: '1', status: 'deployed' }),
      index({ version: '1', status: 'deployed' }),
      index({ name: 'c', version: 'x', status: 'deployed' }),
    ]);
    expect([...records]).toEqual([
      ['a', { revision: 10, status: 'pending-upgrade' }],
      ['b', { revision: 1, status: 'deployed' }],
    ]);
  });
});

describe('leaseHolder', () => {
  const now = Date.parse('2026-01-01T00:01:00Z');
  it.each([
    ['renewed within its duration', { holderIdentity: 'oc-1', renewTime: '2026-01-01T00:00:30.000000Z', leaseDurationSeconds: 137 }, 'oc-1'],
    ['expired', { holderIdentity: 'oc-1', renewTime: '2026-01-01T00:00:30.000000Z', leaseDurationSeconds: 15 }, undefined],
    ['released on a graceful stop', { holderIdentity: null, renewTime: '2026-01-01T00:00:59.000000Z', leaseDurationSeconds: 1 }, undefined],
    ['no renewal time: counted as held', { holderIdentity: 'oc-1' }, 'oc-1'],
    ['acquired, never renewed', { holderIdentity: 'oc-1', acquireTime: '2026-01-01T00:00:50.000000Z', leaseDurationSeconds: 15 }, 'oc-1'],
  ])('%s', (_name, spec, expected) => {
    expect(leaseHolder({ spec }, now)).toBe(expected);
  });

  it('an empty Lease is not held', () => {
    expect(leaseHolder({}, now)).toBeUndefined();
  });
});
