import { describe, expect, it } from 'vitest';
import type { Bundle, DeclarativeConfig, JsonValue } from '../../shared/fbc/index.ts';
import { hubTile, packageDetail, packageIcon, safeUrl } from './hub-index.ts';

function catalog(icon?: { mediatype: string; base64data: string }): DeclarativeConfig {
  const bundle = (v: string, meta?: JsonValue): Bundle => ({
    schema: 'olm.bundle' as const,
    package: 'p',
    name: `p.v${v}`,
    image: `r/p:${v}`,
    properties: [
      { type: 'olm.package', value: { packageName: 'p', version: v } },
      { type: 'olm.gvk', value: { group: 'g.io', version: 'v1', kind: 'K' } },
      ...(meta === undefined ? [] : [{ type: 'olm.csv.metadata', value: meta }]),
    ],
  });
  return {
    packages: [{ schema: 'olm.package', name: 'p', defaultChannel: 'stable', description: 'Pkg.\n\nMore.', ...(icon === undefined ? {} : { icon }) }],
    channels: [
      {
        schema: 'olm.channel',
        package: 'p',
        name: 'stable',
        entries: [
          { name: 'p.v1.0.0' },
          { name: 'p.v1.1.0', replaces: 'p.v1.0.0' },
          { name: 'p.v2.0.0', replaces: 'p.v1.1.0', skips: ['p.v1.0.0'], skipRange: '<2.0.0' },
        ],
      },
    ],
    bundles: [
      bundle('1.0.0'),
      bundle('1.1.0'),
      bundle('2.0.0', {
        displayName: 'P',
        provider: { name: 'Acme' },
        links: [
          { name: 'bad', url: 'javascript:alert(1)' },
          { name: 'ok', url: 'https://a.example/' },
        ],
        installModes: [
          { type: 'AllNamespaces', supported: true },
          { type: 'OwnNamespace', supported: false },
        ],
        annotations: { categories: 'Database, Storage', capabilities: 'Basic Install', 'features.operators.openshift.io/disconnected': 'true' },
      }),
    ],
    deprecations: [
      { schema: 'olm.deprecations', package: 'p', entries: [{ reference: { schema: 'olm.bundle', name: 'p.v1.0.0' }, message: 'old' }] },
    ],
    others: [],
  };
}

describe('hub index', () => {
  it('describes a package from its head bundle and csv metadata', () => {
    expect(hubTile('c', 'p', catalog())).toMatchObject({
      displayName: 'P',
      provider: 'Acme',
      version: '2.0.0',
      description: 'Pkg.',
      categories: ['Database', 'Storage'],
      capabilities: 'Basic Install',
      infrastructure: ['Disconnected'],
      installModes: ['AllNamespaces'],
      hasIcon: false,
      arch: ['amd64'],
      os: ['linux'],
      support: '',
    });
  });

  it("reads arch and OS from the CSV's operatorframework.io labels (amd64 and linux when none, as OLM classic), and bounds what it keeps", () => {
    const dc = catalog();
    const head = dc.bundles.find((b) => b.name === 'p.v2.0.0');
    const meta = head?.properties.find((x) => x.type === 'olm.csv.metadata')?.value as Record<string, JsonValue>;
    meta.labels = {
      'operatorframework.io/arch.arm64': 'supported',
      'operatorframework.io/arch.s390x': 'supported',
      'operatorframework.io/arch.ppc64le': 'unsupported',
      'operatorframework.io/arch.<b>x</b>': 'supported',
      'operatorframework.io/os.windows': 'supported',
    };
    meta.annotations = {
      ...(meta.annotations as Record<string, JsonValue>),
      support: 'Acme Support',
      categories: Array.from({ length: 40 }, (_, i) => `c${i}`).join(','),
    };
    meta.provider = { name: 'x'.repeat(500) };
    const t = hubTile('c', 'p', dc);
    expect(t.arch).toEqual(['arm64', 's390x']);
    expect(t.os).toEqual(['windows']);
    expect(t.support).toBe('Acme Support');
    expect(t.categories).toHaveLength(16);
    expect(t.provider.length).toBeLessThanOrEqual(60);
  });

  it('builds the upgrade graph with the head, skips, skipRange and deprecations, and drops unsafe links', () => {
    const d = packageDetail('c', 'p', catalog());
    const [stable] = d.channels;
    expect(stable?.head).toBe('p.v2.0.0');
    expect(stable?.entries.map((e) => e.version)).toEqual(['1.0.0', '1.1.0', '2.0.0']);
    expect(stable?.entries[2]).toMatchObject({ replaces: 'p.v1.1.0', skips: ['p.v1.0.0'], skipRangeCovers: ['p.v1.0.0', 'p.v1.1.0'] });
    expect(stable?.entries[0]?.deprecated).toBe('old');
    expect(d.links).toEqual([{ name: 'ok', url: 'https://a.example/' }]);
    expect(d.providedApis).toEqual(['K (g.io/v1)']);
  });

  it('serves icons only with image media types', () => {
    const data = Buffer.from('<svg/>').toString('base64');
    expect(packageIcon(catalog({ mediatype: 'image/svg+xml', base64data: data }), 'p')?.mediatype).toBe('image/svg+xml');
    expect(packageIcon(catalog({ mediatype: 'text/html', base64data: data }), 'p')).toBeUndefined();
    expect(safeUrl('data:text/html,x')).toBeUndefined();
    expect(safeUrl('//evil')).toBeUndefined();
  });
});
