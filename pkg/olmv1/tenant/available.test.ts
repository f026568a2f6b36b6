import { describe, expect, it } from 'vitest';
import { parseExtensionPolicy, type ExtensionPolicy } from '../../shared/api/index.ts';
import type { DeclarativeConfig } from '../../shared/fbc/types.ts';
import type { CatalogInput } from '../../operator-controller/resolve/index.ts';
import { availablePackages } from './available.ts';

function policy(name: string, spec: Record<string, unknown>): ExtensionPolicy {
  const p = parseExtensionPolicy({ metadata: { name }, spec });
  if (!p.ok) throw new Error(p.error);
  return p.value;
}

function pkgContent(pkg: string, channels: Record<string, string[]>): DeclarativeConfig {
  const versions = [...new Set(Object.values(channels).flat())];
  return {
    packages: [{ schema: 'olm.package', name: pkg }],
    channels: Object.entries(channels).map(([name, vs]) => ({
      schema: 'olm.channel',
      package: pkg,
      name,
      entries: vs.map((v) => ({ name: `${pkg}.v${v}` })),
    })),
    bundles: versions.map((v) => ({
      schema: 'olm.bundle',
      name: `${pkg}.v${v}`,
      package: pkg,
      image: `registry.test/${pkg}:${v}`,
      properties: [{ type: 'olm.package', value: { packageName: pkg, version: v } }],
    })),
    deprecations: [],
    others: [],
  } as unknown as DeclarativeConfig;
}

const labels = { 'kubernetes.io/metadata.name': 'team-a', tier: 'tenants' };

describe('availablePackages', () => {
  it('lists what the policies selecting the namespace allow, within their range, channels and catalogs, newest first', () => {
    const policies = [
      policy('tenants', {
        namespaceSelector: { matchLabels: { tier: 'tenants' } },
        packages: [{ name: 'argocd', versionRange: '<2.0.0', channels: ['stable'] }, { name: 'absent' }],
        catalogs: ['main'],
      }),
      policy('others', { namespaceSelector: { matchLabels: { tier: 'others' } }, packages: [{ name: 'etcd' }] }),
    ];
    const content = new Map<string, CatalogInput[]>([
      [
        'argocd',
        [
          { name: 'main', priority: 0, package: pkgContent('argocd', { stable: ['1.0.0', '1.2.0', '2.0.0'], beta: ['1.3.0-rc.1'] }) },
          { name: 'elsewhere', priority: 0, package: pkgContent('argocd', { stable: ['1.9.0'] }) },
        ],
      ],
      ['absent', [{ name: 'main', priority: 0, package: null }]],
    ]);
    const out = availablePackages(policies, labels, content);
    expect(out).toEqual([
      {
        packageName: 'argocd',
        policy: 'tenants',
        versionRange: '<2.0.0',
        channels: ['stable'],
        catalogs: ['main'],
        installModes: ['OwnNamespace'],
        upgrades: 'Automatic',
        versions: [
          { version: '1.2.0', catalogs: ['main'] },
          { version: '1.0.0', catalogs: ['main'] },
        ],
        unread: [],
      },
      expect.objectContaining({ packageName: 'absent', versions: [], versionRange: undefined, catalogs: ['main'] }),
    ]);
  });

  it('lists nothing for a namespace no policy selects, and reports a catalog it could not read', () => {
    const policies = [policy('tenants', { namespaceSelector: { matchLabels: { tier: 'tenants' } }, packages: [{ name: 'argocd' }] })];
    expect(availablePackages(policies, { tier: 'others' }, new Map())).toEqual([]);
    const failed = availablePackages(policies, labels, new Map([['argocd', [{ name: 'main', error: 'catalog "main" is not being served' }]]]));
    expect(failed[0]).toMatchObject({ versions: [], unread: ['main: catalog "main" is not being served'] });
  });
});
