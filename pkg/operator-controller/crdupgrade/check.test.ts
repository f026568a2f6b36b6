import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/unstructured/index.ts';
import { checkCrdUpgrade } from './check.ts';
import { checkCrdChanges, crdNames, formatCrdUpgradeError, isCrdV1 } from './index.ts';
import { compareKubeAwareVersions } from './versions.ts';
import { formatViolation } from './violation.ts';
import { testCrd, type Props } from '../../../test/support/crd-builders.ts';

const crd = testCrd;

function lines(older: KubeObject, newer: KubeObject): string[] {
  return checkCrdUpgrade(older, newer).map(formatViolation);
}

/** A CRD using most schema features, as a bundle ships it. */
function richCrd(): KubeObject {
  const spec = {
    schedule: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$', description: 'cron spec' },
    replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
    mode: { type: 'string', enum: ['Fast', 'Slow'], default: 'Fast' },
    port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
    labels: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 20 },
    steps: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string', minLength: 1 }, args: { type: 'array', items: { type: 'string' } } },
      },
    },
    template: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-embedded-resource': true },
    size: {
      type: 'object',
      oneOf: [{ required: ['small'] }, { required: ['large'] }],
      properties: { small: { type: 'boolean' }, large: { type: 'boolean' } },
    },
    limit: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= 0', message: 'must not be negative' }], nullable: true },
  };
  return crd([
    { name: 'v1', spec },
    { name: 'v1beta1', spec, served: true },
  ]);
}

