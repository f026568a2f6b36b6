import { describe, expect, it } from 'vitest';
import { compileSchemas, type KubeObject, type ObjectSchema } from '../../shared/kube/index.ts';
import { pruneUnknownFields } from './prune-unknown-fields.ts';

// Small hand-written OpenAPI v3 components in the shapes the API server publishes: `$ref`s
// wrapped in a one-element allOf, keyed lists, maps, preserve-unknown-fields, int-or-string.
const ref = (name: string): Record<string, unknown> => ({ allOf: [{ $ref: `#/components/schemas/${name}` }], default: {} });
const str = { type: 'string' };
const COMPONENTS: Record<string, unknown> = {
  Meta: {
    type: 'object',
    properties: { name: str, namespace: str, labels: { type: 'object', additionalProperties: { type: 'string', default: '' } } },
  },
  Widget: {
    type: 'object',
    properties: {
      apiVersion: str,
      kind: str,
      metadata: ref('Meta'),
      spec: ref('Spec'),
      status: { type: 'object', properties: { ready: { type: 'boolean' } } },
    },
    'x-kubernetes-group-version-kind': [{ group: 'acme.example.com', version: 'v1', kind: 'Widget' }],
  },
  Spec: {
    type: 'object',
    properties: {
      replicas: { type: 'integer' },
      port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
      target: ref('IntOrString'),
      containers: { type: 'array', items: ref('Container'), 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' },
      ports: {
        type: 'array',
        items: ref('Port'),
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['port', 'protocol'],
      },
      rules: { type: 'array', items: { type: 'object', properties: { verb: str } } },
      tags: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' },
      selectors: { type: 'object', additionalProperties: ref('Selector') },
      free: { type: 'object' },
      open: { type: 'object', additionalProperties: true },
      closed: { type: 'object', properties: { a: str }, additionalProperties: false },
      config: {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
        properties: { level: str, nested: { type: 'object', properties: { b: str } } },
      },
      named: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { inner: ref('Selector') } },
      raw: ref('io.k8s.apimachinery.pkg.runtime.RawExtension'),
      quantity: ref('io.k8s.apimachinery.pkg.api.resource.Quantity'),
      tree: ref('Tree'),
      untyped: { description: 'no type' },
    },
  },
  Container: { type: 'object', properties: { name: str, image: str, env: { type: 'array', items: ref('Env') } } },
  Env: { type: 'object', properties: { name: str, value: str } },
  Port: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' }, extra: str } },
  Selector: { type: 'object', properties: { key: str } },
  IntOrString: { type: 'string', format: 'int-or-string' },
  Tree: { type: 'object', properties: { value: str, children: { type: 'array', items: ref('Tree') } } },
  'io.k8s.apimachinery.pkg.runtime.RawExtension': { type: 'object', properties: { nothing: str } },
  'io.k8s.apimachinery.pkg.api.resource.Quantity': { type: 'string' },
};

function widgetSchema(): ObjectSchema {
  const schema = compileSchemas(COMPONENTS).get('Widget');
  if (schema === undefined) throw new Error('Widget not compiled');
  return schema;
}

function widget(spec: Record<string, unknown>, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'acme.example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec, ...extra };
}

