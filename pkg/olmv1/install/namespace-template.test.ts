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
    expect(namespaceTemplateMetadata(csv, 'ops', true)).toEqual({
      labels: { 'openshift.io/cluster-monitoring': 'true', 'pod-security.kubernetes.io/enforce': 'privileged', team: '' },
      annotations: { 'openshift.io/node-selector': '', 'example.com/note': 'a note' },
      dropped: [],
      podSecurity: ['label pod-security.kubernetes.io/enforce=privileged'],
    });
    const none = { labels: {}, annotations: {}, dropped: [], podSecurity: [] };
    expect(namespaceTemplateMetadata(csv, 'other')).toEqual(none);
    expect(namespaceTemplateMetadata(undefined, 'ops')).toEqual(none);
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

  it('applies what weakens Pod security only when accepted: Pod Security levels but restricted, versions but latest, OpenShift SCC keys; drops and names them otherwise', () => {
    const csv = template({
      kind: 'Namespace',
      metadata: {
        name: 'ops',
        labels: {
          'pod-security.kubernetes.io/enforce': 'privileged',
          'pod-security.kubernetes.io/warn': 'baseline',
          'pod-security.kubernetes.io/audit': 'restricted',
          'pod-security.kubernetes.io/enforce-version': 'v1.24',
          'pod-security.kubernetes.io/audit-version': 'latest',
          'security.openshift.io/scc.podSecurityLabelSync': 'false',
          'openshift.io/run-level': '0',
          'openshift.io/cluster-monitoring': 'true',
        },
        annotations: { 'openshift.io/sa.scc.uid-range': '0/10000', 'example.com/note': 'n' },
      },
    });
    const weakening = [
      'label pod-security.kubernetes.io/enforce=privileged',
      'label pod-security.kubernetes.io/warn=baseline',
      'label pod-security.kubernetes.io/enforce-version=v1.24',
      'label security.openshift.io/scc.podSecurityLabelSync=false',
      'label openshift.io/run-level=0',
      'annotation openshift.io/sa.scc.uid-range=0/10000',
    ];
    const kept = {
      labels: {
        'pod-security.kubernetes.io/audit': 'restricted',
        'pod-security.kubernetes.io/audit-version': 'latest',
        'openshift.io/cluster-monitoring': 'true',
      },
      annotations: { 'example.com/note': 'n' },
    };
    const refused = namespaceTemplateMetadata(csv, 'ops');
    expect(refused).toEqual({
      ...kept,
      podSecurity: weakening,
      dropped: weakening.map((w) => {
        const [kind, entry] = w.split(' ');
        return `${T}: ${kind} ${JSON.stringify(entry)} not applied (it weakens the namespace's Pod security; accept it with --accept-namespace-labels, or the console's checkbox)`;
      }),
    });
    const accepted = namespaceTemplateMetadata(csv, 'ops', true);
    expect([accepted.podSecurity, accepted.dropped]).toEqual([weakening, []]);
    expect(accepted.labels).toMatchObject({ ...kept.labels, 'pod-security.kubernetes.io/enforce': 'privileged', 'openshift.io/run-level': '0' });
    expect(accepted.annotations).toEqual({ 'openshift.io/sa.scc.uid-range': '0/10000', 'example.com/note': 'n' });
  });
});
