import { describe, expect, it } from 'vitest';
import type { ClusterObjectSet } from '../../shared/api/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';
import { changedPhasesMessage, loadPhases, mutableSecretsMessage, phaseDigest } from './sources.ts';

describe('phaseDigest', () => {
  it("equals upstream's digest: Go's json.Marshal of the phase (sorted keys, HTML escaping), SHA-256", () => {
    const objects = JSON.parse(
      '[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a<b>&c","namespace":"ns","labels":{"z":"1","a":"2"}},"data":{"k":"héllo \\u2028 \\"q\\"","n":"x"},"x":[1,2.5,true,null,{"b":1,"a":[]}]}]',
    ) as KubeObject[];
    // Computed with Go 1.26: json.Marshal(map[string]any{"name": "phase-1", "objects": objects}).
    expect(phaseDigest('phase-1', objects)).toBe('sha256:cd8273b531fb3df46bb79edba9964d5e19ff632d6fe88c129ed3ff820c0789e3');
  });
});

describe('changedPhasesMessage', () => {
  const stored = [
    { name: 'a', digest: 'sha256:1' },
    { name: 'b', digest: 'sha256:2' },
  ];
  it('accepts the same content and names what changed in upstream words', () => {
    expect(changedPhasesMessage(stored, stored)).toBeUndefined();
    expect(changedPhasesMessage(stored, [stored[0] ?? { name: '', digest: '' }])).toBe('number of phases has changed (expected 2 phases, got 1)');
    expect(
      changedPhasesMessage(stored, [
        { name: 'a', digest: 'sha256:1' },
        { name: 'b', digest: 'sha256:3' },
      ]),
    ).toBe(
      'resolved content of 1 phase(s) has changed: phase "b" (expected digest sha256:2, got sha256:3); a referenced object source may have been deleted and recreated with different content',
    );
  });
});

describe('loadPhases and mutableSecretsMessage with Secret refs (issue 69)', () => {
  const revision = (ref: { name: string; namespace?: string; key: string }): ClusterObjectSet =>
    ({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterObjectSet',
      metadata: { name: 'ext-1' },
      spec: { revision: 1, lifecycleState: 'Active', collisionProtection: 'Prevent', phases: [{ name: 'deploy', objects: [{ ref }] }] },
    }) as ClusterObjectSet;
  const secret = (value: string, immutable = true): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'creds', namespace: 'olmv1-system' },
    immutable,
    data: { password: Buffer.from(value).toString('base64') },
  });

  it("names the Secret and key of a value that is not JSON in upstream's words, without a byte of it", async () => {
    const cluster = fakeCluster();
    cluster.seed(secret('SUPERSECRET-PASSWORD'));
    const err = await loadPhases(cluster.client, revision({ name: 'creds', namespace: 'olmv1-system', key: 'password' })).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toBe(
      'resolving ref in phase "deploy": unmarshaling object from key "password" in Secret olmv1-system/creds: not valid JSON',
    );
    for (let e: unknown = err; e instanceof Error; e = e.cause) expect(e.message).not.toMatch(/SUPER|SECRET|PASSWORD/);
  });

  it("reads a ref without a namespace from operator-controller's own namespace, as the CRD says", async () => {
    const cluster = fakeCluster();
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } };
    cluster.seed(secret(JSON.stringify(cm), false));
    const cos = revision({ name: 'creds', key: 'password' });
    expect(await mutableSecretsMessage(cluster.client, cos, undefined, 'olmv1-system')).toBe(
      'the following secrets are not immutable (referenced secrets must have immutable set to true): olmv1-system/creds',
    );
    const { phases } = await loadPhases(cluster.client, cos, undefined, 'olmv1-system');
    expect(phases[0]?.objects.map((o) => o.manifest)).toEqual([cm]);
    expect(cluster.calls).toContain('get Secret olmv1-system/creds');
  });
});
