import { describe, expect, it } from 'vitest';
import { parseNormalized } from './reference.ts';
import { parsePolicy, type Policy } from './signature-policy.ts';
import { policyNamespaces, requirementsFor } from './signature-scope.ts';

function policy(scopes: Record<string, string>): Policy {
  const docker = Object.fromEntries(Object.entries(scopes).map(([k, v]) => [k, [{ type: v }]]));
  const r = parsePolicy(JSON.stringify({ default: [{ type: 'reject' }], transports: { docker } }), 'p.json');
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

describe('scope lookup', () => {
  it('lists the repository, parents, host and wildcard domains (port dropped), most specific first', () => {
    expect(policyNamespaces(parseNormalized('registry.example.com:5000/team/sub/app:v1'))).toEqual([
      'registry.example.com:5000/team/sub/app',
      'registry.example.com:5000/team/sub',
      'registry.example.com:5000/team',
      'registry.example.com:5000',
      '*.example.com',
      '*.com',
    ]);
    expect(policyNamespaces(parseNormalized('busybox'))).toEqual(['docker.io/library/busybox', 'docker.io/library', 'docker.io', '*.io']);
  });

  const all = {
    'r.example.com/team/app:v1': 'insecureAcceptAnything',
    'r.example.com/team/app': 'reject',
    'r.example.com/team': 'reject',
    'r.example.com': 'reject',
    '*.example.com': 'insecureAcceptAnything',
    '': 'reject',
  };
  it.each([
    ['r.example.com/team/app:v1', all, 'docker:r.example.com/team/app:v1'],
    ['r.example.com/team/app:v2', all, 'docker:r.example.com/team/app'],
    ['r.example.com/team/other:v1', all, 'docker:r.example.com/team'],
    ['r.example.com/x:v1', all, 'docker:r.example.com'],
    ['other.example.com/x:v1', all, 'docker:*.example.com'],
    ['quay.io/x:v1', all, 'docker'],
    ['quay.io/x:v1', { 'a.io': 'reject' }, 'default'],
    [
      `r.example.com/team/app@sha256:${'a'.repeat(64)}`,
      { [`r.example.com/team/app@sha256:${'a'.repeat(64)}`]: 'reject', 'r.example.com/team/app': 'reject' },
      `docker:r.example.com/team/app@sha256:${'a'.repeat(64)}`,
    ],
  ])('%s under %o uses %s', (ref, scopes, want) => {
    expect(requirementsFor(policy(scopes), parseNormalized(ref)).scope).toBe(want);
  });

  it('a wildcard matches subdomains only, and a host scope does not match another port', () => {
    const p = policy({ '*.example.com': 'insecureAcceptAnything', 'r.io:5000': 'insecureAcceptAnything' });
    expect(requirementsFor(p, parseNormalized('example.com/x:v1')).scope).toBe('default');
    expect(requirementsFor(p, parseNormalized('r.io:5001/x:v1')).scope).toBe('default');
    expect(requirementsFor(p, parseNormalized('r.io:5000/x:v1')).scope).toBe('docker:r.io:5000');
  });
});
