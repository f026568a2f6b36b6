// `olmv1 status`'s cluster gate beyond olm.maxOpenShiftVersion (decision 0118): objects of
// installed releases whose apiVersion the target Kubernetes minor removes, and operators that
// report Upgradeable=False. End to end: test/e2e/cluster-gate.test.ts.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import { STATUS_EXIT, StatusReport, buildStatusReport, statusExitCode, type StatusInput } from '../../pkg/olmv1/status/index.ts';
import { renderStatusTable } from './status-table.ts';

const extension = (name: string, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'olm.operatorframework.io/v1',
  kind: 'ClusterExtension',
  metadata: { name, ...(annotations === undefined ? {} : { annotations }) },
  spec: { namespace: name, source: { sourceType: 'Catalog', catalog: { packageName: name } } },
  status: { install: { bundle: { name: `${name}.v1.0.0`, version: '1.0.0' } } },
});

const flowSchema = { apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta3', kind: 'FlowSchema', metadata: { name: 'fs' } };
const hpa = { apiVersion: 'autoscaling/v2beta2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h', namespace: 'b' } };
const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'a' } };

function input(over: Partial<StatusInput>): StatusInput {
  return {
    version: { ok: false, error: 'the cluster serves no config.openshift.io/v1 ClusterVersion API (it is not OpenShift)' },
    catalogs: [],
    extensions: [extension('b'), extension('a')],
    deployed: new Map([
      ['a', { extension: 'a', bundle: 'a.v1.0.0', properties: [] }],
      ['b', { extension: 'b', bundle: 'b.v1.0.0', properties: [] }],
    ]),
    unreadable: [],
    kubernetes: { ok: true, target: { major: 1n, minor: 37n }, source: 'flag' },
    objects: new Map([
      ['b', [hpa, flowSchema]],
      ['a', [deployment]],
    ]),
    ...over,
  };
}

describe('olmv1 status: removed APIs', () => {
  it('blocks (exit 1, even without a cluster version) naming extension, object, apiVersion and replacement', () => {
    const report = buildStatusReport(input({}));
    expect(StatusReport.parse(report)).toEqual(report);
    expect(report.kubernetes).toEqual({ targetVersion: '1.37', targetSource: 'flag', error: null });
    expect(report.verdict.upgradeable).toBe(false);
    expect(report.verdict.removedApis).toEqual([
      {
        extension: 'b',
        kind: 'HorizontalPodAutoscaler',
        namespace: 'b',
        name: 'h',
        apiVersion: 'autoscaling/v2beta2',
        removedIn: '1.26',
        replacement: 'autoscaling/v2',
      },
      {
        extension: 'b',
        kind: 'FlowSchema',
        namespace: null,
        name: 'fs',
        apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta3',
        removedIn: '1.32',
        replacement: 'flowcontrol.apiserver.k8s.io/v1',
      },
    ]);
    expect(statusExitCode(report)).toBe(STATUS_EXIT.blocked);
    const table = renderStatusTable(report, { color: false });
    expect(table).toContain('cluster upgrade: olm.maxOpenShiftVersion allows it, whatever the cluster version\n');
    expect(table).toContain(
      'Kubernetes upgrade to 1.37: blocked by removed APIs\n' +
        '  b: HorizontalPodAutoscaler b/h uses autoscaling/v2beta2, removed in 1.26; use autoscaling/v2\n' +
        '  b: FlowSchema fs uses flowcontrol.apiserver.k8s.io/v1beta3, removed in 1.32; use flowcontrol.apiserver.k8s.io/v1\n',
    );
  });

  it('a target that still serves them allows the upgrade', () => {
    const report = buildStatusReport(input({ kubernetes: { ok: true, target: { major: 1n, minor: 25n }, source: 'server' } }));
    expect(report.verdict).toMatchObject({ upgradeable: true, removedApis: [] });
    expect(statusExitCode(report)).toBe(STATUS_EXIT.allowed);
    const table = renderStatusTable(report, { color: false });
    expect(table).toContain('cluster upgrade: allowed, whatever the cluster version\n');
    expect(table).toContain('Kubernetes upgrade to 1.25: no installed object uses a removed API\n');
  });

  it('without a Kubernetes version says it did not check, and does not block on it', () => {
    const report = buildStatusReport(input({ kubernetes: { ok: false, error: "cannot read the API server's version: boom" } }));
    expect(report.kubernetes).toEqual({ targetVersion: null, targetSource: null, error: "cannot read the API server's version: boom" });
    expect(report.verdict.removedApis).toEqual([]);
    expect(statusExitCode(report)).toBe(STATUS_EXIT.allowed);
    expect(renderStatusTable(report, { color: false })).toContain(
      "removed APIs: not checked (cannot read the API server's version: boom); pass --kubernetes-version X.Y",
    );
  });
});

describe('olmv1 status: Upgradeable=False', () => {
  it('blocks with the operator message, and is absent from the report when no operator says it', () => {
    const held = extension('a', {
      'olm.operatorframework.io/upgradeable': 'False',
      'olm.operatorframework.io/upgradeable-message': 'migrating the widget store',
    });
    const report = buildStatusReport(
      input({ extensions: [extension('b'), held], objects: new Map(), version: { ok: true, current: { major: 4n, minor: 18n }, source: 'flag' } }),
    );
    expect(report.verdict.notUpgradeable).toEqual([{ extension: 'a', message: 'migrating the widget store' }]);
    expect(report.verdict.upgradeable).toBe(false);
    expect(statusExitCode(report)).toBe(STATUS_EXIT.blocked);
    expect(renderStatusTable(report, { color: false })).toContain(
      'cluster upgrade to 4.19: olm.maxOpenShiftVersion allows it (current 4.18, from --cluster-version)\n' +
        'Kubernetes upgrade to 1.37: no installed object uses a removed API\n' +
        'cluster upgrade: blocked by operators that report Upgradeable=False\n  a: Upgradeable=False: migrating the widget store\n',
    );
    const clear = buildStatusReport(input({ objects: new Map() }));
    expect(clear.verdict.notUpgradeable).toBeUndefined();
    expect(statusExitCode(clear)).toBe(STATUS_EXIT.allowed);
  });
});
