import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { ClusterCatalog, formatKubeTime, parseClusterCatalog } from '../index.ts';

const sample: unknown = load(readFileSync(new URL('../../../../config/samples/olm_v1_clustercatalog.yaml', import.meta.url), 'utf8'));

const minimal = {
  apiVersion: 'olm.operatorframework.io/v1',
  kind: 'ClusterCatalog',
  metadata: { name: 'cat' },
  spec: { source: { type: 'Image', image: { ref: 'registry.example/catalog:latest' } } },
};

const digest = `sha256:${'ab'.repeat(32)}`;

describe('ClusterCatalog schema', () => {
  it('accepts the sample manifest', () => {
    const parsed = parseClusterCatalog(sample);
    expect(parsed).toMatchObject({
      ok: true,
      value: { metadata: { name: 'example-catalog' }, spec: { source: { image: { pollIntervalMinutes: 10 } } } },
    });
  });

  it('applies the CRD defaults priority 0 and availabilityMode Available', () => {
    const spec = ClusterCatalog.parse(minimal).spec;
    expect(spec.priority).toBe(0);
    expect(spec.availabilityMode).toBe('Available');
  });

  it('keeps status as catalogd writes it', () => {
    const status = {
      conditions: [
        {
          type: 'Serving',
          status: 'True',
          reason: 'Available',
          message: 'Serving desired content from resolved source',
          lastTransitionTime: '2024-01-02T03:04:05Z',
          observedGeneration: 1,
        },
      ],
      resolvedSource: { type: 'Image', image: { ref: `registry.example/catalog@${digest}` } },
      urls: { base: 'https://catalogd-service.olmv1-system.svc/catalogs/cat' },
      lastUnpacked: '2024-01-02T03:04:05Z',
    };
    const parsed = ClusterCatalog.parse({ ...minimal, spec: { ...minimal.spec, priority: -5 }, status });
    expect(parsed.status).toEqual(status);
    expect(parsed.spec.priority).toBe(-5);
  });

  it('rejects a non-integer priority and a zero poll interval with the field path', () => {
    const priority = parseClusterCatalog({ ...minimal, spec: { ...minimal.spec, priority: 1.5 } });
    expect(priority).toEqual({
      ok: false,
      error: 'ClusterCatalog "cat" is invalid: spec.priority: Invalid input: expected int, received number',
    });
    const image = { ref: 'r/c:1', pollIntervalMinutes: 0 };
    const poll = parseClusterCatalog({ ...minimal, spec: { source: { type: 'Image', image } } });
    expect(poll.ok).toBe(false);
    if (!poll.ok) expect(poll.error).toMatch(/^ClusterCatalog "cat" is invalid: spec\.source\.image\.pollIntervalMinutes: /);
  });

  it('rejects a source without image and a ClusterExtension manifest', () => {
    const noImage = parseClusterCatalog({ ...minimal, spec: { source: { type: 'Image' } } });
    expect(noImage).toEqual({
      ok: false,
      error: 'ClusterCatalog "cat" is invalid: spec.source.image: Invalid input: expected object, received undefined',
    });
    const wrongKind = parseClusterCatalog({ ...minimal, kind: 'ClusterExtension' });
    expect(wrongKind.ok).toBe(false);
    if (!wrongKind.ok) expect(wrongKind.error).toContain('kind: Invalid input: expected "ClusterCatalog"');
  });
});

describe('formatKubeTime', () => {
  it('formats as RFC 3339 UTC with whole seconds, truncating milliseconds', () => {
    expect(formatKubeTime(new Date('2024-01-02T03:04:05.987Z'))).toBe('2024-01-02T03:04:05Z');
  });
});
