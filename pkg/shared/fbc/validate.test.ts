import { describe, expect, it } from 'vitest';
import { type Bundle, type DeclarativeConfig, type Deprecation, validate } from './index.ts';
import { type Channel, type ChannelEntry, type Package } from './types.ts';

/** The single error `opm validate` prints: the first conversion error, else the model error tree. */
const firstValidationError = (cfg: Parameters<typeof validate>[0]): string | undefined => validate(cfg)[0];

function pkg(name: string, defaultChannel = 'stable'): Package {
  return { schema: 'olm.package', name, defaultChannel };
}
function ch(pkgName: string, name: string, entries: ChannelEntry[]): Channel {
  return { schema: 'olm.channel', name, package: pkgName, entries };
}
function bundle(pkgName: string, name: string, version: string, extra: Partial<Bundle> = {}): Bundle {
  return {
    schema: 'olm.bundle',
    name,
    package: pkgName,
    image: `quay.io/example/${pkgName}-bundle:v${version.replaceAll('+', '_')}`,
    properties: [{ type: 'olm.package', value: { packageName: pkgName, version } }],
    ...extra,
  };
}
function dep(pkgName: string, entries: Deprecation['entries']): Deprecation {
  return { schema: 'olm.deprecations', package: pkgName, entries };
}
function cfg(parts: Partial<DeclarativeConfig>): DeclarativeConfig {
  return { packages: [], channels: [], bundles: [], deprecations: [], others: [], ...parts };
}
/** A valid one-package catalog: foo with channel stable foo.v1 <- foo.v2. */
function base(): DeclarativeConfig {
  return cfg({
    packages: [pkg('foo')],
    channels: [ch('foo', 'stable', [{ name: 'foo.v1' }, { name: 'foo.v2', replaces: 'foo.v1' }])],
    bundles: [bundle('foo', 'foo.v1', '1.0.0'), bundle('foo', 'foo.v2', '2.0.0')],
  });
}
function modify(fn: (c: DeclarativeConfig) => void): DeclarativeConfig {
  const c = base();
  fn(c);
  return c;
}

describe('valid catalogs', () => {
  it('passes', () => {
    expect(validate(base())).toEqual([]);
    expect(firstValidationError(base())).toBeUndefined();
  });
});

