import { describe, expect, it } from 'vitest';
import { namespaceTemplateMetadata, SUGGESTED_NAMESPACE_TEMPLATE_ANNOTATION as T } from './namespace-template.ts';

const template = (o: unknown): Record<string, string> => ({ [T]: JSON.stringify(o) });

describe("the CSV's suggested-namespace template", () => {
  it('gives its labels and annotations to the namespace it names, and nothing to any other', () => {
    const csv = template({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: 'ops',
        labels: { 'openshift.io/cluster-monitoring': 'true', 'pod-security.kubernetes.io/enforce': 'privileged', team: '' },
        annotations: { 'openshift.io/node-selector': '', 'example.com/note': 'a note' },
      },
    });
    expect(namespaceTemplateMetadata(csv, 'ops')).toEqual({
      labels: { 'openshift.io/cluster-monitoring': 'true', 'pod-security.kubernetes.io/enforce': 'privileged', team: '' },
      annotations: { 'openshift.io/node-selector': '', 'example.com/note': 'a note' },
      dropped: [],
    });
    expect(namespaceTemplateMetadata(csv, 'other')).toEqual({ labels: {}, annotations: {}, dropped: [] });
    expect(namespaceTemplateMetadata(undefined, 'ops')).toEqual({ labels: {}, annotations: {}, dropped: [] });
    expect(namespaceTemplateMetadata(template({ kind: 'ConfigMap', metadata: { name: 'ops', labels: { a: 'b' } } }), 'ops').labels).toEqual({});
  });

  it('drops what is hostile or invalid, naming each: reserved prefixes, bad keys and values, non-strings, too many, too long, not JSON', () => {
    const got = namespaceTemplateMetadata(
      template({
        kind: 'Namespace',
        metadata: {
          name: 'ops',
          labels: {
            'olm.operatorframework.io/installed-for': 'someone-else',
            'kubernetes.io/metadata.name': 'x',
            'node-role.kubernetes.io/master': '',
            'bad key': 'v',
            'Bad_Prefix/k': 'v',
            long: 'v'.repeat(64),
            value: 'has space',
            number: 3,
            ok: 'yes',
          },
          annotations: { ['a'.repeat(64)]: 'v', big: 'x'.repeat(5000), fine: '<script>' },
        },
      }),
      'ops',
    );
    expect(got.labels).toEqual({ ok: 'yes' });
    expect(got.annotations).toEqual({ fine: '<script>' });
    expect(got.dropped).toEqual([
      `${T}: label "olm.operatorframework.io/installed-for" not applied (a reserved prefix)`,
      `${T}: label "kubernetes.io/metadata.name" not applied (a reserved prefix)`,
      `${T}: label "node-role.kubernetes.io/master" not applied (a reserved prefix)`,
      `${T}: label "bad key" not applied (not a qualified name)`,
      `${T}: label "Bad_Prefix/k" not applied (not a qualified name)`,
      `${T}: label "long" not applied (not a valid label value)`,
      `${T}: label "value" not applied (not a valid label value)`,
      `${T}: label "number" not applied (not a valid label value)`,
      `${T}: annotation "${'a'.repeat(64)}" not applied (not a qualified name)`,
      `${T}: annotation "big" not applied (not a valid annotation value)`,
    ]);
    const proto = namespaceTemplateMetadata({ [T]: '{"metadata":{"name":"ops","labels":{"__proto__":"v"}}}' }, 'ops');
    expect([Object.getPrototypeOf(proto.labels), proto.dropped]).toEqual([
      Object.prototype,
      [`${T}: label "__proto__" not applied (not a qualified name)`],
    ]);
    const many = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`k${i}`, 'v']));
    const bounded = namespaceTemplateMetadata(template({ metadata: { name: 'ops', labels: many } }), 'ops');
    expect([Object.keys(bounded.labels).length, bounded.dropped.length]).toEqual([64, 6]);
    expect(namespaceTemplateMetadata({ [T]: '{' }, 'ops').dropped).toEqual([`${T}: not JSON, not applied`]);
    expect(namespaceTemplateMetadata({ [T]: ' '.repeat(70_000) }, 'ops').dropped[0]).toMatch(/longer than 65536 characters/);
  });
});
