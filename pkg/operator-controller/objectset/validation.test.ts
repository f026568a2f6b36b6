import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kube/index.ts';
import { revisionViolationText, revisionViolations } from './validation.ts';

const cm = (name: string, metadata: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', ...metadata },
});

describe('revisionViolations', () => {
  it('accepts valid phases', () => {
    expect(revisionViolations([{ name: 'configuration', objects: [cm('a')] }])).toEqual([]);
  });
  it('words server-set metadata, bad phase names and duplicates as boxcutter does', () => {
    const phases = [
      { name: 'Bad_Name', objects: [cm('a', { uid: 'u', finalizers: ['f'] })] },
      { name: 'two', objects: [cm('dup'), { apiVersion: 'apps/', kind: '', metadata: { name: 'x' } }] },
      { name: 'three', objects: [cm('dup')] },
    ];
    const text = revisionViolationText('rev', 3, revisionViolations(phases));
    expect(text).toBe(
      [
        "revision \"rev\" (3): phase \"Bad_Name\": phase name invalid: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name', or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?'), /v1, Kind=ConfigMap ns/a: metadata.uid: Forbidden: must be empty, metadata.finalizers: Forbidden: must be empty",
        'phase "two": apps/, Kind= /x: apiVersion: Required value: must not be empty, kind: Required value: must not be empty, /v1, Kind=ConfigMap ns/dup: duplicate object found in phases: three, two',
        'phase "three": /v1, Kind=ConfigMap ns/dup: duplicate object found in phases: three, two',
      ].join(', '),
    );
  });
});