describe('conversion errors (upstream ConvertToModel)', () => {
  const dnsMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  const hex = 'c'.repeat(32);
  it.each<[string, DeclarativeConfig, string]>([
    ['package without name', modify((c) => c.packages.push(pkg(''))), 'config contains package with no name'],
    ['duplicate package', modify((c) => c.packages.push(pkg('foo'))), 'duplicate package "foo"'],
    ['package name with dots', modify((c) => c.packages.push(pkg('a.b'))), 'invalid package name "a.b": [must not contain dots]'],
    ['package name upper case', modify((c) => c.packages.push(pkg('Foo'))), `invalid package name "Foo": [${dnsMsg}]`],
    ['channel of unknown package', modify((c) => c.channels.push(ch('bar', 'x', []))), 'unknown package "bar" for channel "x"'],
    ['channel without name', modify((c) => c.channels.push(ch('foo', '', []))), 'package "foo" contains channel with no name'],
    ['duplicate channel', modify((c) => c.channels.push(ch('foo', 'stable', []))), 'package "foo" has duplicate channel "stable"'],
    [
      'duplicate entry',
      modify((c) => c.channels[0]?.entries.push({ name: 'foo.v1' })),
      'invalid package "foo", channel "stable": duplicate entry "foo.v1"',
    ],
    ['bundle without package', modify((c) => c.bundles.push(bundle('', 'x.v1', '1.0.0'))), 'package name must be set for bundle "x.v1"'],
    ['bundle of unknown package', modify((c) => c.bundles.push(bundle('bar', 'bar.v1', '1.0.0'))), 'unknown package "bar" for bundle "bar.v1"'],
    ['duplicate bundle', modify((c) => c.bundles.push(bundle('foo', 'foo.v1', '1.0.0'))), 'package "foo" has duplicate bundle "foo.v1"'],
    [
      'bad property value',
      modify((c) => ((c.bundles[0] as Bundle).properties = [{ type: 'olm.package', value: 'x' }])),
      'parse properties for bundle "foo.v1": parse property[0] of type "olm.package": json: cannot unmarshal string into Go value of type property.Package',
    ],
    [
      'bad csv metadata',
      modify((c) => (c.bundles[0] as Bundle).properties.push({ type: 'olm.csv.metadata', value: { installModes: [{ supported: 'yes' }] } })),
      'parse properties for bundle "foo.v1": parse property[1] of type "olm.csv.metadata": json: cannot unmarshal string into Go struct field InstallMode.installModes.supported of type bool',
    ],
    [
      'two olm.package properties',
      modify((c) => (c.bundles[0] as Bundle).properties.push({ type: 'olm.package', value: { packageName: 'foo', version: '1.0.0' } })),
      'package "foo" bundle "foo.v1" must have exactly 1 "olm.package" property, found 2',
    ],
    [
      'no olm.package property',
      modify((c) => ((c.bundles[0] as Bundle).properties = [])),
      'package "foo" bundle "foo.v1" must have exactly 1 "olm.package" property, found 0',
    ],
    [
      'package mismatch',
      modify((c) => ((c.bundles[0] as Bundle).properties = [{ type: 'olm.package', value: { packageName: 'bar', version: '1.0.0' } }])),
      'package "foo" does not match "olm.package" property "bar"',
    ],
    [
      'invalid image',
      modify((c) => ((c.bundles[0] as Bundle).image = 'quay.io/Foo/x')),
      'package "foo" bundle "foo.v1" image: invalid image pull spec "quay.io/Foo/x": invalid reference format: repository name must be lowercase',
    ],
    [
      'invalid related image',
      modify(
        (c) =>
          ((c.bundles[0] as Bundle).relatedImages = [
            { name: 'a', image: '' },
            { name: 'b', image: `x@md5:${hex}` },
          ]),
      ),
      `package "foo" bundle "foo.v1" relatedImages[1].image: invalid image pull spec "x@md5:${hex}": unsupported digest algorithm`,
    ],
    [
      'invalid version',
      modify((c) => (c.bundles[0] = bundle('foo', 'foo.v1', '0.1.0.1'))),
      'error parsing bundle "foo.v1" version "0.1.0.1": Invalid character(s) found in patch number "0.1"',
    ],
    ['empty version', modify((c) => (c.bundles[0] = bundle('foo', 'foo.v1', ''))), 'error parsing bundle "foo.v1" version "": Version string empty'],
    [
      'invalid release',
      modify(
        (c) => ((c.bundles[0] as Bundle).properties = [{ type: 'olm.package', value: { packageName: 'foo', version: '1.0.0', release: '01' } }]),
      ),
      'error parsing bundle "foo.v1" release version "01": invalid release "01": segment 0: Numeric PreRelease version must not contain leading zeroes "01"',
    ],
    [
      'bundle in no channel',
      modify((c) => c.bundles.push(bundle('foo', 'foo.v9', '9.0.0'))),
      'package "foo", bundle "foo.v9" not found in any channel entries',
    ],
    [
      'entries without bundles',
      modify((c) => c.channels[0]?.entries.push({ name: 'foo.v4', replaces: 'foo.v2' }, { name: 'foo.v3', replaces: 'foo.v4' })),
      'no olm.bundle blobs found in package "foo" for olm.channel entries [foo.v3 foo.v4]',
    ],
    ['deprecation without package', modify((c) => c.deprecations.push(dep('', []))), 'package name must be set for deprecation item 0'],
    ['deprecation of unknown package', modify((c) => c.deprecations.push(dep('bar', []))), 'cannot apply deprecations to an unknown package "bar"'],
    [
      'two deprecations',
      modify((c) => c.deprecations.push(dep('foo', []), dep('foo', []))),
      'expected a maximum of one deprecation per package: "foo"',
    ],
    [
      'deprecation without schema',
      modify((c) => c.deprecations.push(dep('foo', [{ reference: { schema: '' }, message: 'm' }]))),
      'schema must be set for deprecation entry [0] for package "foo"',
    ],
    [
      'duplicate deprecation entry',
      modify((c) =>
        c.deprecations.push(
          dep(
            'foo',
            [0, 1].map(() => ({ reference: { schema: 'olm.bundle', name: 'foo.v1' }, message: 'm' })),
          ),
        ),
      ),
      'duplicate deprecation entry declcfg.PackageScopedReference{Schema:"olm.bundle", Name:"foo.v1"} for package "foo"',
    ],
    [
      'deprecated bundle not found',
      modify((c) => c.deprecations.push(dep('foo', [{ reference: { schema: 'olm.bundle', name: 'foo.v9' }, message: 'm' }]))),
      'cannot deprecate bundle "foo.v9" for package "foo": bundle not found',
    ],
    [
      'deprecated channel not found',
      modify((c) => c.deprecations.push(dep('foo', [{ reference: { schema: 'olm.channel', name: 'beta' }, message: 'm' }]))),
      'cannot deprecate channel "beta" for package "foo": channel not found',
    ],
    [
      'deprecated package with a name',
      modify((c) => c.deprecations.push(dep('foo', [{ reference: { schema: 'olm.package', name: 'foo' }, message: 'm' }]))),
      'package name must be empty for deprecated package "foo" (specified "foo")',
    ],
    [
      'deprecation of unknown schema',
      modify((c) => c.deprecations.push(dep('foo', [{ reference: { schema: 'olm.thing', name: 'x' }, message: 'm' }]))),
      'cannot deprecate object declcfg.PackageScopedReference{Schema:"olm.thing", Name:"x"} referenced by entry 0 for package "foo": object schema unknown',
    ],
  ])('%s', (_name, config, want) => {
    expect(firstValidationError(config)).toBe(want);
    expect(validate(config)[0]).toBe(want);
  });

  it('collects every independent error instead of stopping at the first', () => {
    const c = modify((x) => {
      x.packages.push(pkg('foo'), pkg('Bad'));
      (x.bundles[0] as Bundle).image = 'quay.io/Foo/x';
      x.bundles[0] = { ...(x.bundles[0] as Bundle), properties: [{ type: 'olm.package', value: { packageName: 'foo', version: 'v1.0.0' } }] };
      x.deprecations.push(dep('nope', []));
    });
    const errors = validate(c);
    expect(errors.slice(0, 5)).toEqual([
      'duplicate package "foo"',
      expect.stringMatching(/^invalid package name "Bad": /),
      'package "foo" bundle "foo.v1" image: invalid image pull spec "quay.io/Foo/x": invalid reference format: repository name must be lowercase',
      'error parsing bundle "foo.v1" version "v1.0.0": Invalid character(s) found in major number "v1"',
      'cannot apply deprecations to an unknown package "nope"',
    ]);
    // The broken bundle is not reported again by the model checks; package Bad is.
    expect(errors[5]).toBe(
      'invalid index:\n└── invalid package "Bad":\n    └── invalid channel "stable":\n        └── channel must contain at least one bundle',
    );
    expect(errors).toHaveLength(6);
  });
});

