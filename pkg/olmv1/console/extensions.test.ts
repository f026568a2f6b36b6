import { describe, expect, it } from 'vitest';
import { Manifest, type Release } from '../../operator-controller/release/index.ts';
import { revisionOf } from '../../operator-controller/revisions/index.ts';
import { extensionDetail, extensionRow, releaseObjectsView, uninstallPreview } from './extensions.ts';

const ce = {
  metadata: { name: 'ext', uid: 'u-1' },
  spec: { namespace: 'ns', serviceAccount: { name: 'ext-installer' }, source: { catalog: { packageName: 'pkg' } } },
  status: {
    install: { bundle: { version: '1.0.0' } },
    conditions: [
      { type: 'Installed', status: 'True', reason: 'Succeeded', message: 'ok', lastTransitionTime: '2026-01-01T00:00:00Z' },
      { type: 'UpgradeAvailable', status: 'True', reason: 'ApprovalRequired', message: 'v2 waits' },
    ],
  },
};

const release = (revision: number, status: Release['status'], objects: Release['manifest']): Release => ({
  extension: 'ext',
  extensionUID: 'u-1',
  revision,
  status,
  bundle: { package: 'pkg', name: `pkg.v${revision}`, version: `${revision}.0.0`, image: 'r/x' },
  manifest: objects,
  properties: [],
  description: 'Install complete',
  lastDeployed: `2026-01-0${revision}T00:00:00Z`,
});

const revision = (...a: Parameters<typeof release>) => revisionOf(release(...a));

const objects = Manifest.ofObjects([
  { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'ws.example.com' } },
  { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'op', namespace: 'ns' } },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'op-role' } },
]);

