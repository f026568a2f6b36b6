import { describe, expect, it } from 'vitest';
import { approveVersion, catalogAddForm, catalogView, validName } from './admin.ts';

describe('catalogView', () => {
  it('reads status, Progressing, poll interval, priority and availability of a ClusterCatalog', () => {
    const at = '2026-11-27T21:00:00Z';
    expect(
      catalogView({
        metadata: { name: 'ops' },
        spec: {
          priority: -5,
          availabilityMode: 'Unavailable',
          source: { type: 'Image', image: { ref: 'quay.io/a/c:latest', pollIntervalMinutes: 10 } },
        },
        status: {
          lastUnpacked: at,
          resolvedSource: { image: { ref: 'quay.io/a/c@sha256:abc' } },
          conditions: [
            { type: 'Serving', status: 'False', reason: 'Unavailable', message: 'not served' },
            { type: 'Progressing', status: 'True', reason: 'Retrying', message: 'pull failed' },
          ],
        },
      }),
    ).toEqual({
      name: 'ops',
      image: 'quay.io/a/c@sha256:abc',
      availability: 'Unavailable',
      priority: -5,
      pollInterval: '10m',
      lastUnpacked: at,
      serving: { status: 'False', reason: 'Unavailable', message: 'not served' },
      progressing: { status: 'True', reason: 'Retrying', message: 'pull failed' },
    });
  });

  it('tolerates an object without spec or status', () => {
    expect(catalogView({ metadata: { name: 'x' } })).toMatchObject({
      name: 'x',
      availability: 'Available',
      priority: 0,
      pollInterval: '',
      image: '',
    });
    expect(catalogView(null).name).toBe('');
  });
});

describe('catalogAddForm', () => {
  it('reads the catalog to create: priority as an integer, the poll interval in minutes', () => {
    expect(catalogAddForm({ name: 'ops', image: 'quay.io/a/c:latest', priority: '-5', pollInterval: '10m' })).toEqual({
      ok: true,
      catalog: { name: 'ops', image: 'quay.io/a/c:latest', priority: -5, pollMinutes: 10 },
    });
    expect(catalogAddForm({ name: 'ops', image: 'quay.io/a/c@sha256:abc', pollInterval: '2h' })).toEqual({
      ok: true,
      catalog: { name: 'ops', image: 'quay.io/a/c@sha256:abc', priority: undefined, pollMinutes: 120 },
    });
  });

  it('refuses values that are not a name, an image reference, an integer or a whole-minute interval', () => {
    for (const body of [
      { name: '--dry-run', image: 'a/b' },
      { name: 'Ops', image: 'a/b' },
      { name: 'ops', image: '--kubeconfig=/etc/x' },
      { name: 'ops', image: '/etc/passwd' },
      { name: 'ops', image: 'a b' },
      { name: 'ops', image: 'a/b', priority: '1.5' },
      { name: 'ops', image: 'a/b', priority: '--x' },
      { name: 'ops', image: 'a/b', pollInterval: '30s' },
      undefined,
    ])
      expect(catalogAddForm(body).ok, JSON.stringify(body)).toBe(false);
  });
});

describe('the version of an approval', () => {
  it('is the version given, or none', () => {
    expect(approveVersion('1.1.0')).toEqual({ ok: true, version: '1.1.0' });
    expect(approveVersion(undefined)).toEqual({ ok: true, version: undefined });
  });

  it('refuse a version that is not a semantic version, and names that are not DNS names', () => {
    expect(approveVersion('--dry-run').ok).toBe(false);
    expect(approveVersion('1.x').ok).toBe(false);
    expect(approveVersion('v1.0.0').ok).toBe(false);
    expect(validName('ext')).toBe(true);
    expect(validName('-x')).toBe(false);
    expect(validName('a/b')).toBe(false);
  });
});
