import { describe, expect, it } from 'vitest';
import { catalogRow } from './install-objects.ts';
import { catalogTable, parseCatalogAddArgs } from './catalog-admin.ts';
import { usageErrorLine } from '../../test/support/usage-error.ts';

describe('olmv1 catalog add arguments', () => {
  it('builds the ClusterCatalog from NAME, IMAGE and the flags, and waits only for an available one', () => {
    const a = parseCatalogAddArgs(['hub', 'quay.io/acme/catalog:latest', '--priority=-5', '--poll-interval', '1h', '--timeout', '30s']);
    expect(a.catalog.spec).toEqual({
      source: { type: 'Image', image: { ref: 'quay.io/acme/catalog:latest', pollIntervalMinutes: 60 } },
      priority: -5,
      availabilityMode: 'Available',
    });
    expect([a.wait, a.timeoutMs, a.dryRun]).toEqual([true, 30_000, false]);
    const off = parseCatalogAddArgs(['hub', 'img', '--available', 'false']);
    expect(off.catalog.spec).toMatchObject({ availabilityMode: 'Unavailable' });
    expect(off.wait).toBe(false);
    expect(parseCatalogAddArgs(['hub', 'img', '--available=true']).catalog.spec).toEqual({
      source: { type: 'Image', image: { ref: 'img' } },
      availabilityMode: 'Available',
    });
  });

  it.each([
    [['hub'], 'expected NAME and IMAGE'],
    [['hub', 'img', '--priority', '1.5'], 'invalid --priority "1.5" (want a 32-bit integer)'],
    [['hub', 'img', '--priority', '2147483648'], 'invalid --priority "2147483648" (want a 32-bit integer)'],
    [['hub', 'img', '--poll-interval', '90s'], 'invalid --poll-interval "90s" (want whole minutes, e.g. 10m or 1h)'],
    [['hub', 'img', '--available', 'no'], '--available must be true or false, got "no"'],
  ])('refuses %j', (args, message) => {
    expect(usageErrorLine(() => parseCatalogAddArgs(args))).toBe(message);
  });
});

describe('olmv1 catalogs', () => {
  it('shows availability, priority, serving, last unpack and the resolved image', () => {
    const rows = [
      catalogRow({
        apiVersion: 'olm.operatorframework.io/v1',
        kind: 'ClusterCatalog',
        metadata: { name: 'hub' },
        spec: { priority: 10, source: { image: { ref: 'quay.io/a/c:1' } } },
        status: {
          conditions: [{ type: 'Serving', status: 'True' }],
          lastUnpacked: '2026-01-02T03:04:05Z',
          resolvedSource: { image: { ref: 'quay.io/a/c@sha256:ab' } },
        },
      }),
      catalogRow({
        apiVersion: 'olm.operatorframework.io/v1',
        kind: 'ClusterCatalog',
        metadata: { name: 'new' },
        spec: { availabilityMode: 'Unavailable' },
      }),
    ];
    expect(catalogTable(rows).split('\n')).toEqual([
      'NAME   AVAILABILITY   PRIORITY   SERVING   LAST UNPACKED          IMAGE',
      'hub    Available      10         True      2026-01-02T03:04:05Z   quay.io/a/c@sha256:ab',
      'new    Unavailable    0          Unknown   -                      -',
      '',
    ]);
    expect(catalogTable([])).toBe('');
  });
});
