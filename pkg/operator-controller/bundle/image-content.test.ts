import { describe, expect, it } from 'vitest';
import { bundleImageContent } from './index.ts';

const bytes = (s: string) => new TextEncoder().encode(s);
const ANNOTATIONS = `annotations:
  operators.operatorframework.io.bundle.mediatype.v1: plain+v0
  operators.operatorframework.io.bundle.package.v1: widgets
  operators.operatorframework.io.bundle.channels.v1: stable,fast
  operators.operatorframework.io.bundle.channel.default.v1: stable
  com.example.number: 3
`;

describe('bundleImageContent', () => {
  it('packages manifests/, metadata/ and tests/ with the annotations as labels and the layout labels fixed', () => {
    const files = new Map([
      ['manifests/', bytes('')],
      ['manifests/csv.yaml', bytes('kind: ClusterServiceVersion')],
      ['metadata/', bytes('')],
      ['metadata/annotations.yaml', bytes(ANNOTATIONS)],
      ['tests/scorecard/config.yaml', bytes('kind: Configuration')],
      ['bundle.Dockerfile', bytes('FROM scratch')],
    ]);
    const r = bundleImageContent(files);
    if (!r.ok) throw new Error(r.error);
    expect([...r.value.files.keys()]).toEqual(['manifests/csv.yaml', 'metadata/annotations.yaml', 'tests/scorecard/config.yaml']);
    expect(r.value.labels).toEqual({
      'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
      'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
      'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
      'operators.operatorframework.io.bundle.package.v1': 'widgets',
      'operators.operatorframework.io.bundle.channels.v1': 'stable,fast',
      'operators.operatorframework.io.bundle.channel.default.v1': 'stable',
    });
  });

  it.each([
    ['no annotations file', undefined, 'open metadata/annotations.yaml: file does not exist'],
    ['no annotations object', 'other: 1\n', 'metadata/annotations.yaml: no annotations object'],
    ['bad YAML', 'annotations: [\n', /^metadata\/annotations\.yaml: yaml: /],
    [
      'no package',
      'annotations:\n  operators.operatorframework.io.bundle.channels.v1: stable\n',
      'metadata/annotations.yaml: annotation operators.operatorframework.io.bundle.package.v1 (the package name) is not set',
    ],
  ])('fails for %s', (_name, annotations, message) => {
    const files = new Map(annotations === undefined ? [] : [['metadata/annotations.yaml', bytes(annotations)]]);
    const r = bundleImageContent(files);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(message);
  });
});