describe('extension pages', () => {
  it('reads every condition, including UpgradeAvailable, and tolerates what is missing', () => {
    expect(extensionRow(ce).upgradeAvailable).toEqual({ status: 'True', reason: 'ApprovalRequired', message: 'v2 waits' });
    expect(extensionRow({}).upgradeAvailable).toEqual({ status: '', reason: '', message: '' });
    expect(extensionRow({ status: { conditions: 'not a list' } }).installed.status).toBe('');
  });

  it('lists Events newest first (series, lastTimestamp or creation time) and the release history as history prints it', () => {
    const about = { involvedObject: { kind: 'ClusterExtension', name: 'ext', uid: 'u-1' } };
    const events = [
      { ...about, type: 'Normal', reason: 'Old', message: 'a', lastTimestamp: '2026-01-01T00:00:00Z', count: 2 },
      { ...about, type: 'Warning', reason: 'New', note: 'b', series: { count: 5, lastObservedTime: '2026-01-03T00:00:00Z' } },
      { ...about, type: 'Normal', reason: 'Mid', message: 'c', metadata: { creationTimestamp: '2026-01-02T00:00:00Z' } },
      // A deleted extension of the same name (issue 71): another uid.
      { involvedObject: { kind: 'ClusterExtension', name: 'ext', uid: 'u-0' }, type: 'Warning', reason: 'Gone', message: 'd', count: 1 },
    ];
    const d = extensionDetail(
      ce,
      { state: 'installed', progress: '' },
      events,
      [revision(2, 'deployed', objects), revision(1, 'superseded', objects)],
      ['x: forbidden'],
    );
    expect(d.events.map((e) => [e.reason, e.message, e.count])).toEqual([
      ['New', 'b', 5],
      ['Mid', 'c', 1],
      ['Old', 'a', 2],
    ]);
    expect(d.releases.map((r) => [r.revision, r.status, r.version, r.objects, r.updated])).toEqual([
      [2, 'deployed', '2.0.0', 3, '2026-01-02T00:00:00Z'],
      [1, 'superseded', '1.0.0', 3, '2026-01-01T00:00:00Z'],
    ]);
    expect(d.conditions[0]).toEqual({
      type: 'Installed',
      status: 'True',
      reason: 'Succeeded',
      message: 'ok',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
    expect([d.uid, d.serviceAccount, d.deleting, d.problems]).toEqual(['u-1', 'ext-installer', false, ['x: forbidden']]);
  });

  it('reports an extension whose Progressing is Retrying as retrying with its message, installed or not (issue 71)', () => {
    const retrying = {
      ...ce,
      status: {
        ...ce.status,
        conditions: [...ce.status.conditions, { type: 'Progressing', status: 'True', reason: 'Retrying', message: 'pull failed' }],
      },
    };
    const d = extensionDetail(retrying, { state: 'waiting', progress: 'Retrying: pull failed' }, [], [], []);
    expect(d.progress).toEqual({ state: 'retrying', progress: 'pull failed' });
    expect(extensionDetail(ce, { state: 'installed', progress: '' }, [], [], []).progress.state).toBe('installed');
  });

  it('previews an uninstall: the extension and its release objects go, CRDs (with their custom resources), installer RBAC and namespace stay', () => {
    const p = uninstallPreview(
      ce,
      [revision(2, 'failed', Manifest.ofObjects([])), revision(1, 'deployed', objects)],
      {
        extension: 'ext',
        crds: [
          { name: 'ws.example.com', uid: 'c', group: 'example.com', kind: 'W', scope: 'Namespaced', customResources: [{ namespace: 'a', count: 2 }] },
        ],
        refusals: [{ crd: 'shared.example.com', reason: 'ClusterExtension "other" owns it' }],
        unchecked: [],
      },
      ['ServiceAccount ns/ext-installer'],
      [],
    );
    expect(p.uid).toBe('u-1');
    expect(p.deleted).toEqual(['ClusterExtension ext', 'Deployment ns/op', 'ClusterRole op-role']);
    expect(p.keptCrds).toEqual([
      { name: 'shared.example.com', customResources: [], note: 'ClusterExtension "other" owns it' },
      { name: 'ws.example.com', customResources: [{ namespace: 'a', count: 2 }], note: '' },
    ]);
    expect(p.kept).toEqual(['ServiceAccount ns/ext-installer', 'Namespace ns']);
  });

  it('keeps the CRDs a release names even when they could not be read', () => {
    const p = uninstallPreview(ce, [revision(1, 'deployed', objects)], undefined, [], ['CustomResourceDefinitions: forbidden']);
    expect(p.keptCrds).toEqual([{ name: 'ws.example.com', customResources: [], note: 'named by the release' }]);
    expect(p.problems).toEqual(['CustomResourceDefinitions: forbidden']);
  });

  it("judges the release's objects as the health step does: a refused judged object leaves no verdict, a missing one is unhealthy", () => {
    const id = (apiVersion: string, kind: string, name: string, namespace = '') => ({ apiVersion, kind, name, namespace });
    const crd = id('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'ws.example.com');
    const dep = id('apps/v1', 'Deployment', 'op', 'ns');
    const role = id('rbac.authorization.k8s.io/v1', 'ClusterRole', 'op-role');
    const established = { status: { conditions: [{ type: 'Established', status: 'True' }] } };
    const unavailable = {
      metadata: { generation: 2 },
      status: { observedGeneration: 2, conditions: [{ type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'no' }] },
    };
    const r = release(2, 'deployed', objects);
    const v = releaseObjectsView(r, [
      { identity: crd, read: { object: established } },
      { identity: dep, read: { object: unavailable } },
      { identity: role, read: { object: {} } },
    ]);
    expect(v.objects.map((o) => [o.kind, o.health, o.message])).toEqual([
      ['CustomResourceDefinition', 'Healthy', ''],
      ['Deployment', 'Unhealthy', 'Available=False MinimumReplicasUnavailable: no'],
      ['ClusterRole', 'Present', ''],
    ]);
    expect([v.revision, v.bundle, v.version]).toEqual([2, 'pkg.v2', '2.0.0']);
    expect(v.verdict).toEqual({
      status: 'False',
      reason: 'Unhealthy',
      message: 'Deployment ns/op: Available=False MinimumReplicasUnavailable: no',
    });
    const forbidden = 'deployments.apps "op" is forbidden: User "u" cannot get resource "deployments"';
    const refused = releaseObjectsView(r, [
      { identity: crd, read: { status: 404, error: 'not found' } },
      { identity: dep, read: { status: 403, error: forbidden } },
      { identity: role, read: { status: 404, error: 'clusterroles "op-role" not found' } },
    ]);
    expect(refused.objects.map((o) => [o.health, o.message])).toEqual([
      ['NotFound', 'not found'],
      ['Unreadable', forbidden],
      ['NotFound', 'clusterroles "op-role" not found'],
    ]);
    expect(refused.verdict).toBeUndefined();
    // A refused kind the health step does not judge leaves the verdict: the CRD not found makes it Unhealthy.
    const missing = releaseObjectsView(r, [
      { identity: crd, read: { status: 404, error: 'not found' } },
      { identity: role, read: { status: 403, error: 'forbidden' } },
    ]);
    expect(missing.verdict?.message).toBe('CustomResourceDefinition ws.example.com: not found');
    expect(releaseObjectsView(undefined, []).revision).toBe(0);
  });
});
