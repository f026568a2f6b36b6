import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kube/index.ts';
import { OPENSHIFT_CRDS, crdApiWatch, crdEventMatters, servesVersion, summarizeCrd } from './openshift.ts';
import { CLUSTER_VERSION, OLM_CLUSTER_OPERATOR, OLM_OPERATOR } from './openshift.ts';

/** A CRD as the API server returns it, with a schema the summary drops. */
function crd(name: string, o: { established?: string; versions?: Array<{ name: string; served: boolean }> } = {}): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name, resourceVersion: '7' },
    spec: {
      group: name.split('.').slice(1).join('.'),
      versions: (o.versions ?? [{ name: 'v1', served: true }]).map((v) => ({ ...v, storage: true, schema: { openAPIV3Schema: { type: 'object' } } })),
    },
    status: {
      conditions: [
        { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' },
        { type: 'Established', status: o.established ?? 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
      ],
    },
  };
}

/** Informer caches over `objects` (by CRD name); `synced` false: not listed yet. */
function caches(objects: KubeObject[], synced = true) {
  return new Map(
    OPENSHIFT_CRDS.map(({ crd: name }) => [name, { hasSynced: synced, get: (key: string) => objects.find((o) => o.metadata.name === key) }]),
  );
}

describe('crdApiWatch', () => {
  it('is unknown until the CRD informers listed, and for kinds it does not watch', () => {
    const apis = crdApiWatch(caches([crd('clusterversions.config.openshift.io')], false));
    expect(apis.presence(CLUSTER_VERSION)).toBe('unknown');
    expect(crdApiWatch(new Map()).presence(CLUSTER_VERSION)).toBe('unknown');
    expect(crdApiWatch(caches([])).presence({ apiVersion: 'v1', kind: 'Pod' })).toBe('unknown');
  });

  it('tells each kind apart: established, missing, not established, version not served', () => {
    const apis = crdApiWatch(
      caches([
        crd('clusterversions.config.openshift.io'),
        crd('olms.operator.openshift.io', { established: 'False' }),
        crd('clusteroperators.config.openshift.io', { versions: [{ name: 'v1', served: false }] }),
      ]),
    );
    expect(apis.presence(CLUSTER_VERSION)).toBe('established');
    expect(apis.presence(OLM_OPERATOR)).toBe('absent');
    expect(apis.presence(OLM_CLUSTER_OPERATOR)).toBe('absent');
    expect(crdApiWatch(caches([])).presence(OLM_OPERATOR)).toBe('absent');
  });
});

describe('servesVersion and summarizeCrd', () => {
  it('needs the Established condition and the version served', () => {
    expect(servesVersion(crd('x.example.com'), 'v1')).toBe(true);
    expect(servesVersion(crd('x.example.com'), 'v2')).toBe(false);
    expect(servesVersion(crd('x.example.com', { established: 'Unknown' }), 'v1')).toBe(false);
    expect(servesVersion(undefined, 'v1')).toBe(false);
    expect(servesVersion({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'x' } }, 'v1')).toBe(false);
  });

  it('keeps what servesVersion reads and drops the schemas', () => {
    const summary = summarizeCrd(crd('clusterversions.config.openshift.io'));
    expect(summary).toEqual({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'clusterversions.config.openshift.io', resourceVersion: '7' },
      spec: { versions: [{ name: 'v1', served: true }] },
      status: {
        conditions: [
          { type: 'NamesAccepted', status: 'True' },
          { type: 'Established', status: 'True' },
        ],
      },
    });
    expect(servesVersion(summary, 'v1')).toBe(true);
  });

  it('survives a hostile CRD without spec or status', () => {
    const bare = summarizeCrd({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'x' } });
    expect(servesVersion(bare, 'v1')).toBe(false);
  });
});

describe('crdEventMatters', () => {
  it('ignores only the periodic re-delivery of the cached object', () => {
    const a = crd('olms.operator.openshift.io');
    const b = crd('olms.operator.openshift.io');
    expect(crdEventMatters(a, undefined)).toBe(true);
    expect(crdEventMatters(b, a)).toBe(true);
    expect(crdEventMatters(a, a)).toBe(false);
  });
});
