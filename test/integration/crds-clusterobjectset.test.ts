// The experimental ClusterObjectSet CRD (config/crd/experimental) on a real kube-apiserver: the
// cases of upstream's api/v1/clusterobjectset_types_test.go, and every other rule of the CRD,
// each refused with upstream's message. Also status.activeRevisions of ClusterExtension, served
// for the Boxcutter runtime as upstream's experimental CRD has it.
//
// Upstream's own "invalid" cases omit spec.collisionProtection (Go's omitempty drops it), so the
// API server refuses them whatever else they hold. Here every invalid object is valid but for
// the one defect its case names, and the refusal must carry that defect's message. One upstream
// case does not hold on its own: "phases entry names cannot start with numeric characters". The
// rule (format.dns1123Label(), byte-identical here) admits a leading digit, so "1-invalid" is
// admitted once the rest of the object is valid.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLUSTER_OBJECT_SET } from '../../pkg/shared/api/index.ts';
import {
  collection,
  createForReal,
  ceSpec,
  dryRunUpdate,
  expectAccepted,
  expectRejected,
  extension,
  send,
  uniqueName,
  useCrds,
  type ApiResponse,
  type Json,
} from '../support/crd-admission.ts';
import { kubectlWaitEstablished } from '../support/crd-established.ts';

useCrds();

const exec = promisify(execFile);
const CRD_FILE = fileURLToPath(new URL('../../config/crd/experimental/olm.operatorframework.io_clusterobjectsets.yaml', import.meta.url));
const objects = collection(CLUSTER_OBJECT_SET.plural);

function kubectl(args: string[]): Promise<{ stdout: string }> {
  const cp = inject('envtestControlPlane');
  return exec(cp.kubectl, ['--kubeconfig', cp.kubeconfigPath, ...args]);
}

beforeAll(async () => {
  await kubectl(['apply', '--server-side', '--force-conflicts', '-f', CRD_FILE]);
  await kubectlWaitEstablished(kubectl, [`crd/${CLUSTER_OBJECT_SET.crdName}`]);
});

// Removing the CRD removes every ClusterObjectSet with it; no other suite uses the kind.
afterAll(async () => {
  await kubectl(['delete', '--ignore-not-found', '--wait=false', `crd/${CLUSTER_OBJECT_SET.crdName}`]);
});

// Messages of upstream's CEL rules, byte for byte.
const MSG = {
  unarchive: 'cannot un-archive',
  revision: 'revision is immutable',
  phases: 'phases is immutable',
  collision: 'collisionProtection is immutable',
  dnsLabel: 'the value must consist of only lowercase alphanumeric characters and hyphens, and must start and end with an alphanumeric character.',
  oneOf: 'exactly one of the fields in [object ref] must be set',
  groupKind: 'groupKind is required when type is GroupKind, and forbidden otherwise',
  label: 'label is required when type is Label, and forbidden otherwise',
  labelOneOf: 'exactly one of matchLabels or matchExpressions must be set',
  conditionEqual: 'conditionEqual is required when type is ConditionEqual, and forbidden otherwise',
  fieldsEqual: 'fieldsEqual is required when type is FieldsEqual, and forbidden otherwise',
  fieldValue: 'fieldValue is required when type is FieldValue, and forbidden otherwise',
  fieldPath: 'must contain a valid field path. valid fields contain upper or lower-case alphanumeric characters separated by the "." character.',
  digest: "digest must be in the format '<algorithm>:<hex>'",
  observed: 'observedPhases is immutable',
} as const;