describe('model checks (the invalid index tree)', () => {
  it('renders upstream example exactly', () => {
    const name = 'foo.v0.1.0+alpha.1.0.0-0.0.1';
    const c = cfg({
      packages: [pkg('foo', 'alpha')],
      channels: [ch('foo', 'alpha', [{ name }])],
      bundles: [
        bundle('foo', name, '0.1.0+alpha.1.0.0', {
          properties: [{ type: 'olm.package', value: { packageName: 'foo', version: '0.1.0+alpha.1.0.0', release: '0.0.1' } }],
        }),
      ],
    });
    expect(firstValidationError(c)).toBe(
      [
        'invalid index:',
        '└── invalid package "foo":',
        '    └── invalid channel "alpha":',
        '        └── invalid bundle "foo.v0.1.0+alpha.1.0.0-0.0.1":',
        '            ├── name "foo.v0.1.0+alpha.1.0.0-0.0.1" does not match normalized name "foo-v0.1.0+alpha.1.0.0-0.0.1"',
        '            └── cannot use build metadata in version with a release version',
      ].join('\n'),
    );
  });

  it('draws siblings with ├── and continues open columns with │', () => {
    const c = cfg({
      packages: [pkg('zeta'), pkg('alpha', '')],
      channels: [ch('zeta', 'stable', [{ name: 'zeta.v1', skips: [''] }]), ch('zeta', 'beta', [{ name: 'zeta.v1' }])],
      bundles: [bundle('zeta', 'zeta.v1', '1.0.0', { image: '' })],
    });
    expect(firstValidationError(c)).toBe(
      [
        'invalid index:',
        '├── invalid package "alpha":',
        '│   ├── default channel must be set',
        '│   └── package must contain at least one channel',
        '└── invalid package "zeta":',
        '    ├── invalid channel "beta":',
        '    │   └── invalid bundle "zeta.v1":',
        '    │       └── bundle image must be set',
        '    └── invalid channel "stable":',
        '        └── invalid bundle "zeta.v1":',
        '            ├── skip[0] is empty',
        '            └── bundle image must be set',
      ].join('\n'),
    );
  });

  function tree(c: DeclarativeConfig): string {
    const e = firstValidationError(c);
    if (e === undefined) throw new Error('expected errors');
    return e;
  }

  it.each<[string, ChannelEntry[], string]>([
    [
      'no head (cycle)',
      [
        { name: 'foo.v1', replaces: 'foo.v2' },
        { name: 'foo.v2', replaces: 'foo.v1' },
      ],
      'no channel head found in graph',
    ],
    ['multiple heads', [{ name: 'foo.v1' }, { name: 'foo.v2' }], 'multiple channel heads found in graph: foo.v1, foo.v2'],
    [
      'cycle below the head',
      [
        { name: 'foo.v1', replaces: 'foo.v2' },
        { name: 'foo.v2', replaces: 'foo.v1' },
        { name: 'foo.v3', replaces: 'foo.v2' },
      ],
      'detected cycle in replaces chain of upgrade graph: foo.v2 -> foo.v1 -> foo.v2',
    ],
    [
      'self replace',
      [
        { name: 'foo.v1', replaces: 'foo.v1' },
        { name: 'foo.v2', replaces: 'foo.v1' },
      ],
      'detected cycle in replaces chain of upgrade graph: foo.v1 -> foo.v1',
    ],
    [
      'stranded',
      [{ name: 'foo.v1' }, { name: 'foo.v2', replaces: 'foo.v1' }, { name: 'foo.v3' }, { name: 'foo.v4', replaces: 'foo.v3', skips: ['foo.v2'] }],
      'channel contains one or more stranded bundles: foo.v1',
    ],
  ])('replaces chain: %s', (_name, entries, want) => {
    const names = entries.map((e) => e.name);
    const c = cfg({
      packages: [pkg('foo')],
      channels: [ch('foo', 'stable', entries)],
      bundles: names.map((n, i) => bundle('foo', n, `${i + 1}.0.0`)),
    });
    expect(tree(c)).toBe(`invalid index:\n└── invalid package "foo":\n    └── invalid channel "stable":\n        └── ${want}`);
  });

  it('accepts skipped entries off the chain and a tail replacing a missing entry', () => {
    const entries = [
      { name: 'foo.v1', replaces: 'foo.v0' },
      { name: 'foo.v2', replaces: 'foo.v1' },
      { name: 'foo.v3', replaces: 'foo.v1', skips: ['foo.v2'] },
    ];
    const c = cfg({
      packages: [pkg('foo')],
      channels: [ch('foo', 'stable', entries)],
      bundles: entries.map((e, i) => bundle('foo', e.name, `${i + 1}.0.0`)),
    });
    expect(validate(c)).toEqual([]);
  });

  it('reports a default channel that names no channel as an empty channel', () => {
    const c = modify((x) => ((x.packages[0] as Package).defaultChannel = 'beta'));
    expect(tree(c)).toBe(
      'invalid index:\n└── invalid package "foo":\n    └── invalid channel "beta":\n        └── channel must contain at least one bundle',
    );
  });

  it('reports bundle-level problems', () => {
    const c = modify((x) => {
      x.channels[0] = ch('foo', 'stable', [{ name: 'foo.v1' }, { name: 'foo.v2', replaces: 'foo.v1', skips: [''], skipRange: '>v0.1.0' }]);
      x.bundles[1] = bundle('foo', 'foo.v2', '2.0.0', { image: '' });
    });
    expect(tree(c)).toBe(
      [
        'invalid index:',
        '└── invalid package "foo":',
        '    └── invalid channel "stable":',
        '        └── invalid bundle "foo.v2":',
        '            ├── skip[0] is empty',
        '            ├── invalid skipRange ">v0.1.0": Could not parse Range ">v0.1.0": Could not parse comparator ">v" in ">v0.1.0"',
        '            └── bundle image must be set',
      ].join('\n'),
    );
  });

  it('requires bundle names', () => {
    const c = modify((x) => {
      x.channels[0]?.entries.push({ name: '', replaces: 'foo.v2' });
      x.bundles.push(bundle('foo', '', '3.0.0'));
    });
    // Upstream quirk reproduced: the chain's tail "replaces" the empty name, which is the head.
    expect(tree(c)).toBe(
      [
        'invalid index:',
        '└── invalid package "foo":',
        '    └── invalid channel "stable":',
        '        ├── detected cycle in replaces chain of upgrade graph:  -> foo.v2 -> foo.v1 -> ',
        '        └── invalid bundle "":',
        '            └── name must be set',
      ].join('\n'),
    );
  });

  it('accepts an empty image when the bundle carries olm.bundle.object manifests', () => {
    const c = modify((x) => {
      const b = x.bundles[0] as Bundle;
      b.image = '';
      b.properties.push({ type: 'olm.bundle.object', value: { data: Buffer.from('{}').toString('base64') } });
    });
    expect(validate(c)).toEqual([]);
  });

  it('reports deprecations without a message at every level', () => {
    const c = modify((x) =>
      x.deprecations.push(
        dep('foo', [
          { reference: { schema: 'olm.package' }, message: '' },
          { reference: { schema: 'olm.channel', name: 'stable' }, message: '' },
          { reference: { schema: 'olm.bundle', name: 'foo.v1' }, message: '' },
        ]),
      ),
    );
    expect(tree(c)).toBe(
      [
        'invalid index:',
        '└── invalid package "foo":',
        '    ├── invalid channel "stable":',
        '    │   ├── invalid bundle "foo.v1":',
        '    │   │   └── invalid deprecation: message must be set',
        '    │   └── invalid deprecation: message must be set',
        '    └── invalid deprecation: message must be set',
      ].join('\n'),
    );
  });

  it('reports duplicate versions, grouped and sorted', () => {
    const names = ['anakin.v0.0.1', 'anakin.v0.0.2', 'anakin.v1.0.1', 'anakin.v1.0.2', 'anakin.v1.0.3'];
    const versions = ['0.0.1', '0.0.1', '1.0.1', '1.0.1', '1.0.1+b'];
    const c = cfg({
      packages: [pkg('anakin')],
      channels: [
        ch(
          'anakin',
          'stable',
          names.map((n, i) => (i === 0 ? { name: n } : { name: n, replaces: names[i - 1] as string })),
        ),
      ],
      bundles: names.map((n, i) => bundle('anakin', n, versions[i] as string)),
    });
    expect(tree(c)).toBe(
      'invalid index:\n└── invalid package "anakin":\n    └── duplicate versions found in bundles: [{0.0.1: [anakin.v0.0.1, anakin.v0.0.2]} {1.0.1: [anakin.v1.0.1, anakin.v1.0.2]}]',
    );
  });

  it('flags entries of an earlier channel that have no olm.bundle only in the model checks (upstream quirk)', () => {
    const c = modify((x) => x.channels.unshift(ch('foo', 'alpha', [{ name: 'foo.v0' }])));
    expect(validate(c)).toEqual([
      [
        'invalid index:',
        '└── invalid package "foo":',
        '    └── invalid channel "alpha":',
        '        └── invalid bundle "foo.v0":',
        '            ├── must be exactly one property with type "olm.package"',
        '            └── bundle image must be set',
      ].join('\n'),
    ]);
  });
});
