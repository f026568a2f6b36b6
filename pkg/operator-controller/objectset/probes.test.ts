import { describe, expect, it } from 'vitest';
import type { ProgressionProbe } from '../../shared/api/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import { DEFAULT_PROGRESSION_PROBES, progressProbe, type ProbeResult } from './probes.ts';

const cm = (extra: Partial<KubeObject> = {}, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c', namespace: 'ns', labels, generation: 1 },
  ...extra,
});

const onConfigMaps = (assertions: ProgressionProbe['assertions']): ProgressionProbe => ({
  selector: { type: 'GroupKind', groupKind: { group: '', kind: 'ConfigMap' } },
  assertions,
});

const fieldValue = (fieldPath: string, value: string): ProgressionProbe => onConfigMaps([{ type: 'FieldValue', fieldValue: { fieldPath, value } }]);
const fieldsEqual = (fieldA: string, fieldB: string): ProgressionProbe => onConfigMaps([{ type: 'FieldsEqual', fieldsEqual: { fieldA, fieldB } }]);
const conditionEqual = (type: string, status: string): ProgressionProbe =>
  onConfigMaps([{ type: 'ConditionEqual', conditionEqual: { type, status } }]);

describe('progressProbe', () => {
  // Messages as boxcutter v0.14.0 words them (upstream's revision.feature compares some of them).
  const cases: Array<[string, ProgressionProbe[], KubeObject, ProbeResult]> = [
    ['no probes pass', [], cm(), { status: 'True', messages: [] }],
    [
      'FieldValue equal',
      [fieldValue('data.foo', 'bar')],
      cm({ data: { foo: 'bar' } }),
      { status: 'True', messages: ['value at key "data.foo" == "bar"'] },
    ],
    [
      'FieldValue different (upstream e2e text)',
      [fieldValue('data.foo', 'bar')],
      cm({ data: { foo: 'foo' } }),
      { status: 'False', messages: ['value at key "data.foo" != "bar"; expected: "bar" got: "foo"'] },
    ],
    ['FieldValue missing', [fieldValue('.status.phase.', 'Bound')], cm(), { status: 'False', messages: ['missing key: ".status.phase."'] }],
    [
      'FieldValue of a number never equals the string',
      [fieldValue('data.n', '1')],
      cm({ data: { n: 1 } }),
      { status: 'False', messages: ['value at key "data.n" != "1"; expected: "1" got: 1'] },
    ],
    [
      'FieldValue through a non-map',
      [fieldValue('data.foo.bar', 'x')],
      cm({ data: { foo: 'foo' } }),
      {
        status: 'False',
        messages: ['error locating key "data.foo.bar"; .data.foo.bar accessor error: foo is of the type string, expected map[string]interface{}'],
      },
    ],
    ['FieldsEqual equal', [fieldsEqual('a.x', 'a.y')], cm({ a: { x: [1], y: [1] } }), { status: 'True', messages: ['"a.x" == "a.y"'] }],
    [
      'FieldsEqual different',
      [fieldsEqual('status.updatedReplicas', 'status.replicas')],
      cm({ status: { updatedReplicas: 0, replicas: 1 } }),
      { status: 'False', messages: ['"status.updatedReplicas" != "status.replicas" expected: 0 got: 1'] },
    ],
    ['FieldsEqual missing B', [fieldsEqual('a.x', 'a.y')], cm({ a: { x: 1 } }), { status: 'False', messages: ['"a.y" missing'] }],
    ['ConditionEqual without conditions', [conditionEqual('Ready', 'True')], cm(), { status: 'Unknown', messages: ['missing .status.conditions'] }],
    [
      'ConditionEqual without that type',
      [conditionEqual('Ready', 'True')],
      cm({ status: { conditions: [{ type: 'Other', status: 'True' }] } }),
      { status: 'Unknown', messages: ['missing .status.condition["Ready"]'] },
    ],
    [
      'ConditionEqual met',
      [conditionEqual('Ready', 'True')],
      cm({ status: { conditions: [{ type: 'Ready', status: 'True' }] } }),
      { status: 'True', messages: ['.status.condition["Ready"] is True'] },
    ],
    [
      'ConditionEqual not met',
      [conditionEqual('Ready', 'True')],
      cm({ status: { conditions: [{ type: 'Ready', status: 'False' }] } }),
      { status: 'False', messages: ['.status.condition["Ready"] is False'] },
    ],
    [
      'ConditionEqual of an older generation',
      [conditionEqual('Ready', 'True')],
      cm({ status: { conditions: [{ type: 'Ready', status: 'True', observedGeneration: 0 }] } }),
      { status: 'Unknown', messages: ['.status.condition["Ready"] outdated'] },
    ],
    [
      'malformed conditions',
      [conditionEqual('Ready', 'True')],
      cm({ status: { conditions: 'x' } }),
      { status: 'Unknown', messages: ['malformed .status.conditions'] },
    ],
    [
      'a GroupKind selector that matches nothing passes',
      [
        {
          selector: { type: 'GroupKind', groupKind: { group: 'apps', kind: 'Deployment' } },
          assertions: [{ type: 'FieldValue', fieldValue: { fieldPath: 'x', value: 'y' } }],
        },
      ],
      cm(),
      { status: 'True', messages: [] },
    ],
    [
      'a Label selector by expression',
      [
        {
          selector: { type: 'Label', label: { matchExpressions: [{ key: 'k', operator: 'In', values: ['a', 'b'] }] } },
          assertions: [{ type: 'FieldValue', fieldValue: { fieldPath: 'data.foo', value: 'bar' } }],
        },
      ],
      cm({ data: { foo: 'x' } }, { k: 'b' }),
      { status: 'False', messages: ['value at key "data.foo" != "bar"; expected: "bar" got: "x"'] },
    ],
    [
      'a Label selector that does not match passes',
      [
        {
          selector: { type: 'Label', label: { matchLabels: { k: 'a' } } },
          assertions: [{ type: 'FieldValue', fieldValue: { fieldPath: 'data.foo', value: 'bar' } }],
        },
      ],
      cm({ data: { foo: 'x' } }, { k: 'b' }),
      { status: 'True', messages: [] },
    ],
    [
      'a stale status.observedGeneration is Unknown whatever the selector',
      [
        {
          selector: { type: 'GroupKind', groupKind: { group: 'apps', kind: 'Deployment' } },
          assertions: [{ type: 'FieldValue', fieldValue: { fieldPath: 'x', value: 'y' } }],
        },
      ],
      cm({ status: { observedGeneration: 0 } }),
      { status: 'Unknown', messages: ['.status outdated'] },
    ],
    [
      'Unknown wins over False, False over True',
      [fieldValue('data.foo', 'bar'), conditionEqual('Ready', 'True'), fieldValue('data.a', 'a')],
      cm({ data: { foo: 'x', a: 'a' } }),
      { status: 'Unknown', messages: ['missing .status.conditions'] },
    ],
    [
      'False messages of every failing assertion',
      [
        onConfigMaps([
          { type: 'FieldValue', fieldValue: { fieldPath: 'data.a', value: '1' } },
          { type: 'FieldValue', fieldValue: { fieldPath: 'data.b', value: '2' } },
        ]),
      ],
      cm({ data: {} }),
      { status: 'False', messages: ['missing key: "data.a"', 'missing key: "data.b"'] },
    ],
  ];
  it.each(cases)('%s', (_name, probes, obj, want) => {
    expect(progressProbe(probes, obj)).toEqual(want);
  });
});

