import { describe, expect, it } from 'vitest';
import { clusterExtensionName, ownedBy, ownerLabels, requestKeyOf } from './naming.ts';

describe('clusterExtensionName', () => {
  it('is <namespace>-<name> when that splits back uniquely and fits', () => {
    expect(clusterExtensionName('tenants', 'argocd')).toBe('tenants-argocd');
  });

  it('hashes where two requests could meet one name, or the name is too long', () => {
    const a = clusterExtensionName('team-a', 'x');
    const b = clusterExtensionName('team', 'a-x');
    expect(b).toBe('team-a-x');
    expect(a).toMatch(/^team-a-x-[0-9a-f]{10}$/);
    const long = clusterExtensionName('n'.repeat(40), 'm'.repeat(40));
    expect(long.length).toBeLessThanOrEqual(53);
    expect(long).toMatch(/^n+-m*-?[0-9a-f]{10}$/);
    expect(clusterExtensionName('n'.repeat(40), 'm'.repeat(41))).not.toBe(long);
  });
});

describe('ownership labels', () => {
  it('prove an object was made for this very request', () => {
    const req = { namespace: 'team-a', name: 'argocd', uid: 'u1' };
    const obj = { metadata: { labels: ownerLabels(req) } };
    expect(ownedBy(obj, req)).toBe(true);
    expect(ownedBy(obj, { ...req, uid: 'u2' })).toBe(false);
    expect(ownedBy({ metadata: {} }, req)).toBe(false);
    expect(requestKeyOf(obj)).toBe('team-a/argocd');
  });
});
