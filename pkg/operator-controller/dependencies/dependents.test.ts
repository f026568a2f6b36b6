import { describe, expect, it } from 'vitest';
import type { Bundle, Property } from '../../shared/fbc/types.ts';
import { installedCandidate, servedApisCandidate } from './evaluate.ts';
import { brokenDependent } from './check.ts';
import { DEFAULT_LIMITS } from './limits.ts';
import { bundleRequirements } from './requirements.ts';
import type { Candidate, Requirement } from './types.ts';

const gvk = (version: string): Property => ({ type: 'olm.gvk', value: { group: 'b.example.com', version, kind: 'B' } });
const pkg = (name: string, version: string): Property => ({ type: 'olm.package', value: { packageName: name, version } });

function requirements(...properties: Property[]): Requirement[] {
  const r = bundleRequirements(
    { name: 'a.v1', properties: [pkg('a', '1.0.0'), ...properties] } satisfies Pick<Bundle, 'name' | 'properties'>,
    DEFAULT_LIMITS,
  );
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

const provider = (version: string, ...props: Property[]): Candidate =>
  installedCandidate({ name: 'b', packageName: 'b', version, properties: [pkg('b', version), ...props] });

describe('brokenDependent: the upgrade cases OLM prevents', () => {
  const needsApiB = {
    name: 'a',
    requirements: requirements({ type: 'olm.gvk.required', value: { group: 'b.example.com', version: 'v1', kind: 'B' } }),
  };
  const needsOldB = { name: 'a', requirements: requirements({ type: 'olm.package.required', value: { packageName: 'b', versionRange: '<2.0.0' } }) };

  it('deprecating a depended-on API: B moves to a bundle that provides C instead of B', () => {
    const broken = brokenDependent([needsApiB], [provider('1.0.0', gvk('v1'))], [provider('2.0.0', gvk('v2'))]);
    expect(broken).toMatchObject({ dependent: 'a', unmet: { description: 'API b.example.com/v1 B' } });
  });

  it('a version outside the dependent range', () => {
    expect(brokenDependent([needsOldB], [provider('1.0.0')], [provider('2.0.0')])).toMatchObject({ dependent: 'a' });
    expect(brokenDependent([needsOldB], [provider('1.0.0')], [provider('1.5.0')])).toBeUndefined();
  });

  it('the API still provided by someone else (or served by the cluster) does not hold the move', () => {
    const served = servedApisCandidate([{ group: 'b.example.com', version: 'v1', kind: 'B' }]);
    expect(brokenDependent([needsApiB], [provider('1.0.0', gvk('v1')), served], [provider('2.0.0'), served])).toBeUndefined();
  });

  it('a requirement unmet already before the move is not its doing', () => {
    expect(brokenDependent([needsOldB], [provider('3.0.0')], [provider('4.0.0')])).toBeUndefined();
  });
});
