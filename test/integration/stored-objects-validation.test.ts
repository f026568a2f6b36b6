// The stored-object check's verdicts are the API server's (issue 63 item 1, decision 0120).
//
// For each schema tightening of the table (enum added, maximum lowered, pattern added, required
// added, a CEL rule added, maxItems lowered) a scratch CRD is created with the loose schema on
// the real kube-apiserver, custom resources are stored, and the CRD is replaced with the tight
// schema. For every stored object the validator predicts, and the server then answers:
//  - a dry-run create of the same content (full validation: what any change to a violating
//    value meets) — refused exactly when the validator reports errors, with the same texts;
//  - a real update that changes a sibling field (`spec.touch`): ratcheting (KEP-4008, on by
//    default since 1.30) re-validates only changed values, so constraints on the unchanged
//    leaves pass while those on `spec` itself (required, CEL on spec) are enforced — refused
//    exactly when the validator, given the stored object as the old one, predicts it.
// Then, under one CRD holding every kind of constraint the validator models, a dry-run create of
// each of a table of cases: refused exactly when predicted, with every predicted text.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { connect, type KubeClient, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { normalizeSchema, validateObject, type Json } from '../../pkg/operator-controller/crdupgrade/index.ts';
import { deleteAndWait, waitForCrdsEstablished } from '../support/bundle-flow.ts';
import { customResourceDefinition } from '../support/crds.ts';

const RUN = randomBytes(3).toString('hex');
const NS = `stored-${RUN}`;
const GROUP = `s${RUN}.stored.example.com`;

type Spec = { [k: string]: Json };

function specSchema(extra: { [k: string]: Json }, props: { [k: string]: { [k: string]: Json } } = {}): { [k: string]: Json } {
  const base: { [k: string]: { [k: string]: Json } } = {
    mode: { type: 'string' },
    replicas: { type: 'integer', maximum: 100 },
    name: { type: 'string' },
    items: { type: 'array', maxItems: 10, items: { type: 'string' } },
    touch: { type: 'integer' },
  };
  for (const [k, v] of Object.entries(props)) base[k] = { ...base[k], ...v };
  return { type: 'object', properties: { spec: { type: 'object', properties: base, ...extra } } };
}

interface Row {
  name: string;
  tight: { [k: string]: Json };
  objects: Spec[];
  /** A spec the tight schema refuses on create: the sign the server enforces it. */
  sentinel: Spec;
  /** The constraint is on an unchanged leaf: an update touching a sibling is let through. */
  ratchets: boolean;
}

const TABLE: Row[] = [
  {
    name: 'enum added',
    tight: specSchema({}, { mode: { enum: ['a', 'b'] } }),
    objects: [{ mode: 'a' }, { mode: 'c' }, {}],
    sentinel: { mode: 'zzz' },
    ratchets: true,
  },
  {
    name: 'maximum lowered',
    tight: specSchema({}, { replicas: { maximum: 5 } }),
    objects: [{ replicas: 3 }, { replicas: 10 }, { replicas: 5 }],
    sentinel: { replicas: 99 },
    ratchets: true,
  },
  {
    name: 'pattern added',
    tight: specSchema({}, { name: { pattern: '^[a-z]([-a-z0-9]*[a-z0-9])?$' } }),
    objects: [{ name: 'web-1' }, { name: 'Web' }, { name: 'a-' }, { name: 'ab\nc' }],
    sentinel: { name: 'ZZ' },
    ratchets: true,
  },
  {
    name: 'required added',
    tight: specSchema({ required: ['name'] }),
    objects: [{ name: 'x' }, { mode: 'a' }],
    sentinel: { mode: 'zzz' },
    ratchets: false,
  },
  {
    name: 'CEL rule added',
    tight: specSchema({ 'x-kubernetes-validations': [{ rule: "!has(self.mode) || self.mode != 'legacy'", message: 'mode legacy is gone' }] }),
    objects: [{ mode: 'legacy' }, { mode: 'a' }, {}],
    sentinel: { mode: 'legacy' },
    ratchets: false,
  },
  {
    name: 'maxItems lowered',
    tight: specSchema({}, { items: { maxItems: 2 } }),
    objects: [{ items: ['a'] }, { items: ['a', 'b', 'c'] }, { items: [] }],
    sentinel: { items: ['1', '2', '3', '4'] },
    ratchets: true,
  },
];

