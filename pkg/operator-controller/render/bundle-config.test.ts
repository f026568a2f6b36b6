import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { unmarshalBundleConfig } from './bundle-config.ts';

interface Vector {
  modes: string[];
  ns: string;
  dc: boolean;
  config: string | null;
  expected: string;
}

// Each vector's `expected` was produced by upstream's own code path (santhosh-tekuri
// jsonschema v6.0.3 with upstream's schema construction and error formatting) for the same
// install modes, install namespace, feature flag and raw configuration. Only cases whose
// upstream output is deterministic are included (Go visits object keys in random order).
const vectors = JSON.parse(readFileSync(new URL('./testdata/config-vectors.json', import.meta.url), 'utf8')) as Vector[];

function check(v: Vector): string {
  const r = unmarshalBundleConfig(v.config === null ? undefined : JSON.parse(v.config), {
    supportedModes: new Set(v.modes),
    installNamespace: v.ns,
    deploymentConfigEnabled: v.dc,
  });
  if (r.ok) return '';
  return r.error.startsWith('invalid deploymentConfig') ? 'decode' : r.error.replace(/^invalid ClusterExtension configuration: /, '');
}

describe('unmarshalBundleConfig matches upstream messages', () => {
  it(`on all ${vectors.length} recorded vectors`, () => {
    const mismatches = vectors
      .map((v) => ({ v, got: check(v) }))
      .filter(({ v, got }) => got !== 'decode' && got !== v.expected)
      .map(({ v, got }) => `${JSON.stringify(v)}\n   got: ${JSON.stringify(got)}`);
    expect(mismatches).toEqual([]);
    expect(vectors.length).toBeGreaterThan(1000);
  });

  it.each([
    [['OwnNamespace'], {}, 'required field "watchNamespace" is missing'],
    [['AllNamespaces'], { watchNamespace: 'x' }, 'unknown field "watchNamespace"'],
    [
      ['OwnNamespace'],
      { watchNamespace: 'other' },
      'invalid format for field "watchNamespace": \'other\' is not valid ownNamespaceInstallMode: invalid value "other": must be "install-ns" (the namespace where the operator is installed) because this operator only supports OwnNamespace install mode',
    ],
    [
      ['SingleNamespace'],
      { watchNamespace: 'install-ns' },
      'invalid format for field "watchNamespace": \'install-ns\' is not valid singleNamespaceInstallMode: invalid value "install-ns": must be different from "install-ns" (the install namespace) because this operator uses SingleNamespace install mode to watch a different namespace',
    ],
    [
      ['OwnNamespace', 'SingleNamespace'],
      { watchNamespace: 'A'.repeat(64) },
      'multiple errors found:\n  - field "watchNamespace" must have maximum length of 63 (len=64)\n  - field "watchNamespace" must match pattern "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"',
    ],
    [
      ['OwnNamespace', 'SingleNamespace'],
      { watchNamespace: '' },
      'multiple errors found:\n  - field "watchNamespace" must have minimum length of 1 (len=0)\n  - field "watchNamespace" must match pattern "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"',
    ],
    [
      ['AllNamespaces', 'OwnNamespace'],
      { watchNamespace: 5 },
      'multiple errors found:\n  - invalid value for field "watchNamespace"\n  - invalid type for field "watchNamespace": got number, want null\n  - invalid type for field "watchNamespace": got number, want string',
    ],
    [['AllNamespaces'], true, 'invalid type: got boolean, want object'],
  ])('reports %j %j as upstream does', (modes, config, message) => {
    const r = unmarshalBundleConfig(config, { supportedModes: new Set(modes), installNamespace: 'install-ns', deploymentConfigEnabled: true });
    expect(r).toEqual({ ok: false, error: `invalid ClusterExtension configuration: invalid configuration: ${message}` });
  });

  it('reports deploymentConfig as unknown when the feature is off', () => {
    const r = unmarshalBundleConfig(
      { deploymentConfig: {} },
      { supportedModes: new Set(['AllNamespaces']), installNamespace: 'ns', deploymentConfigEnabled: false },
    );
    expect(r).toEqual({ ok: false, error: 'invalid ClusterExtension configuration: invalid configuration: unknown field "deploymentConfig"' });
  });
});

describe('unmarshalBundleConfig extraction', () => {
  const opts = { supportedModes: new Set(['AllNamespaces', 'OwnNamespace']), installNamespace: 'ns', deploymentConfigEnabled: true };

  it('treats a missing config as {} and a null watchNamespace as unset, but not a null deploymentConfig', () => {
    expect(unmarshalBundleConfig(undefined, opts)).toEqual({ ok: true, value: {} });
    expect(unmarshalBundleConfig({ watchNamespace: null }, opts)).toEqual({ ok: true, value: {} });
    // A null deploymentConfig is a type error upstream (reported as a missing field).
    expect(unmarshalBundleConfig({ deploymentConfig: null }, opts)).toEqual({
      ok: false,
      error: 'invalid ClusterExtension configuration: invalid configuration: required field "deploymentConfig" is missing',
    });
    expect(unmarshalBundleConfig({ watchNamespace: 'ns' }, opts)).toEqual({ ok: true, value: { watchNamespace: 'ns' } });
  });

  it('drops fields Kubernetes does not know, as typed decoding does', () => {
    const r = unmarshalBundleConfig(
      { deploymentConfig: { env: [{ name: 'A', value: 'b', bogus: 1 }], tolerations: [{ key: 'k', whatever: true }] } },
      opts,
    );
    expect(r).toEqual({ ok: true, value: { deploymentConfig: { env: [{ name: 'A', value: 'b' }], tolerations: [{ key: 'k' }] } } });
  });

  it.each([
    [{ resources: { limits: { cpu: 'lots' } } }, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    [{ resources: { requests: { memory: '1Zi' } } }, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    [{ resources: { requests: { memory: '1kM' } } }, "unable to parse quantity's suffix"],
    [
      {
        affinity: {
          podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 3000000000, podAffinityTerm: { topologyKey: 't' } }] },
        },
      },
      'json: cannot unmarshal number 3000000000 into Go struct field WeightedPodAffinityTerm.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution.weight of type int32',
    ],
  ])('refuses values Kubernetes types reject: %j', (deploymentConfig, detail) => {
    const r = unmarshalBundleConfig({ deploymentConfig }, opts);
    expect(r).toEqual({ ok: false, error: `invalid deploymentConfig: failed to unmarshal deploymentConfig: ${detail}` });
  });

  it('accepts well-formed quantities, including numbers', () => {
    const resources = { limits: { cpu: '1.5', memory: '512Mi', storage: '1e3', x: 2 }, requests: { cpu: '100m', memory: '.5Gi' } };
    expect(unmarshalBundleConfig({ deploymentConfig: { resources } }, opts)).toEqual({ ok: true, value: { deploymentConfig: { resources } } });
  });
});
