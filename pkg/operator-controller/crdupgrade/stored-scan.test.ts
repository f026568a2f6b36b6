import { describe, expect, it } from 'vitest';
import { widget, widgetSchemaCrd } from '../../../test/support/crd-builders.ts';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';
import { checkCrdUpgrade } from './check.ts';
import { coverableVersions } from './stored-coverable.ts';
import { storedObjectsVerdict } from './stored-decide.ts';
import { describeScan, scanStoredObjects } from './stored-scan.ts';

const crd = widgetSchemaCrd;

const loose = crd({ replicas: { type: 'integer' }, mode: { type: 'string' } });
const tight = crd({ replicas: { type: 'integer', maximum: 5 }, mode: { type: 'string' } });
const signal = new AbortController().signal;

describe('coverableVersions', () => {
  it('takes tightenings, and CEL-only unhandled changes', () => {
    expect(coverableVersions(loose, tight, checkCrdUpgrade(loose, tight))).toEqual(['v1']);
    const cel = crd({ replicas: { type: 'integer' }, mode: { type: 'string' } }, { 'x-kubernetes-validations': [{ rule: 'self.replicas < 3' }] });
    const violations = checkCrdUpgrade(loose, cel);
    expect(violations.map((v) => v.rule)).toEqual(['unhandled']);
    expect(coverableVersions(loose, cel, violations)).toEqual(['v1']);
  });

  it('refuses anything stored objects cannot decide', () => {
    const retyped = crd({ replicas: { type: 'string' }, mode: { type: 'string' } });
    expect(coverableVersions(loose, retyped, checkCrdUpgrade(loose, retyped))).toBeUndefined();
    const removed = crd({ replicas: { type: 'integer', maximum: 5 } });
    expect(coverableVersions(loose, removed, checkCrdUpgrade(loose, removed))).toBeUndefined();
    const preserve = crd({ replicas: { type: 'integer' }, mode: { type: 'string' } }, { 'x-kubernetes-preserve-unknown-fields': true });
    expect(coverableVersions(loose, preserve, checkCrdUpgrade(loose, preserve))).toBeUndefined();
  });
});

describe('scanStoredObjects', () => {
  it('pages through every object, keeps the first failures and counts the rest', async () => {
    const cluster = fakeCluster();
    for (let i = 0; i < 7; i++) cluster.seed(widget(`w${i}`, i));
    const r = await scanStoredObjects(cluster.client, tight, ['v1'], signal, { pageSize: 2, maxObjects: 100, deadlineMs: 10_000, keep: 1 });
    expect(r).toMatchObject({ checked: 7, failingCount: 1 });
    expect(cluster.calls.filter((c) => c.startsWith('list Widget'))).toHaveLength(4);
    expect(describeScan(r)).toBe(
      'CRD widgets.example.com: 1 of 7 stored objects fail the new schema: ns/w6 (spec.replicas: Invalid value: 6: spec.replicas in body should be less than or equal to 5)',
    );
    const two = await scanStoredObjects(cluster.client, crd({ replicas: { type: 'integer', maximum: 3 } }), ['v1'], signal, {
      pageSize: 2,
      maxObjects: 100,
      deadlineMs: 10_000,
      keep: 2,
    });
    expect(describeScan(two)).toMatch(
      /^CRD widgets.example.com: 3 of 7 stored objects fail the new schema: ns\/w4 \(.*\), ns\/w5 \(.*\), and 1 more$/,
    );
  });

  it('is incomplete past its bounds or when the list is refused', async () => {
    const cluster = fakeCluster();
    for (let i = 0; i < 5; i++) cluster.seed(widget(`w${i}`, 1));
    const many = await scanStoredObjects(cluster.client, tight, ['v1'], signal, { pageSize: 2, maxObjects: 3, deadlineMs: 10_000, keep: 5 });
    expect(many.incomplete).toBe('more than 3 stored objects');
    let t = 0;
    const late = await scanStoredObjects(
      cluster.client,
      tight,
      ['v1'],
      signal,
      { pageSize: 2, maxObjects: 100, deadlineMs: 10, keep: 5 },
      () => (t += 6),
    );
    expect(late.incomplete).toBe('not every stored object was checked within 0.01s');
    cluster.refuse('list Widget', new Error('widgets.example.com is forbidden'));
    const refused = await scanStoredObjects(cluster.client, tight, ['v1'], signal);
    expect(refused.incomplete).toContain('listing Widget example.com/v1 failed: widgets.example.com is forbidden');
  });
});

describe('scanStoredObjects against the installed schema', () => {
  it('counts only what the change causes', async () => {
    const cluster = fakeCluster();
    // Stored before `mode` had its pattern (ratcheting keeps it storable), and failing it under both schemas.
    cluster.seed({ ...widget('old', 1), spec: { replicas: 1, mode: 'UPPER' } });
    const patterned = crd({ replicas: { type: 'integer' }, mode: { type: 'string', pattern: '^[a-z]+$' } });
    const both = crd({ replicas: { type: 'integer', maximum: 5 }, mode: { type: 'string', pattern: '^[a-z]+$' } });
    const limits = { pageSize: 10, maxObjects: 100, deadlineMs: 10_000, keep: 5 };
    expect(await scanStoredObjects(cluster.client, both, ['v1'], signal, limits, Date.now, patterned)).toMatchObject({ failingCount: 0 });
    expect(await scanStoredObjects(cluster.client, both, ['v1'], signal, limits)).toMatchObject({ failingCount: 1 });
  });
});

describe('storedObjectsVerdict', () => {
  it('lets a tightening through only when every stored object passes', async () => {
    const cluster = fakeCluster();
    cluster.seed(widget('a', 1));
    expect(await storedObjectsVerdict(cluster.client, loose, tight, checkCrdUpgrade(loose, tight), signal)).toMatchObject({
      letThrough: true,
      text: 'CRD widgets.example.com: all 1 stored objects pass the new schema',
    });
    cluster.seed(widget('b', 9));
    expect(await storedObjectsVerdict(cluster.client, loose, tight, checkCrdUpgrade(loose, tight), signal)).toMatchObject({ letThrough: false });
    const retyped = crd({ replicas: { type: 'string' }, mode: { type: 'string' } });
    expect(await storedObjectsVerdict(cluster.client, loose, retyped, checkCrdUpgrade(loose, retyped), signal)).toMatchObject({ letThrough: false });
  });
});
