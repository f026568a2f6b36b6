import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../bundle/index.ts';
import { objectDiff } from './index.ts';

function obj(apiVersion: string, kind: string, name: string, namespace: string | undefined, rest: Record<string, unknown> = {}): KubeObject {
  return { apiVersion, kind, metadata: { name, ...(namespace === undefined ? {} : { namespace }) }, ...rest } as KubeObject;
}
const cm = (name: string, data: Record<string, string>): KubeObject => obj('v1', 'ConfigMap', name, 'ns', { data });
const deploy = (replicas: number, image: string): KubeObject =>
  obj('apps/v1', 'Deployment', 'op', 'ns', { spec: { replicas, template: { spec: { containers: [{ name: 'm', image }] } } } });

describe('objectDiff', () => {
  const cases: { name: string; before: KubeObject[]; after: KubeObject[]; want: ReturnType<typeof objectDiff> }[] = [
    { name: 'empty', before: [], after: [], want: { added: [], removed: [], changed: [] } },
    { name: 'identical', before: [deploy(1, 'a')], after: [deploy(1, 'a')], want: { added: [], removed: [], changed: [] } },
    {
      name: 'added, removed and changed objects',
      before: [cm('old', { a: '1' }), deploy(1, 'img:1')],
      after: [deploy(2, 'img:2'), obj('rbac.authorization.k8s.io/v1', 'ClusterRole', 'cr', undefined, { rules: [] })],
      want: {
        added: ['ClusterRole cr'],
        removed: ['ConfigMap ns/old'],
        changed: [
          {
            object: 'Deployment ns/op',
            lines: [
              '- spec.replicas: 1',
              '+ spec.replicas: 2',
              '- spec.template.spec.containers[0].image: "img:1"',
              '+ spec.template.spec.containers[0].image: "img:2"',
            ],
          },
        ],
      },
    },
    {
      name: 'fields added and removed; keys that are not identifiers quoted',
      before: [
        obj('v1', 'ConfigMap', 'c', 'ns', { metadata: { name: 'c', namespace: 'ns', labels: { 'app.kubernetes.io/name': 'x' } }, data: { a: '1' } }),
      ],
      after: [obj('v1', 'ConfigMap', 'c', 'ns', { data: { b: '2' } })],
      want: {
        added: [],
        removed: [],
        changed: [{ object: 'ConfigMap ns/c', lines: ['- metadata.labels["app.kubernetes.io/name"]: "x"', '- data.a: "1"', '+ data.b: "2"'] }],
      },
    },
    {
      name: 'an apiVersion move is a change of the same object',
      before: [obj('apiextensions.k8s.io/v1beta1', 'CustomResourceDefinition', 'a.x', undefined)],
      after: [obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'a.x', undefined)],
      want: {
        added: [],
        removed: [],
        changed: [
          {
            object: 'CustomResourceDefinition a.x',
            lines: ['- apiVersion: "apiextensions.k8s.io/v1beta1"', '+ apiVersion: "apiextensions.k8s.io/v1"'],
          },
        ],
      },
    },
    {
      name: 'what an API server adds is no change',
      before: [
        obj('v1', 'ConfigMap', 'c', 'ns', {
          metadata: { name: 'c', namespace: 'ns', uid: 'u1', resourceVersion: '5', managedFields: [{}] },
          status: { x: 1 },
        }),
      ],
      after: [obj('v1', 'ConfigMap', 'c', 'ns')],
      want: { added: [], removed: [], changed: [] },
    },
    {
      name: 'Secret values are redacted, keys and other fields are not',
      before: [obj('v1', 'Secret', 's', 'ns', { type: 'Opaque', data: { password: 'b2xk', same: 'eA==' }, stringData: { token: 'old-token' } })],
      after: [obj('v1', 'Secret', 's', 'ns', { type: 'kubernetes.io/basic-auth', data: { password: 'bmV3', same: 'eA==', added: 'c2VjcmV0' } })],
      want: {
        added: [],
        removed: [],
        changed: [
          {
            object: 'Secret ns/s',
            lines: [
              '- type: "Opaque"',
              '+ type: "kubernetes.io/basic-auth"',
              '- data.password: (redacted)',
              '+ data.password: (redacted)',
              '- stringData.token: (redacted)',
              '+ data.added: (redacted)',
            ],
          },
        ],
      },
    },
    {
      name: 'values under data of other kinds are shown',
      before: [cm('c', { password: 'x' })],
      after: [cm('c', { password: 'y' })],
      want: { added: [], removed: [], changed: [{ object: 'ConfigMap ns/c', lines: ['- data.password: "x"', '+ data.password: "y"'] }] },
    },
    {
      name: 'entries that are not objects are skipped; missing names are named <unnamed>',
      before: [null as unknown as KubeObject, 7 as unknown as KubeObject],
      after: [{ kind: 'ConfigMap' } as unknown as KubeObject],
      want: { added: ['ConfigMap <unnamed>'], removed: [], changed: [] },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(objectDiff(c.before, c.after)).toEqual(c.want);
    });
  }

  it('a secret value never appears in the output', () => {
    const secret = (v: string): KubeObject => obj('v1', 'Secret', 's', 'ns', { data: { k: v }, stringData: { nested: v } });
    const out = JSON.stringify([objectDiff([secret('SUPERSECRET1')], [secret('SUPERSECRET2')]), objectDiff([], [secret('SUPERSECRET3')])]);
    expect(out).not.toMatch(/SUPERSECRET/);
    expect(out).toContain('(redacted)');
  });

  it('stays bounded on huge and deeply nested objects', () => {
    const big = (v: string): KubeObject =>
      cm('big', Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, `${v}${'x'.repeat(1_000)}`])));
    const d = objectDiff([big('a')], [big('b')]);
    const lines = d.changed[0]?.lines ?? [];
    expect(lines).toHaveLength(201);
    expect(lines[200]).toBe('... 9800 more lines');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(300);
    let deep: unknown = 'leaf';
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    const nested = objectDiff([cm('n', {})], [obj('v1', 'ConfigMap', 'n', 'ns', { data: {}, x: deep })]);
    expect(nested.changed[0]?.lines).toHaveLength(1);
    expect(nested.changed[0]?.lines[0]).toMatch(/^\+ x(\.a){31}: \(nested deeper than 32 levels, sha256 [0-9a-f]{12}\)$/);
    let deep2: unknown = 'other leaf';
    for (let i = 0; i < 10_000; i++) deep2 = { a: deep2 };
    const other = objectDiff([obj('v1', 'ConfigMap', 'n', 'ns', { x: deep })], [obj('v1', 'ConfigMap', 'n', 'ns', { x: deep2 })]);
    expect(other.changed[0]?.lines.map((l) => l.slice(0, 2))).toEqual(['- ', '+ ']);
    expect(objectDiff([obj('v1', 'ConfigMap', 'n', 'ns', { x: deep })], [obj('v1', 'ConfigMap', 'n', 'ns', { x: deep })]).changed).toEqual([]);
  });
});
