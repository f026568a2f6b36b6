import { describe, expect, it } from 'vitest';
import type { DeclarativeConfig } from '../../shared/fbc/index.ts';
import { instanceExamples, parseInstance } from './instances.ts';

const partition = (almExamples: string | number | undefined): DeclarativeConfig => ({
  packages: [{ schema: 'olm.package', name: 'p', defaultChannel: 'stable' }],
  channels: [],
  bundles: [
    {
      schema: 'olm.bundle',
      package: 'p',
      name: 'p.v1',
      image: 'r/p:v1',
      properties: [
        { type: 'olm.package', value: { packageName: 'p', version: '1.0.0' } },
        { type: 'olm.gvk', value: { group: 'demo.example.com', version: 'v1', kind: 'Greeting' } },
        { type: 'olm.csv.metadata', value: { annotations: almExamples === undefined ? {} : { 'alm-examples': almExamples } } },
      ],
    },
  ],
  deprecations: [],
  others: [],
});
const greeting = { apiVersion: 'demo.example.com/v1', kind: 'Greeting', metadata: { name: 'hello' }, spec: { message: 'hi' } };
const apis = [{ apiVersion: 'demo.example.com/v1', kind: 'Greeting' }];

describe('instanceExamples', () => {
  it("offers the bundle's examples of the APIs it provides, as YAML, and drops an example of any other kind", () => {
    const found = instanceExamples(partition(JSON.stringify([greeting, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }])), 'p', 'p.v1');
    expect(found?.apis).toEqual(apis);
    expect(found?.examples).toEqual([
      {
        apiVersion: 'demo.example.com/v1',
        kind: 'Greeting',
        yaml: 'apiVersion: demo.example.com/v1\nkind: Greeting\nmetadata:\n  name: hello\nspec:\n  message: hi\n',
      },
    ]);
  });

  it('offers none for an annotation that is missing, not JSON, not a list or too large; undefined for a bundle the catalog lacks', () => {
    for (const bad of [undefined, '{not json', '{"kind":"Greeting"}', 42, `[${' '.repeat(300 * 1024)}]`])
      expect(instanceExamples(partition(bad), 'p', 'p.v1')?.examples).toEqual([]);
    expect(instanceExamples(partition('[]'), 'p', 'p.v2')).toBeUndefined();
  });
});

describe('parseInstance', () => {
  it('takes one object of a provided API with a name', () => {
    expect(parseInstance('apiVersion: demo.example.com/v1\nkind: Greeting\nmetadata: {name: hello}\nspec: {message: hi}\n', apis)).toEqual({
      ok: true,
      object: greeting,
    });
  });

  it('refuses other kinds, several documents, a list, no name and what is not YAML, saying why', () => {
    expect(parseInstance('apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n', apis)).toEqual({
      ok: false,
      error: 'Secret v1 is not an API this extension provides (Greeting demo.example.com/v1)',
    });
    expect(parseInstance('a: 1\n---\nb: 2\n', apis)).toMatchObject({ ok: false, error: expect.stringMatching(/^not YAML: /) });
    expect(parseInstance('- 1\n', apis)).toMatchObject({ ok: false, error: expect.stringMatching(/^not one object/) });
    expect(parseInstance('apiVersion: demo.example.com/v1\nkind: Greeting\nmetadata: {}\n', apis)).toEqual({
      ok: false,
      error: 'metadata.name: required',
    });
    expect(parseInstance('key: [unclosed\n', apis)).toMatchObject({ ok: false, error: expect.stringMatching(/^not YAML: /) });
  });
});