describe('DEFAULT_PROGRESSION_PROBES', () => {
  const deployment = (status: Record<string, unknown>): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'ns', generation: 2 },
    status,
  });
  it('hold a Deployment until all replicas are updated and it is Available', () => {
    expect(progressProbe(DEFAULT_PROGRESSION_PROBES, deployment({})).status).toBe('Unknown');
    const rolling = deployment({ observedGeneration: 2, replicas: 2, updatedReplicas: 1, conditions: [{ type: 'Available', status: 'True' }] });
    expect(progressProbe(DEFAULT_PROGRESSION_PROBES, rolling)).toEqual({
      status: 'False',
      messages: ['"status.updatedReplicas" != "status.replicas" expected: 1 got: 2'],
    });
    const stale = deployment({ observedGeneration: 1, replicas: 2, updatedReplicas: 2, conditions: [{ type: 'Available', status: 'True' }] });
    // Every probe checks observedGeneration first, whatever it selects (boxcutter repeats the message).
    expect(progressProbe(DEFAULT_PROGRESSION_PROBES, stale)).toEqual({
      status: 'Unknown',
      messages: DEFAULT_PROGRESSION_PROBES.map(() => '.status outdated'),
    });
    const ready = deployment({ observedGeneration: 2, replicas: 2, updatedReplicas: 2, conditions: [{ type: 'Available', status: 'True' }] });
    expect(progressProbe(DEFAULT_PROGRESSION_PROBES, ready).status).toBe('True');
  });
  it('hold a PVC until Bound, a Namespace until Active, a CRD until Established', () => {
    const pvc: KubeObject = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'p', namespace: 'ns' },
      status: { phase: 'Pending' },
    };
    expect(progressProbe(DEFAULT_PROGRESSION_PROBES, pvc)).toEqual({
      status: 'False',
      messages: ['value at key "status.phase" != "Bound"; expected: "Bound" got: "Pending"'],
    });
    const ns: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' }, status: { phase: 'Active' } };
    expect(progressProbe(DEFAULT_PROGRESSION_PROBES, ns).status).toBe('True');
    const crd: KubeObject = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'a.b' },
      status: { conditions: [] },
    };
    expect(progressProbe(DEFAULT_PROGRESSION_PROBES, crd)).toEqual({ status: 'Unknown', messages: ['missing .status.condition["Established"]'] });
  });
  it('leave kinds they do not name alone', () => {
    expect(progressProbe(DEFAULT_PROGRESSION_PROBES, cm())).toEqual({ status: 'True', messages: [] });
  });
});