let kube: KubeContext;
let admin: KubeClient;
const cleanup: KubeObject[] = [];

beforeAll(async () => {
  kube = await connect({ kind: 'file', path: inject('envtestControlPlane').kubeconfigPath });
  admin = kube.client;
  await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
});

afterAll(async () => {
  for (const obj of cleanup.reverse()) await deleteAndWait(admin, obj).catch(() => undefined);
  await admin.delete({ apiVersion: 'v1', kind: 'Namespace', name: NS }).catch(() => undefined);
  kube?.close();
});

function crdFor(i: number, schema: { [k: string]: Json }): KubeObject {
  return customResourceDefinition({ group: GROUP, kind: `Tight${i}`, plural: `tight${i}s`, schema });
}

function cr(i: number, name: string, spec: Spec): KubeObject {
  return { apiVersion: `${GROUP}/v1`, kind: `Tight${i}`, metadata: { name, namespace: NS }, spec };
}

/** The server's answer to a write: undefined when accepted, its message when refused. */
async function answer(write: Promise<unknown>): Promise<string | undefined> {
  return write.then(
    () => undefined,
    (e: unknown) => (e as Error).message,
  );
}

describe('stored objects against a tightened schema: the validator predicts the API server', () => {
  it.each(TABLE.map((row, i) => [row.name, row, i] as const))('%s', async (_name, row, i) => {
    const loose = specSchema({});
    const crd = crdFor(i, loose);
    cleanup.push(crd);
    await admin.create(crd);
    await waitForCrdsEstablished(admin, [crd]);
    const stored: KubeObject[] = [];
    for (const [j, spec] of row.objects.entries()) {
      // The kind is served a moment after Established: retried until the create succeeds.
      const created = await vi.waitFor(() => admin.create(cr(i, `o${j}`, spec)), { timeout: 30_000, interval: 200 });
      stored.push(created);
    }

    const live = await admin.get<KubeObject>({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      name: crd.metadata.name ?? '',
    });
    const tight = crdFor(i, row.tight);
    await admin.update({ ...tight, metadata: { ...tight.metadata, resourceVersion: live.metadata.resourceVersion } });
    // The server swaps its validator asynchronously: wait until the sentinel is refused.
    await vi.waitFor(
      async () => {
        expect(await answer(admin.create(cr(i, 'sentinel', row.sentinel), { dryRun: true }))).toBeDefined();
      },
      { timeout: 30_000, interval: 200 },
    );

    const schema = normalizeSchema(row.tight);
    let refusedOnCreate = 0;
    let refusedOnUpdate = 0;
    for (const obj of stored) {
      const body = { apiVersion: obj.apiVersion, kind: obj.kind, spec: obj['spec'] as Json };
      // 1. Full validation: a create of the same content.
      const predicted = validateObject(schema, body as Json);
      expect(predicted.unchecked).toEqual([]);
      const server = await answer(admin.create(cr(i, `copy-${obj.metadata.name}`, obj['spec'] as Spec), { dryRun: true }));
      expect({ object: obj.metadata.name, refused: server !== undefined }).toEqual({
        object: obj.metadata.name,
        refused: predicted.errors.length > 0,
      });
      for (const e of predicted.errors) expect(server).toContain(e.text);
      if (server !== undefined) refusedOnCreate++;

      // 2. A real update changing one field: ratcheting spares unchanged values.
      const changedSpec = { ...(obj['spec'] as Spec), touch: 1 };
      const ratcheted = validateObject(schema, { ...body, spec: changedSpec } as Json, { old: body as Json });
      expect(ratcheted.unchecked).toEqual([]);
      const updated = await answer(admin.update({ ...obj, spec: changedSpec }));
      expect({ object: obj.metadata.name, refused: updated !== undefined }).toEqual({
        object: obj.metadata.name,
        refused: ratcheted.errors.length > 0,
      });
      for (const e of ratcheted.errors) expect(updated).toContain(e.text);
      if (updated !== undefined) refusedOnUpdate++;
    }
    // Every row has at least one object the tight schema refuses and one it accepts.
    expect(refusedOnCreate).toBeGreaterThan(0);
    expect(refusedOnCreate).toBeLessThan(stored.length);
    expect(refusedOnUpdate).toBe(row.ratchets ? 0 : refusedOnCreate);
  });
});