describe('pruneUnknownFields', () => {
  const cases: { name: string; spec: Record<string, unknown>; want: Record<string, unknown>; dropped: string[] }[] = [
    { name: 'known scalar fields are kept', spec: { replicas: 2 }, want: { replicas: 2 }, dropped: [] },
    { name: 'an undeclared field is dropped', spec: { replicas: 2, version: 'v1' }, want: { replicas: 2 }, dropped: ['.spec.version'] },
    {
      name: 'keyed list items are named by their merge key',
      spec: {
        containers: [
          { name: 'a', image: 'i', foo: 1 },
          { name: 'b', env: [{ name: 'X', value: 'y', bar: true }] },
        ],
      },
      want: {
        containers: [
          { name: 'a', image: 'i' },
          { name: 'b', env: [{ name: 'X', value: 'y' }] },
        ],
      },
      dropped: ['.spec.containers[name="a"].foo', '.spec.containers[name="b"].env[0].bar'],
    },
    {
      name: 'list-map keys are sorted, a missing key takes its default',
      spec: {
        ports: [
          { protocol: 'UDP', port: 53, x: 1 },
          { port: 80, y: 2, extra: 'kept' },
        ],
      },
      want: {
        ports: [
          { protocol: 'UDP', port: 53 },
          { port: 80, extra: 'kept' },
        ],
      },
      dropped: ['.spec.ports[port=53,protocol="UDP"].x', '.spec.ports[port=80,protocol="TCP"].y'],
    },
    {
      name: 'atomic lists of objects are named by index',
      spec: { rules: [{ verb: 'get' }, { verb: 'list', typo: 'x' }] },
      want: { rules: [{ verb: 'get' }, { verb: 'list' }] },
      dropped: ['.spec.rules[1].typo'],
    },
    { name: 'sets of scalars are kept', spec: { tags: ['a', 'b'] }, want: { tags: ['a', 'b'] }, dropped: [] },
    {
      name: 'additionalProperties types map values',
      spec: { selectors: { first: { key: 'k', other: 'o' }, second: { key: 'j' } } },
      want: { selectors: { first: { key: 'k' }, second: { key: 'j' } } },
      dropped: ['.spec.selectors.first.other'],
    },
    {
      name: 'objects without properties, additionalProperties true and preserve-unknown-fields accept anything',
      spec: { free: { any: { deep: 1 } }, open: { x: [{ y: 1 }] }, config: { level: 'debug', extra: { a: 1 }, nested: { b: 'x', c: 'kept' } } },
      want: { free: { any: { deep: 1 } }, open: { x: [{ y: 1 }] }, config: { level: 'debug', extra: { a: 1 }, nested: { b: 'x', c: 'kept' } } },
      dropped: [],
    },
    {
      name: 'additionalProperties false drops undeclared keys',
      spec: { closed: { a: 'x', b: 'y' } },
      want: { closed: { a: 'x' } },
      dropped: ['.spec.closed.b'],
    },
    {
      name: 'preserve-unknown-fields does not reach into a named component',
      spec: { named: { other: 1, inner: { key: 'k', stray: 2 } } },
      want: { named: { other: 1, inner: { key: 'k' } } },
      dropped: ['.spec.named.inner.stray'],
    },
    {
      name: 'int-or-string, Quantity, RawExtension and untyped values are kept whole',
      spec: { port: 'http', target: 8080, raw: { anything: { at: 'all' } }, quantity: '1Gi', untyped: { x: [1, { y: 2 }] } },
      want: { port: 'http', target: 8080, raw: { anything: { at: 'all' } }, quantity: '1Gi', untyped: { x: [1, { y: 2 }] } },
      dropped: [],
    },
    {
      name: 'recursive references are followed',
      spec: { tree: { value: 'root', children: [{ value: 'a', children: [{ value: 'b', leaf: true }] }], depth: 1 } },
      want: { tree: { value: 'root', children: [{ value: 'a', children: [{ value: 'b' }] }] } },
      dropped: ['.spec.tree.children[0].children[0].leaf', '.spec.tree.depth'],
    },
    {
      name: 'values of the wrong shape are left to the server',
      spec: { replicas: { not: 'a number' }, containers: 'not a list', selectors: [1] },
      want: { replicas: { not: 'a number' }, containers: 'not a list', selectors: [1] },
      dropped: [],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const input = widget(c.spec);
      const before = structuredClone(input);
      const pruned = pruneUnknownFields(input, widgetSchema());
      expect(pruned.object).toEqual(widget(c.want));
      expect(pruned.dropped).toEqual(c.dropped);
      expect(input).toEqual(before);
    });
  }

  it('prunes metadata, status and top-level keys', () => {
    const input = widget(
      { replicas: 1 },
      { metadata: { name: 'w', labels: { a: 'b' }, bogus: 1 }, extra: true, status: { ready: true, unknown: 1 } },
    );
    const pruned = pruneUnknownFields(input, widgetSchema());
    expect(pruned.dropped).toEqual(['.metadata.bogus', '.extra', '.status.unknown']);
    expect(pruned.object).toEqual(widget({ replicas: 1 }, { metadata: { name: 'w', labels: { a: 'b' } }, status: { ready: true } }));
  });

  it('returns an unchanged copy without a schema or with an open schema', () => {
    const input = widget({ anything: { goes: 1 } }, { extra: 1 });
    for (const schema of [
      undefined,
      compileSchemas({ Open: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { spec: str } } }).get('Open'),
    ]) {
      const pruned = pruneUnknownFields(input, schema);
      expect(pruned).toEqual({ object: input, dropped: [] });
      expect(pruned.object).not.toBe(input);
    }
  });

  it('the result shares nothing with the input', () => {
    const input = widget({ containers: [{ name: 'a', foo: 1 }], config: { level: 'x' } });
    const pruned = pruneUnknownFields(input, widgetSchema());
    (pruned.object['spec'] as { config: { level: string } }).config.level = 'changed';
    expect((input['spec'] as { config: { level: string } }).config.level).toBe('x');
  });
});

describe('compileSchemas', () => {
  it('retains only the components reachable from the given names and no longer needs the document', () => {
    const components: Record<string, unknown> = { ...COMPONENTS, Unused: { type: 'object', properties: { a: str } } };
    const table = compileSchemas(components, ['Widget']);
    for (const key of Object.keys(components)) delete components[key];
    expect(table.get('Unused')).toBeUndefined();
    const pruned = pruneUnknownFields(
      widget({ tree: { children: [{ children: [{ x: 1 }] }] }, containers: [{ name: 'c', env: [{ y: 1 }] }] }),
      table.get('Widget'),
    );
    expect(pruned.dropped).toEqual(['.spec.tree.children[0].children[0].x', '.spec.containers[name="c"].env[0].y']);
    expect(table.size).toBeGreaterThan(5);
  });

  it('an unknown reference accepts anything rather than pruning', () => {
    const table = compileSchemas({ Thing: { type: 'object', properties: { spec: ref('Missing') } } });
    expect(pruneUnknownFields(widget({ a: 1 }), table.get('Thing')).dropped).toEqual(['.apiVersion', '.kind', '.metadata']);
  });
});