const configMap = (name = 'test-cm'): Json => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
const inline = (extra: Json = {}): Json => ({ object: configMap(), ...extra });
const ref = (r: Json = {}): Json => ({ ref: { name: 'my-secret', key: 'my-key', ...r } });
const phase = (name: string, objs: Json[] = [inline()], extra: Json = {}): Json => ({ name, objects: objs, ...extra });
/** A valid spec (upstream's minimal one) with `extra` merged in; `undefined` values drop a field. */
const spec = (extra: Json = {}): Json => {
  const merged: Json = { lifecycleState: 'Active', revision: 1, collisionProtection: 'Prevent', ...extra };
  return Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== undefined));
};
const objectSet = (s: Json): Json => ({
  apiVersion: CLUSTER_OBJECT_SET.apiVersion,
  kind: CLUSTER_OBJECT_SET.kind,
  metadata: { name: uniqueName() },
  spec: s,
});
const groupKindSelector = { type: 'GroupKind', groupKind: { group: 'apps', kind: 'Deployment' } };
const conditionAssertion = { type: 'ConditionEqual', conditionEqual: { type: 'Available', status: 'True' } };
const probe = (p: Json = {}): Json => ({ selector: groupKindSelector, assertions: [conditionAssertion], ...p });
const probes = (...list: Json[]): Json => spec({ progressionProbes: list });
const assertion = (a: Json): Json => probes(probe({ assertions: [a] }));
const selector = (s: Json): Json => probes(probe({ selector: s }));

const dryRunCreate = (obj: Json): Promise<ApiResponse> => send('POST', `${objects}?dryRun=All`, obj);
const nameOf = (obj: Json): string => (obj.metadata as Json).name as string;
const dryRunPut = (obj: Json, sub = ''): Promise<ApiResponse> => send('PUT', `${objects}/${nameOf(obj)}${sub}?dryRun=All`, obj);

