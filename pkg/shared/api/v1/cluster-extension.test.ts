import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { ClusterExtension, parseClusterExtension } from '../index.ts';

const sample: unknown = load(readFileSync(new URL('../../../../config/samples/olm_v1_clusterextension.yaml', import.meta.url), 'utf8'));

// The smallest object the API server accepts.
const minimal = {
  apiVersion: 'olm.operatorframework.io/v1',
  kind: 'ClusterExtension',
  metadata: { name: 'ext' },
  spec: {
    namespace: 'ns',
    serviceAccount: { name: 'installer' },
    source: { sourceType: 'Catalog', catalog: { packageName: 'pkg' } },
  },
};

// As the API server returns it: server-set metadata, defaults applied, status written.
const fromServer = {
  apiVersion: 'olm.operatorframework.io/v1',
  kind: 'ClusterExtension',
  metadata: {
    name: 'ext',
    uid: '1b2c',
    generation: 2,
    resourceVersion: '812',
    creationTimestamp: '2024-01-02T03:04:05Z',
    deletionTimestamp: '2024-01-03T03:04:05Z',
    finalizers: ['olm.operatorframework.io/cleanup-unpack-cache'],
    labels: { team: 'a' },
    annotations: { note: 'x' },
    managedFields: [{ manager: 'kubectl' }],
  },
  spec: {
    namespace: 'ns',
    serviceAccount: { name: 'installer' },
    source: {
      sourceType: 'Catalog',
      catalog: {
        packageName: 'pkg',
        version: '>=1.0.0 <2.0.0',
        channels: ['stable'],
        selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] },
        upgradeConstraintPolicy: 'SelfCertified',
      },
    },
    install: { preflight: { crdUpgradeSafety: { enforcement: 'None' } } },
    config: { configType: 'Inline', inline: { watchNamespace: 'other', deploymentConfig: { env: [] } } },
  },
  status: {
    conditions: [
      {
        type: 'Installed',
        status: 'True',
        reason: 'Succeeded',
        message: 'Installed bundle r/b@sha256:00 successfully',
        lastTransitionTime: '2024-01-02T03:04:05Z',
        observedGeneration: 2,
      },
    ],
    install: { bundle: { name: 'pkg.v1.2.0', version: '1.2.0+2' } },
  },
};

describe('ClusterExtension schema', () => {
  it('accepts the sample manifest', () => {
    const parsed = parseClusterExtension(sample);
    expect(parsed).toMatchObject({ ok: true, value: { metadata: { name: 'example-operator' } } });
    if (!parsed.ok) return;
    expect(parsed.value.spec.serviceAccount?.name).toBe('example-operator-installer');
    expect(parsed.value.spec.source.catalog.packageName).toBe('example-operator');
  });

  it("accepts upstream's current YAML, which names no serviceAccount", () => {
    const { serviceAccount: _sa, ...spec } = minimal.spec;
    const parsed = parseClusterExtension({ ...minimal, spec });
    expect(parsed.ok && parsed.value.spec.serviceAccount).toBeUndefined();
  });

  it('applies the CRD default upgradeConstraintPolicy CatalogProvided', () => {
    expect(ClusterExtension.parse(minimal).spec.source.catalog.upgradeConstraintPolicy).toBe('CatalogProvided');
  });

  it('keeps every field our controllers read from a server object and drops the rest', () => {
    const parsed = ClusterExtension.parse(fromServer);
    expect(parsed.metadata).toEqual({ ...fromServer.metadata, managedFields: undefined });
    expect('managedFields' in parsed.metadata).toBe(false);
    expect(parsed.spec).toEqual(fromServer.spec);
    expect(parsed.status).toEqual(fromServer.status);
  });

  it('accepts a list item without apiVersion and kind', () => {
    const { apiVersion: _a, kind: _k, ...item } = minimal;
    expect(parseClusterExtension(item).ok).toBe(true);
  });

  it('accepts the experimental status.install.bundle.release', () => {
    const status = { install: { bundle: { name: 'b', version: '1.0.0', release: '2' } } };
    expect(ClusterExtension.parse({ ...minimal, status }).status?.install?.bundle.release).toBe('2');
  });
});

describe('parseClusterExtension errors', () => {
  const cases: { name: string; input: unknown; error: string }[] = [
    {
      name: 'not an object',
      input: 'ext',
      error: 'ClusterExtension is invalid: (root): Invalid input: expected object, received string',
    },
    {
      name: 'no spec (the CRD admits it, we cannot act on it)',
      input: { metadata: { name: 'ext' } },
      error: 'ClusterExtension "ext" is invalid: spec: Invalid input: expected object, received undefined',
    },
    {
      name: 'another kind',
      input: { ...minimal, kind: 'ClusterCatalog' },
      error: 'ClusterExtension "ext" is invalid: kind: Invalid input: expected "ClusterExtension"',
    },
    {
      name: 'serviceAccount without a name',
      input: { ...minimal, spec: { ...minimal.spec, serviceAccount: {} } },
      error: 'ClusterExtension "ext" is invalid: spec.serviceAccount.name: Invalid input: expected string, received undefined',
    },
    {
      name: 'several problems at once',
      input: {
        metadata: { name: 'ext' },
        spec: { namespace: 7, serviceAccount: { name: 'sa' }, source: { sourceType: 'Catalog', catalog: { channels: [1] } } },
      },
      error:
        'ClusterExtension "ext" is invalid: [spec.namespace: Invalid input: expected string, received number, ' +
        'spec.source.catalog.packageName: Invalid input: expected string, received undefined, ' +
        'spec.source.catalog.channels[0]: Invalid input: expected string, received number]',
    },
  ];

  for (const c of cases) {
    it(`reports ${c.name}`, () => {
      expect(parseClusterExtension(c.input)).toEqual({ ok: false, error: c.error });
    });
  }

  it('rejects an unknown sourceType and upgradeConstraintPolicy', () => {
    const bad = { ...minimal.spec.source, sourceType: 'Bundle' };
    expect(parseClusterExtension({ ...minimal, spec: { ...minimal.spec, source: bad } }).ok).toBe(false);
    const catalog = { packageName: 'pkg', upgradeConstraintPolicy: 'Never' };
    const source = { sourceType: 'Catalog', catalog };
    const result = parseClusterExtension({ ...minimal, spec: { ...minimal.spec, source } });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain('spec.source.catalog.upgradeConstraintPolicy');
  });
});
