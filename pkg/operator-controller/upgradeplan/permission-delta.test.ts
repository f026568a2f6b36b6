import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../bundle/index.ts';
import { formatPermissionDelta, permissionDelta, type PermissionDelta } from './permission-delta.ts';

const RBAC = 'rbac.authorization.k8s.io/v1';

function clusterRole(name: string, rules: unknown): KubeObject {
  return { apiVersion: RBAC, kind: 'ClusterRole', metadata: { name }, rules } as KubeObject;
}
function role(namespace: string, name: string, rules: unknown): KubeObject {
  return { apiVersion: RBAC, kind: 'Role', metadata: { name, namespace }, rules } as KubeObject;
}

/** `scope role rule [!]` lines of each side. */
function lines(d: PermissionDelta): { gained: string[]; lost: string[] } {
  const line = (c: PermissionDelta['gained'][number]): string => `${c.scope} ${c.role} ${c.rule}${c.escalates ? ' !' : ''}`;
  return { gained: d.gained.map(line), lost: d.lost.map(line) };
}

const deployments = { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list'] };

describe('permissionDelta', () => {
  const cases: { name: string; before: KubeObject[]; after: KubeObject[]; gained: string[]; lost: string[] }[] = [
    { name: 'nothing on either side', before: [], after: [], gained: [], lost: [] },
    {
      name: 'same rules',
      before: [clusterRole('a', [deployments])],
      after: [clusterRole('a', [deployments])],
      gained: [],
      lost: [],
    },
    {
      name: 'renamed generated role with the same rules is no change',
      before: [clusterRole('op.v1-abc', [deployments])],
      after: [clusterRole('op.v2-xyz', [deployments])],
      gained: [],
      lost: [],
    },
    {
      name: 'rule moved to another role and split is no change',
      before: [clusterRole('a', [deployments, { apiGroups: [''], resources: ['pods'], verbs: ['get'] }])],
      after: [
        clusterRole('b', [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] }]),
        clusterRole('c', [
          { apiGroups: ['apps'], resources: ['deployments'], verbs: ['list'] },
          { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
        ]),
      ],
      gained: [],
      lost: [],
    },
    {
      name: 'a new verb is gained, compacted per resource',
      before: [clusterRole('a', [deployments])],
      after: [clusterRole('a', [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'create', 'delete'] }])],
      gained: ['cluster ClusterRole a {apiGroups: ["apps"], resources: ["deployments"], verbs: ["create", "delete"]}'],
      lost: [],
    },
    {
      name: 'a dropped rule is lost',
      before: [role('ns1', 'r', [deployments, { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }])],
      after: [role('ns1', 'r', [deployments])],
      gained: [],
      lost: ['ns1 Role r {apiGroups: [""], resources: ["configmaps"], verbs: ["get"]}'],
    },
    {
      name: 'a cluster-wide grant covers the same grant in a namespace',
      before: [clusterRole('a', [deployments])],
      after: [role('ns1', 'r', [deployments])],
      gained: [],
      lost: ['cluster ClusterRole a {apiGroups: ["apps"], resources: ["deployments"], verbs: ["get", "list"]}'],
    },
    {
      name: 'a Role grant in another namespace does not cover',
      before: [role('ns1', 'r', [deployments])],
      after: [role('ns2', 'r', [deployments])],
      gained: ['ns2 Role r {apiGroups: ["apps"], resources: ["deployments"], verbs: ["get", "list"]}'],
      lost: ['ns1 Role r {apiGroups: ["apps"], resources: ["deployments"], verbs: ["get", "list"]}'],
    },
    {
      name: 'wildcards before cover specific grants after',
      before: [clusterRole('a', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }])],
      after: [clusterRole('a', [deployments, { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] }])],
      gained: [],
      lost: ['cluster ClusterRole a {apiGroups: ["*"], resources: ["*"], verbs: ["*"]} !'],
    },
    {
      name: 'specific grants before do not cover a wildcard after, which escalates (and covers them)',
      before: [clusterRole('a', [deployments])],
      after: [clusterRole('a', [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['*'] }])],
      gained: ['cluster ClusterRole a {apiGroups: ["apps"], resources: ["deployments"], verbs: ["*"]} !'],
      lost: [],
    },
    {
      name: 'a rule without names covers named grants; names do not cover the unnamed',
      before: [clusterRole('a', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }])],
      after: [
        clusterRole('a', [
          { apiGroups: [''], resources: ['secrets'], resourceNames: ['x', 'system:y'], verbs: ['get'] },
          { apiGroups: [''], resources: ['configmaps'], resourceNames: ['cm'], verbs: ['get'] },
        ]),
      ],
      gained: ['cluster ClusterRole a {apiGroups: [""], resources: ["configmaps"], resourceNames: ["cm"], verbs: ["get"]}'],
      lost: ['cluster ClusterRole a {apiGroups: [""], resources: ["secrets"], verbs: ["get"]}'],
    },
    {
      name: 'escalating verbs and system: names are flagged',
      before: [],
      after: [
        clusterRole('a', [
          { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['bind', 'escalate'] },
          { apiGroups: [''], resources: ['secrets'], resourceNames: ['system:x'], verbs: ['get'] },
        ]),
      ],
      gained: [
        'cluster ClusterRole a {apiGroups: [""], resources: ["secrets"], resourceNames: ["system:x"], verbs: ["get"]} !',
        'cluster ClusterRole a {apiGroups: ["rbac.authorization.k8s.io"], resources: ["clusterroles"], verbs: ["bind", "escalate"]} !',
      ],
      lost: [],
    },
    {
      name: 'non-resource URLs: prefix wildcard covers; a Role grants none',
      before: [clusterRole('a', [{ nonResourceURLs: ['/metrics*'], verbs: ['get'] }])],
      after: [
        clusterRole('a', [{ nonResourceURLs: ['/metrics/x', '/healthz'], verbs: ['get'] }]),
        role('ns1', 'r', [{ nonResourceURLs: ['/other'], verbs: ['get'] }]),
      ],
      gained: ['cluster ClusterRole a {nonResourceURLs: ["/healthz"], verbs: ["get"]}'],
      lost: ['cluster ClusterRole a {nonResourceURLs: ["/metrics*"], verbs: ["get"]}'],
    },
    {
      name: 'objects that are not roles, and malformed roles, are skipped',
      before: [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, rules: [deployments] } as KubeObject,
        null as unknown as KubeObject,
        'text' as unknown as KubeObject,
        clusterRole('a', 'not a list'),
        clusterRole('b', [null, 3, { verbs: 'get' }, { apiGroups: ['apps'], verbs: ['get'] }]),
      ],
      after: [{ kind: 'ClusterRole', rules: [deployments] } as unknown as KubeObject],
      gained: ['cluster ClusterRole <unnamed> {apiGroups: ["apps"], resources: ["deployments"], verbs: ["get", "list"]}'],
      lost: [],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(lines(permissionDelta(c.before, c.after))).toEqual({ gained: c.gained, lost: c.lost });
    });
  }

  it('stays bounded on huge rules and rule lists, over-reporting rather than hiding', () => {
    const many = (n: number, p: string): string[] => Array.from({ length: n }, (_, i) => `${p}${i}`);
    const huge = { apiGroups: many(100, 'g'), resources: many(100, 'r'), resourceNames: many(100, 'n'), verbs: many(10, 'v') };
    const lots = Array.from({ length: 50_000 }, (_, i) => ({ apiGroups: [''], resources: [`r${i}`], verbs: ['get', '*'] }));
    const d = permissionDelta([clusterRole('a', [huge])], [clusterRole('a', [huge]), clusterRole('b', lots)]);
    expect(d.incomplete).toBe(true);
    expect(d.gained.length).toBeLessThanOrEqual(500);
    expect(d.gained.length).toBeGreaterThan(0);
    expect(d.gained.every((c) => c.role === 'ClusterRole b')).toBe(true);
    expect(d.lost).toEqual([]);
    expect(formatPermissionDelta(d).length).toBeLessThanOrEqual(1_000);
  });

  it('a huge rule compared whole: identical on both sides is no change, a new one is gained', () => {
    const many = (n: number, p: string): string[] => Array.from({ length: n }, (_, i) => `${p}${i}`);
    const huge = { apiGroups: many(100, 'g'), resources: many(100, 'r'), resourceNames: many(100, 'n'), verbs: ['get', 'list'] };
    expect(permissionDelta([clusterRole('a', [huge])], [clusterRole('b', [huge])]).gained).toEqual([]);
    const other = { ...huge, verbs: ['delete'] };
    const d = permissionDelta([clusterRole('a', [huge])], [clusterRole('a', [other])]);
    expect(d.gained.map((c) => c.summary)).toEqual(['delete g0,g1,g2,g3,+96/r0,r1,r2,r3,+96 n0,n1,n2,n3,+96']);
    expect(d.incomplete).toBe(true);
  });
});

describe('formatPermissionDelta', () => {
  it('is empty without changes', () => {
    expect(formatPermissionDelta({ gained: [], lost: [] })).toBe('');
  });

  it('lists escalating grants first with counts per side', () => {
    const d = permissionDelta(
      [role('ns1', 'r', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }])],
      [
        clusterRole('a', [
          { apiGroups: ['apps'], resources: ['deployments'], verbs: ['create'] },
          { apiGroups: [''], resources: ['pods'], verbs: ['*'] },
        ]),
      ],
    );
    expect(formatPermissionDelta(d)).toBe(
      '+2 rules (1 escalating): cluster: * pods (escalates); cluster: create apps/deployments; -1 rule: ns1: get configmaps',
    );
  });

  it('cuts long lists', () => {
    const rules = Array.from({ length: 20 }, (_, i) => ({ apiGroups: ['x'], resources: [`r${i}`], verbs: ['get'] }));
    const line = formatPermissionDelta(permissionDelta([], [clusterRole('a', rules)]));
    expect(line).toMatch(/^\+20 rules: cluster: get x\/r0; .*; \.\.\. 12 more$/);
  });
});