async function store(s: Json): Promise<Json> {
  const res = await send('POST', objects, objectSet(s));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

interface Case {
  name: string;
  spec: Json;
  /** Absent: admitted. */
  reject?: { field: string; message: string };
}

function table(cases: Case[]): void {
  for (const c of cases) {
    it(c.reject === undefined ? `admits: ${c.name}` : `refuses: ${c.name}`, async () => {
      const res = await dryRunCreate(objectSet(c.spec));
      if (c.reject === undefined) expectAccepted(res);
      else expectRejected(res, c.reject.field, c.reject.message);
    });
  }
}

describe('ClusterObjectSet creation (upstream TestClusterObjectSetValidity)', () => {
  const numbered = (n: number, objs: Json[] = []): Json[] => Array.from({ length: n }, (_, i) => phase(`p${i}`, objs));
  table([
    {
      name: 'revision cannot be negative',
      spec: spec({ revision: -1 }),
      reject: { field: 'spec.revision', message: 'should be greater than or equal to 1' },
    },
    {
      name: 'revision cannot be zero',
      spec: spec({ revision: 0 }),
      reject: { field: 'spec.revision', message: 'should be greater than or equal to 1' },
    },
    { name: 'revision must be set', spec: spec({ revision: undefined }), reject: { field: 'spec.revision', message: 'Required value' } },
    { name: 'revision must be positive', spec: spec() },
    {
      name: 'lifecycleState must be set',
      spec: spec({ lifecycleState: undefined }),
      reject: { field: 'spec.lifecycleState', message: 'Required value' },
    },
    { name: 'lifecycleState Archived', spec: spec({ lifecycleState: 'Archived' }) },
    {
      name: 'lifecycleState outside Active, Archived',
      spec: spec({ lifecycleState: 'Paused' }),
      reject: { field: 'spec.lifecycleState', message: 'Unsupported value: "Paused"' },
    },
    { name: 'phases with 20 phases', spec: spec({ phases: numbered(20) }) },
    {
      name: 'phases must have no more than 20 phases',
      spec: spec({ phases: numbered(21) }),
      reject: { field: 'spec.phases', message: 'must have at most 20 items' },
    },
    {
      name: 'a phase with 50 objects',
      spec: spec({
        phases: [
          phase(
            'many',
            Array.from({ length: 50 }, () => inline()),
          ),
        ],
      }),
    },
    {
      name: 'phases entries must have no more than 50 objects',
      spec: spec({
        phases: [
          phase(
            'too-many-objects',
            Array.from({ length: 51 }, () => inline()),
          ),
        ],
      }),
      reject: { field: 'spec.phases[0].objects', message: 'must have at most 50 items' },
    },
    {
      name: 'phases entry names cannot be empty (length)',
      spec: spec({ phases: [phase('')] }),
      reject: { field: 'spec.phases[0].name', message: 'should be at least 1 chars long' },
    },
    {
      name: 'phases entry names cannot be empty (DNS label rule)',
      spec: spec({ phases: [phase('')] }),
      reject: { field: 'spec.phases[0].name', message: MSG.dnsLabel },
    },
    {
      name: 'phases entry names cannot start with symbols',
      spec: spec({ phases: [phase('-invalid')] }),
      reject: { field: 'spec.phases[0].name', message: MSG.dnsLabel },
    },
    {
      name: 'phases entry names cannot end with symbols',
      spec: spec({ phases: [phase('invalid-')] }),
      reject: { field: 'spec.phases[0].name', message: MSG.dnsLabel },
    },
    {
      name: 'phases entry names cannot hold upper case',
      spec: spec({ phases: [phase('Deploy')] }),
      reject: { field: 'spec.phases[0].name', message: MSG.dnsLabel },
    },
    {
      name: 'phases entry names cannot hold dots',
      spec: spec({ phases: [phase('a.b')] }),
      reject: { field: 'spec.phases[0].name', message: MSG.dnsLabel },
    },
    // Upstream lists this as invalid, but only its missing collisionProtection makes it so.
    { name: 'a phase name starting with a digit (DNS-1123 labels may)', spec: spec({ phases: [phase('1-invalid')] }) },
    { name: 'a phase name of 63 characters', spec: spec({ phases: [phase('a'.repeat(63))] }) },
    {
      name: 'a phase name of 64 characters',
      spec: spec({ phases: [phase('a'.repeat(64))] }),
      reject: { field: 'spec.phases[0].name', message: 'Too long: may not be more than 63' },
    },
    {
      name: 'two phases of the same name (list map keyed by name)',
      spec: spec({ phases: [phase('deploy'), phase('deploy')] }),
      reject: { field: 'spec.phases[1]', message: 'Duplicate value' },
    },
    {
      name: 'a phase without objects',
      spec: spec({ phases: [{ name: 'deploy' }] }),
      reject: { field: 'spec.phases[0].objects', message: 'Required value' },
    },
    { name: 'a phase with an empty object list', spec: spec({ phases: [phase('deploy', [])] }) },
    { name: 'spec collisionProtection accepts Prevent', spec: spec({ collisionProtection: 'Prevent' }) },
    { name: 'spec collisionProtection accepts IfNoController', spec: spec({ collisionProtection: 'IfNoController' }) },
    { name: 'spec collisionProtection accepts None', spec: spec({ collisionProtection: 'None' }) },
    {
      name: 'spec collisionProtection is required',
      spec: spec({ collisionProtection: undefined }),
      reject: { field: 'spec.collisionProtection', message: 'Required value' },
    },
    {
      name: 'spec collisionProtection rejects invalid values',
      spec: spec({ collisionProtection: 'Invalid' }),
      reject: { field: 'spec.collisionProtection', message: 'Unsupported value: "Invalid"' },
    },
    { name: 'object collisionProtection is optional', spec: spec({ phases: [phase('deploy')] }) },
    {
      name: 'phase and object collisionProtection',
      spec: spec({ phases: [phase('deploy', [inline({ collisionProtection: 'None' }), ref({})], { collisionProtection: 'IfNoController' })] }),
    },
    {
      name: 'phase collisionProtection outside the enum',
      spec: spec({ phases: [phase('deploy', [inline()], { collisionProtection: 'Always' })] }),
      reject: { field: 'spec.phases[0].collisionProtection', message: 'Unsupported value: "Always"' },
    },
    {
      name: 'object collisionProtection outside the enum',
      spec: spec({ phases: [phase('deploy', [inline({ collisionProtection: 'Always' })])] }),
      reject: { field: 'spec.phases[0].objects[0].collisionProtection', message: 'Unsupported value: "Always"' },
    },
    { name: 'object with inline object is valid', spec: spec({ phases: [phase('deploy', [inline()])] }) },
    { name: 'object with ref is valid', spec: spec({ phases: [phase('deploy', [ref()])] }) },
    { name: 'a ref with a namespace', spec: spec({ phases: [phase('deploy', [ref({ namespace: 'olmv1-system' })])] }) },
    {
      name: 'object with both object and ref is invalid',
      spec: spec({ phases: [phase('deploy', [{ ...inline(), ...ref() }])] }),
      reject: { field: 'spec.phases[0].objects[0]', message: MSG.oneOf },
    },
    {
      name: 'object with neither object nor ref is invalid',
      spec: spec({ phases: [phase('deploy', [{}])] }),
      reject: { field: 'spec.phases[0].objects[0]', message: MSG.oneOf },
    },
    {
      name: 'an inline object without kind (embedded resource)',
      spec: spec({ phases: [phase('deploy', [{ object: { apiVersion: 'v1', metadata: { name: 'x' } } }])] }),
      reject: { field: 'spec.phases[0].objects[0].object.kind', message: 'Required value' },
    },
    {
      name: 'a ref without key',
      spec: spec({ phases: [phase('deploy', [{ ref: { name: 'my-secret' } }])] }),
      reject: { field: 'spec.phases[0].objects[0].ref.key', message: 'Required value' },
    },
    {
      name: 'a ref with an empty name',
      spec: spec({ phases: [phase('deploy', [ref({ name: '' })])] }),
      reject: { field: 'spec.phases[0].objects[0].ref.name', message: 'should be at least 1 chars long' },
    },
    {
      name: 'a ref name of 254 characters',
      spec: spec({ phases: [phase('deploy', [ref({ name: 'a'.repeat(254) })])] }),
      reject: { field: 'spec.phases[0].objects[0].ref.name', message: 'Too long: may not be more than 253' },
    },
    {
      name: 'a ref key of 254 characters',
      spec: spec({ phases: [phase('deploy', [ref({ key: 'a'.repeat(254) })])] }),
      reject: { field: 'spec.phases[0].objects[0].ref.key', message: 'Too long: may not be more than 253' },
    },
    {
      name: 'a ref namespace of 64 characters',
      spec: spec({ phases: [phase('deploy', [ref({ namespace: 'a'.repeat(64) })])] }),
      reject: { field: 'spec.phases[0].objects[0].ref.namespace', message: 'Too long: may not be more than 63' },
    },
  ]);
});

describe('ClusterObjectSet spec.progressDeadlineMinutes', () => {
  const field = 'spec.progressDeadlineMinutes';
  table([
    { name: '10 minutes', spec: spec({ progressDeadlineMinutes: 10 }) },
    { name: '720 minutes', spec: spec({ progressDeadlineMinutes: 720 }) },
    { name: '9 minutes', spec: spec({ progressDeadlineMinutes: 9 }), reject: { field, message: 'should be greater than or equal to 10' } },
    { name: '721 minutes', spec: spec({ progressDeadlineMinutes: 721 }), reject: { field, message: 'should be less than or equal to 720' } },
  ]);
});

describe('ClusterObjectSet spec.progressionProbes', () => {
  const sel = 'spec.progressionProbes[0].selector';
  const asr = 'spec.progressionProbes[0].assertions[0]';
  table([
    { name: 'a GroupKind probe with a ConditionEqual assertion', spec: probes(probe()) },
    { name: '20 probes', spec: probes(...Array.from({ length: 20 }, () => probe())) },
    { name: 'an empty probe list', spec: probes(), reject: { field: 'spec.progressionProbes', message: 'should have at least 1 items' } },
    {
      name: '21 probes',
      spec: probes(...Array.from({ length: 21 }, () => probe())),
      reject: { field: 'spec.progressionProbes', message: 'must have at most 20 items' },
    },
    { name: 'a probe without selector', spec: probes({ assertions: [conditionAssertion] }), reject: { field: sel, message: 'Required value' } },
    {
      name: 'a probe without assertions',
      spec: probes({ selector: groupKindSelector }),
      reject: { field: 'spec.progressionProbes[0].assertions', message: 'Required value' },
    },
    // Selector union.
    { name: 'a Label selector with matchLabels', spec: selector({ type: 'Label', label: { matchLabels: { app: 'x' } } }) },
    {
      name: 'a Label selector with matchExpressions',
      spec: selector({ type: 'Label', label: { matchExpressions: [{ key: 'app', operator: 'In', values: ['x'] }] } }),
    },
    { name: 'a GroupKind selector without groupKind', spec: selector({ type: 'GroupKind' }), reject: { field: sel, message: MSG.groupKind } },
    {
      name: 'a Label selector with groupKind',
      spec: selector({ type: 'Label', label: { matchLabels: { app: 'x' } }, groupKind: groupKindSelector.groupKind }),
      reject: { field: sel, message: MSG.groupKind },
    },
    { name: 'a Label selector without label', spec: selector({ type: 'Label' }), reject: { field: sel, message: MSG.label } },
    {
      name: 'a GroupKind selector with label',
      spec: selector({ ...groupKindSelector, label: { matchLabels: { app: 'x' } } }),
      reject: { field: sel, message: MSG.label },
    },
    {
      name: 'a label with both matchLabels and matchExpressions',
      spec: selector({ type: 'Label', label: { matchLabels: { app: 'x' }, matchExpressions: [{ key: 'tier', operator: 'Exists' }] } }),
      reject: { field: `${sel}.label`, message: MSG.labelOneOf },
    },
    { name: 'an empty label', spec: selector({ type: 'Label', label: {} }), reject: { field: `${sel}.label`, message: MSG.labelOneOf } },
    {
      name: 'a selector type outside the enum',
      spec: selector({ type: 'Name' }),
      reject: { field: `${sel}.type`, message: 'Unsupported value: "Name"' },
    },
    {
      name: 'a groupKind without kind',
      spec: selector({ type: 'GroupKind', groupKind: { group: 'apps' } }),
      reject: { field: `${sel}.groupKind.kind`, message: 'Required value' },
    },
    // Assertion union.
    {
      name: 'a FieldsEqual assertion',
      spec: assertion({ type: 'FieldsEqual', fieldsEqual: { fieldA: 'spec.replicas', fieldB: 'status.readyReplicas' } }),
    },
    { name: 'a FieldValue assertion', spec: assertion({ type: 'FieldValue', fieldValue: { fieldPath: 'status.phase', value: 'Bound' } }) },
    {
      name: 'an empty assertion list',
      spec: probes(probe({ assertions: [] })),
      reject: { field: 'spec.progressionProbes[0].assertions', message: 'should have at least 1 items' },
    },
    {
      name: '21 assertions',
      spec: probes(probe({ assertions: Array.from({ length: 21 }, () => conditionAssertion) })),
      reject: { field: 'spec.progressionProbes[0].assertions', message: 'must have at most 20 items' },
    },
    {
      name: 'ConditionEqual without conditionEqual',
      spec: assertion({ type: 'ConditionEqual' }),
      reject: { field: asr, message: MSG.conditionEqual },
    },
    { name: 'FieldsEqual without fieldsEqual', spec: assertion({ type: 'FieldsEqual' }), reject: { field: asr, message: MSG.fieldsEqual } },
    { name: 'FieldValue without fieldValue', spec: assertion({ type: 'FieldValue' }), reject: { field: asr, message: MSG.fieldValue } },
    {
      name: 'ConditionEqual with fieldValue as well',
      spec: assertion({ ...conditionAssertion, fieldValue: { fieldPath: 'status.phase', value: 'Bound' } }),
      reject: { field: asr, message: MSG.fieldValue },
    },
    {
      name: 'FieldValue with conditionEqual as well',
      spec: assertion({
        type: 'FieldValue',
        fieldValue: { fieldPath: 'status.phase', value: 'Bound' },
        conditionEqual: conditionAssertion.conditionEqual,
      }),
      reject: { field: asr, message: MSG.conditionEqual },
    },
    {
      name: 'FieldValue with fieldsEqual as well',
      spec: assertion({ type: 'FieldValue', fieldValue: { fieldPath: 'a', value: 'b' }, fieldsEqual: { fieldA: 'a', fieldB: 'b' } }),
      reject: { field: asr, message: MSG.fieldsEqual },
    },
    {
      name: 'an assertion type outside the enum',
      spec: assertion({ type: 'Exists' }),
      reject: { field: `${asr}.type`, message: 'Unsupported value: "Exists"' },
    },
    {
      name: 'a conditionEqual status Unknown',
      spec: assertion({ type: 'ConditionEqual', conditionEqual: { type: 'Ready', status: 'Unknown' } }),
      reject: { field: `${asr}.conditionEqual.status`, message: 'Unsupported value: "Unknown"' },
    },
    {
      name: 'an empty conditionEqual type',
      spec: assertion({ type: 'ConditionEqual', conditionEqual: { type: '', status: 'True' } }),
      reject: { field: `${asr}.conditionEqual.type`, message: 'should be at least 1 chars long' },
    },
    {
      name: 'a conditionEqual type of 201 characters',
      spec: assertion({ type: 'ConditionEqual', conditionEqual: { type: 'a'.repeat(201), status: 'True' } }),
      reject: { field: `${asr}.conditionEqual.type`, message: 'Too long: may not be more than 200' },
    },
    {
      name: 'a fieldA with an empty segment',
      spec: assertion({ type: 'FieldsEqual', fieldsEqual: { fieldA: 'spec..replicas', fieldB: 'status.readyReplicas' } }),
      reject: { field: `${asr}.fieldsEqual.fieldA`, message: MSG.fieldPath },
    },
    {
      name: 'a fieldB with a hyphen',
      spec: assertion({ type: 'FieldsEqual', fieldsEqual: { fieldA: 'spec.replicas', fieldB: 'status.ready-replicas' } }),
      reject: { field: `${asr}.fieldsEqual.fieldB`, message: MSG.fieldPath },
    },
    {
      name: 'a fieldPath with a leading dot',
      spec: assertion({ type: 'FieldValue', fieldValue: { fieldPath: '.status.phase', value: 'Bound' } }),
      reject: { field: `${asr}.fieldValue.fieldPath`, message: MSG.fieldPath },
    },
    {
      name: 'a fieldPath with an index',
      spec: assertion({ type: 'FieldValue', fieldValue: { fieldPath: 'status.conditions[0]', value: 'Bound' } }),
      reject: { field: `${asr}.fieldValue.fieldPath`, message: MSG.fieldPath },
    },
    {
      name: 'an empty fieldValue value',
      spec: assertion({ type: 'FieldValue', fieldValue: { fieldPath: 'status.phase', value: '' } }),
      reject: { field: `${asr}.fieldValue.value`, message: 'should be at least 1 chars long' },
    },
    {
      name: 'a fieldValue value of 201 characters',
      spec: assertion({ type: 'FieldValue', fieldValue: { fieldPath: 'status.phase', value: 'a'.repeat(201) } }),
      reject: { field: `${asr}.fieldValue.value`, message: 'Too long: may not be more than 200' },
    },
  ]);
});

describe('ClusterObjectSet updates (upstream TestClusterObjectSetImmutability)', () => {
  const withSpec = (stored: Json, patch: Json): Json => ({ ...stored, spec: { ...(stored.spec as Json), ...patch } });

  it('refuses: revision is immutable', async () => {
    const stored = await store(spec());
    expectRejected(await dryRunPut(withSpec(stored, { revision: 2 })), 'spec.revision', MSG.revision);
  });

  it('admits: phases may be initially empty', async () => {
    const stored = await store(spec({ phases: [] }));
    expect((stored.spec as Json).phases).toEqual([]);
    expectAccepted(await dryRunPut(withSpec(stored, { phases: [phase('foo', [])] })));
  });

  it('admits: phases may be initially unset', async () => {
    const stored = await store(spec());
    expectAccepted(await dryRunPut(withSpec(stored, { phases: [phase('foo', [])] })));
  });

  it('refuses: phases are immutable if not empty (renamed, added, emptied, objects changed)', async () => {
    const stored = await store(spec({ phases: [phase('foo', [])] }));
    for (const phases of [[phase('foo2', [])], [phase('foo', []), phase('bar', [])], [], [phase('foo', [inline()])]]) {
      expectRejected(await dryRunPut(withSpec(stored, { phases })), 'spec.phases', MSG.phases);
    }
    expectAccepted(await dryRunPut(withSpec(stored, { phases: [phase('foo', [])] })));
  });

  it('refuses: spec collisionProtection is immutable', async () => {
    const stored = await store(spec());
    expectRejected(await dryRunPut(withSpec(stored, { collisionProtection: 'None' })), 'spec.collisionProtection', MSG.collision);
  });

  it('admits Active to Archived; refuses Archived to Active (cannot un-archive); admits Archived kept', async () => {
    const active = await store(spec());
    expectAccepted(await dryRunPut(withSpec(active, { lifecycleState: 'Archived' })));
    const archived = await store(spec({ lifecycleState: 'Archived' }));
    expectRejected(await dryRunPut(withSpec(archived, { lifecycleState: 'Active' })), 'spec.lifecycleState', MSG.unarchive);
    expectAccepted(await dryRunPut({ ...archived, metadata: { ...(archived.metadata as Json), labels: { kept: 'yes' } } }));
  });

  it('admits setting progressDeadlineMinutes and progressionProbes later (no transition rule)', async () => {
    const stored = await store(spec());
    expectAccepted(await dryRunPut(withSpec(stored, { progressDeadlineMinutes: 30, progressionProbes: [probe()] })));
  });
});

describe('ClusterObjectSet status', () => {
  const condition = (type: string, status: string, reason: string): Json => ({
    type,
    status,
    reason,
    message: '',
    lastTransitionTime: '2024-01-02T03:04:05Z',
    observedGeneration: 1,
  });
  const digest = `sha256:${'ab'.repeat(32)}`;
  const withStatus = (stored: Json, status: Json): Json => ({ ...stored, status });
  let stored: Json;
  beforeAll(async () => {
    stored = await store(spec({ phases: [phase('deploy')] }));
  });

  it('admits the status operator-controller writes', async () => {
    const status = {
      conditions: [
        condition('Progressing', 'True', 'Succeeded'),
        condition('Available', 'True', 'ProbesSucceeded'),
        condition('Succeeded', 'True', 'Succeeded'),
      ],
      observedPhases: [{ name: 'deploy', digest }],
    };
    expectAccepted(await dryRunPut(withStatus(stored, status), '/status'));
  });

  it('refuses malformed observed phases with upstream messages', async () => {
    const field = 'status.observedPhases[0]';
    const put = (entry: Json): Promise<ApiResponse> => dryRunPut(withStatus(stored, { observedPhases: [entry] }), '/status');
    expectRejected(await put({ name: 'deploy', digest: 'sha256-abc' }), `${field}.digest`, MSG.digest);
    expectRejected(await put({ name: 'deploy', digest: 'sha256:ABC' }), `${field}.digest`, MSG.digest);
    expectRejected(await put({ name: 'deploy', digest: `sha256:${'a'.repeat(250)}` }), `${field}.digest`, 'Too long: may not be more than 256');
    expectRejected(await put({ name: '-deploy', digest }), `${field}.name`, MSG.dnsLabel);
    expectRejected(await put({ name: 'deploy' }), `${field}.digest`, 'Required value');
    const many = Array.from({ length: 21 }, (_, i) => ({ name: `p${i}`, digest }));
    expectRejected(await dryRunPut(withStatus(stored, { observedPhases: many }), '/status'), 'status.observedPhases', 'must have at most 20 items');
    const dup = [
      { name: 'deploy', digest },
      { name: 'deploy', digest },
    ];
    expectRejected(await dryRunPut(withStatus(stored, { observedPhases: dup }), '/status'), 'status.observedPhases[1]', 'Duplicate value');
  });

  it('refuses changing observedPhases once set', async () => {
    const first = await send('PUT', `${objects}/${nameOf(stored)}/status`, withStatus(stored, { observedPhases: [{ name: 'deploy', digest }] }));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const changed = withStatus(first.body, { observedPhases: [{ name: 'deploy', digest: `sha256:${'cd'.repeat(32)}` }] });
    expectRejected(await dryRunPut(changed, '/status'), 'status.observedPhases', MSG.observed);
    expectAccepted(await dryRunPut(withStatus(first.body, { observedPhases: [{ name: 'deploy', digest }] }), '/status'));
  });

  it('is shown by kubectl get: Available, Progressing, Age', async () => {
    const status = { conditions: [condition('Available', 'False', 'ProbeFailure'), condition('Progressing', 'True', 'Retrying')] };
    const current = await send('GET', `${objects}/${nameOf(stored)}`);
    const res = await send('PUT', `${objects}/${nameOf(stored)}/status`, withStatus(current.body, { ...(current.body.status as Json), ...status }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { stdout } = await kubectl(['get', CLUSTER_OBJECT_SET.plural, nameOf(stored)]);
    const [header = '', row = ''] = stdout.trim().split('\n');
    expect(header.split(/\s+/)).toEqual(['NAME', 'AVAILABLE', 'PROGRESSING', 'AGE']);
    expect(row.split(/\s+/).slice(0, 3)).toEqual([nameOf(stored), 'False', 'True']);
  });
});

describe('ClusterObjectSet CRD as served', () => {
  it('is cluster-scoped with upstream names and a status subresource', async () => {
    const res = await send('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CLUSTER_OBJECT_SET.crdName}`);
    expect(res.status).toBe(200);
    const crdSpec = res.body.spec as Json;
    expect(crdSpec.scope).toBe('Cluster');
    expect(crdSpec.names).toMatchObject({
      kind: CLUSTER_OBJECT_SET.kind,
      listKind: CLUSTER_OBJECT_SET.listKind,
      plural: CLUSTER_OBJECT_SET.plural,
      singular: CLUSTER_OBJECT_SET.singular,
    });
    expect(crdSpec.versions).toMatchObject([{ name: 'v1', served: true, storage: true, subresources: { status: {} } }]);
  });

  it('keeps unknown fields of an inline object and prunes unknown spec fields', async () => {
    const obj = { ...configMap(), data: { k: 'v' } };
    const res = await dryRunCreate(objectSet({ ...spec({ phases: [phase('deploy', [{ object: obj }])] }), unknownField: true }));
    expectAccepted(res);
    expect((res.body.spec as Json).phases).toEqual([phase('deploy', [{ object: obj }])]);
    expect(res.body.spec).not.toHaveProperty('unknownField');
  });
});

describe('ClusterExtension status.activeRevisions (as upstream experimental)', () => {
  const condition = { type: 'Progressing', status: 'True', reason: 'RollingOut', message: 'm', lastTransitionTime: '2024-01-02T03:04:05Z' };
  let ce: Json;
  beforeAll(async () => {
    ce = await createForReal(extension(ceSpec()));
  });
  const put = (activeRevisions: unknown): Promise<ApiResponse> => dryRunUpdate({ ...ce, status: { activeRevisions } }, '/status');

  it('admits revisions with and without conditions, and keeps them', async () => {
    const revisions = [{ name: 'ext-1' }, { name: 'ext-2', conditions: [condition] }];
    const res = await put(revisions);
    expectAccepted(res);
    expect((res.body.status as Json).activeRevisions).toEqual(revisions);
  });

  it('refuses an entry without name, duplicate names and malformed conditions', async () => {
    expectRejected(await put([{ conditions: [condition] }]), 'status.activeRevisions[0].name', 'Required value');
    expectRejected(await put([{ name: 'a' }, { name: 'a' }]), 'status.activeRevisions[1]', 'Duplicate value');
    const res = await put([{ name: 'a', conditions: [{ ...condition, status: 'Maybe' }] }]);
    expectRejected(res, 'status.activeRevisions[0].conditions[0].status', 'Unsupported value: "Maybe"');
    expectRejected(await put([{ name: 'a', conditions: [condition, condition] }]), 'status.activeRevisions[0].conditions[1]', 'Duplicate value');
    const { lastTransitionTime: _omitted, ...noTime } = condition;
    expectRejected(await put([{ name: 'a', conditions: [noTime] }]), 'status.activeRevisions[0].conditions[0].lastTransitionTime', 'Required value');
  });
});