/** `installed` as the API server returns it: server fields added, defaults filled in, keys in another order. */
function asServed(installed: KubeObject): KubeObject {
  const copy = JSON.parse(JSON.stringify(installed), (_k, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
  ) as KubeObject;
  copy.metadata = { ...copy.metadata, uid: 'u', resourceVersion: '12', generation: 1, managedFields: [{ manager: 'x' }] };
  const spec = copy['spec'] as Props;
  spec['conversion'] ??= { strategy: 'None' };
  copy['status'] = {
    ...(copy['status'] as Props),
    acceptedNames: { plural: 'crontabs', kind: 'CronTab' },
    conditions: [{ type: 'Established', status: 'True' }],
  };
  return copy;
}

describe('checkCrdUpgrade', () => {
  it('an unchanged CRD passes, compared with the copy the API server returns', () => {
    expect(lines(asServed(richCrd()), richCrd())).toEqual([]);
  });

  it('description-only changes pass', () => {
    const older = crd([{ name: 'v1', spec: { a: { type: 'string', description: 'old' } } }]);
    const newer = crd([{ name: 'v1', spec: { a: { type: 'string', description: 'new and longer' } } }]);
    expect(lines(older, newer)).toEqual([]);
  });

  it('added enum values and new optional fields pass', () => {
    const older = crd([{ name: 'v1', spec: { mode: { type: 'string', enum: ['A'] } } }]);
    const newer = crd([{ name: 'v1', spec: { mode: { type: 'string', enum: ['A', 'B'] }, extra: { type: 'string' } } }]);
    expect(lines(older, newer)).toEqual([]);
  });

  it('scope change is CRD-wide', () => {
    const spec = { a: { type: 'string' } };
    expect(lines(crd([{ name: 'v1', spec }]), crd([{ name: 'v1', spec }], { scope: 'Cluster' }))).toEqual([
      'scope: scope changed : "Namespaced" -> "Cluster"',
    ]);
  });

  it('a version still in status.storedVersions must stay; one never stored may go', () => {
    const spec = { a: { type: 'string' } };
    const older = crd(
      [
        { name: 'v1', spec },
        { name: 'v1alpha1', spec },
      ],
      { storedVersions: ['v1alpha1', 'v1'] },
    );
    expect(lines(older, crd([{ name: 'v1', spec }]))).toEqual(['storedVersionRemoval: stored versions removed : [v1alpha1]']);
    const migrated = crd(
      [
        { name: 'v1', spec },
        { name: 'v1alpha1', spec },
      ],
      { storedVersions: ['v1'] },
    );
    expect(lines(migrated, crd([{ name: 'v1', spec }]))).toEqual([]);
  });

  it('existing field removal lists every removed path per version, sorted', () => {
    const older = crd([{ name: 'v1', spec: { a: { type: 'object', properties: { b: { type: 'string' } } }, c: { type: 'string' } } }]);
    const newer = crd([{ name: 'v1', spec: { c: { type: 'string' } } }]);
    expect(lines(older, newer)).toEqual([
      'existingFieldRemoval: removed field : v1.^.spec.a',
      'existingFieldRemoval: removed field : v1.^.spec.a.b',
      'v1: ^.spec.a: type: type changed : "object" -> ""',
      'v1: ^.spec.a.b: type: type changed : "string" -> ""',
    ]);
  });

  describe('served versions', () => {
    const v1 = { foobarbaz: { type: 'string', enum: ['a', 'b'] } };
    const v2 = { foobarbaz: { type: 'string', enum: ['a'] } };

    it('a new incompatibility between served versions fails, named by the pair', () => {
      const older = crd([{ name: 'v1', spec: v1 }]);
      const newer = crd([
        { name: 'v2', spec: v2, storage: false },
        { name: 'v1', spec: v1, storage: true },
      ]);
      expect(lines(older, newer)).toEqual(['v1 -> v2: ^.spec.foobarbaz: enum: allowed enum values removed : ["b"]']);
    });

    it('issues the installed CRD already had between the same pair are not reported again', () => {
      const older = crd([
        { name: 'v1', spec: v1 },
        { name: 'v2', spec: v2 },
      ]);
      expect(lines(older, older)).toEqual([]);
      const newer = crd([
        { name: 'v1', spec: { ...v1, extraField: { type: 'boolean' } } },
        { name: 'v2', spec: { ...v2, extraField: { type: 'string' } } },
      ]);
      expect(lines(older, newer)).toEqual(['v1 -> v2: ^.spec.extraField: type: type changed : "boolean" -> "string"']);
    });

    it('are not compared when the new CRD converts with a webhook', () => {
      const older = crd([{ name: 'v1', spec: v1 }]);
      const newer = crd(
        [
          { name: 'v1', spec: v1 },
          { name: 'v2', spec: v2 },
        ],
        { webhook: true },
      );
      expect(lines(older, newer)).toEqual([]);
    });

    it('versions that are not served are not paired', () => {
      const older = crd([{ name: 'v1', spec: v1 }]);
      const newer = crd([
        { name: 'v1', spec: v1 },
        { name: 'v2', spec: v2, served: false },
      ]);
      expect(lines(older, newer)).toEqual([]);
    });

    it('pairs run from lower to higher priority version', () => {
      const older = crd([{ name: 'v1', spec: v2 }]);
      const newer = crd([
        { name: 'v1', spec: v2 },
        { name: 'v1beta1', spec: v1 },
      ]);
      expect(lines(older, newer)).toEqual(['v1beta1 -> v1: ^.spec.foobarbaz: enum: allowed enum values removed : ["b"]']);
    });
  });

  it('reports CRD-wide, then same-version, then served-version violations', () => {
    const older = crd([{ name: 'v1', spec: { a: { type: 'string' }, b: { type: 'string' } } }]);
    const newer = crd(
      [
        { name: 'v1', spec: { a: { type: 'integer' } } },
        { name: 'v2', spec: { a: { type: 'boolean' } } },
      ],
      { scope: 'Cluster' },
    );
    expect(lines(older, newer)).toEqual([
      'existingFieldRemoval: removed field : v1.^.spec.b',
      'scope: scope changed : "Namespaced" -> "Cluster"',
      'v1: ^.spec.a: type: type changed : "string" -> "integer"',
      'v1: ^.spec.b: type: type changed : "string" -> ""',
      'v1 -> v2: ^.spec.a: type: type changed : "integer" -> "boolean"',
    ]);
  });
});

describe('formatCrdUpgradeError', () => {
  it("is OLM's block: the CRD quoted, one violation a line", () => {
    const violations = checkCrdUpgrade(
      crd([{ name: 'v1', spec: { a: { type: 'string' } } }]),
      crd([{ name: 'v1', spec: { a: { type: 'integer' } } }], { scope: 'Cluster' }),
    );
    expect(formatCrdUpgradeError('crontabs.stable.example.com', violations)).toBe(
      'validating upgrade for CRD "crontabs.stable.example.com": scope: scope changed : "Namespaced" -> "Cluster"\n' +
        'v1: ^.spec.a: type: type changed : "string" -> "integer"',
    );
  });
});

describe('compareKubeAwareVersions', () => {
  it('orders GA over beta over alpha, then by number; other names lowest, in reverse lexical order', () => {
    const sorted = ['v2', 'v1alpha1', 'foo', 'v1', 'v10', 'v1beta2', 'v1beta1', 'bar', 'v2alpha1'].sort(compareKubeAwareVersions);
    expect(sorted).toEqual(['foo', 'bar', 'v1alpha1', 'v2alpha1', 'v1beta1', 'v1beta2', 'v1', 'v2', 'v10']);
  });
});

describe('isCrdV1', () => {
  it('accepts only apiextensions.k8s.io/v1 CustomResourceDefinitions', () => {
    expect(isCrdV1({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: {} })).toBe(true);
    expect(isCrdV1({ apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'CustomResourceDefinition', metadata: {} })).toBe(false);
    expect(isCrdV1({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} })).toBe(false);
  });
});

describe('checkCrdChanges', () => {
  it('checks each v1 CRD of a set against the installed one of its name; one not installed breaks nothing', () => {
    const crd = (name: string, versions: string[], stored: string[]) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name },
      spec: { scope: 'Namespaced', versions: versions.map((v, i) => ({ name: v, served: true, storage: i === 0 })) },
      status: { storedVersions: stored },
    });
    const proposed = [crd('a.t', ['v1'], []), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }, crd('b.t', ['v1'], [])];
    expect(crdNames(proposed)).toEqual(['a.t', 'b.t']);
    const changes = checkCrdChanges(proposed, new Map([['a.t', crd('a.t', ['v1', 'v2'], ['v1', 'v2'])]]));
    expect(changes.map((c) => [c.name, c.installed, c.violations.map((v) => v.rule)])).toEqual([
      ['a.t', true, ['storedVersionRemoval']],
      ['b.t', false, []],
    ]);
  });
});
