import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kube/index.ts';
import { changedPhasesMessage, phaseDigest } from './sources.ts';

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