// The validator's texts and verdicts for each kind of constraint, against the server's own
// validation of a create (dry run) under one CRD that has them all.
const FIDELITY_SCHEMA: { [k: string]: Json } = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        short: { type: 'string', maxLength: 3 },
        long: { type: 'string', minLength: 2 },
        below: { type: 'integer', maximum: 5, exclusiveMaximum: true },
        above: { type: 'integer', minimum: 1, exclusiveMinimum: true },
        third: { type: 'integer', multipleOf: 3 },
        real: { type: 'number' },
        whole: { type: 'integer' },
        port: { 'x-kubernetes-int-or-string': true },
        maybe: { type: 'string', nullable: true },
        text: { type: 'string' },
        labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 2 } },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
        },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        pair: { type: 'array', minItems: 2, items: { type: 'string' } },
        one: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } },
        two: { type: 'object', minProperties: 2, additionalProperties: { type: 'string' } },
        id: { type: 'string', format: 'uuid' },
        day: { type: 'string', format: 'date' },
        level: { type: 'integer', enum: [1, 2] },
        range: {
          type: 'object',
          properties: { min: { type: 'integer' }, max: { type: 'integer' } },
          'x-kubernetes-validations': [{ rule: 'self.min <= self.max', message: 'min above max', fieldPath: '.min' }],
        },
      },
    },
  },
};

const FIDELITY_CASES: Spec[] = [
  { short: 'abc', long: 'ab', below: 4, above: 2, third: 9, real: 1.5, whole: 2, port: 'http', maybe: null },
  { short: '😀😀😀' },
  { short: 'abcd' },
  { short: '😀😀😀😀' },
  { long: 'a' },
  { below: 5 },
  { above: 1 },
  { third: 4 },
  { whole: 1.5 },
  { port: 8080 },
  { port: 1.5 },
  { port: true },
  { text: null },
  { text: 5 },
  { labels: { ab: 'abc', ok: 'ab' } },
  {
    ports: [
      { name: 'a', port: 1 },
      { name: 'a', port: 2 },
    ],
  },
  { ports: [{ port: 1 }] },
  { tags: ['x', 'x'] },
  { pair: ['x'] },
  { one: { a: 'x', b: 'y' } },
  { two: { a: 'x' } },
  { id: '123e4567-e89b-12d3-a456-426614174000' },
  { id: 'nope' },
  { day: '2024-02-29' },
  { day: '2023-02-29' },
  { level: 3 },
  { range: { min: 3, max: 2 } },
  { range: { min: 1, max: 2 } },
];

describe('the validator words and decides each constraint as the API server does', () => {
  it('a create of each case', async () => {
    const i = 99;
    const crd = crdFor(i, FIDELITY_SCHEMA);
    cleanup.push(crd);
    await admin.create(crd);
    await waitForCrdsEstablished(admin, [crd]);
    await vi.waitFor(() => admin.create(cr(i, 'probe', {}), { dryRun: true }), { timeout: 30_000, interval: 200 });
    const schema = normalizeSchema(FIDELITY_SCHEMA);
    const mismatches: unknown[] = [];
    for (const [n, spec] of FIDELITY_CASES.entries()) {
      const predicted = validateObject(schema, { apiVersion: `${GROUP}/v1`, kind: `Tight${i}`, spec } as Json);
      const server = await answer(admin.create(cr(i, `case-${n}`, spec), { dryRun: true }));
      const missing = predicted.errors.map((e) => e.text).filter((t) => server === undefined || !server.includes(t));
      if ((server !== undefined) !== predicted.errors.length > 0 || missing.length > 0 || predicted.unchecked.length > 0) {
        mismatches.push({ spec, server, predicted: predicted.errors.map((e) => e.text), unchecked: predicted.unchecked });
      }
    }
    expect(mismatches).toEqual([]);
  });
});
