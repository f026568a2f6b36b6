import { describe, expect, it } from 'vitest';
import { FbcLoadError, loadMetas, type Meta, parseMetas } from './index.ts';
import { isPropertyValueMissing } from './decode-config.ts';

function metas(text: string): Meta[] {
  return parseMetas(text).map((e) => e.meta);
}

function loadError(text: string): string {
  try {
    loadMetas(metas(text));
  } catch (err) {
    if (err instanceof FbcLoadError) return err.message;
    throw err;
  }
  throw new Error('expected a load error');
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

describe('typed decoding (Go encoding/json semantics)', () => {
  it('decodes the four schemas, matching field names case-insensitively and ignoring unknown fields', () => {
    const cfg = loadMetas(
      metas(
        [
          '{"schema":"olm.package","NAME":"p","DefaultChannel":"s","icon":{"base64data":"aGk=","MediaType":"image/png"},"extra":1}',
          '{"schema":"olm.channel","name":"s","package":"p","entries":[{"name":"p.v1","Skips":["x"],"skipRange":"<1.0.0"},{"name":"p.v2","replaces":"p.v1"}]}',
          '{"schema":"olm.bundle","name":"p.v1","package":"p","image":null,"properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0"}},{"type":"t"}]}',
          '{"schema":"olm.deprecations","package":"p","entries":[{"reference":{"schema":"olm.package"},"message":"old"}]}',
          '{"schema":"example.custom","name":"c","anything":[1]}',
        ].join('\n'),
      ),
    );
    expect(cfg.packages).toEqual([{ schema: 'olm.package', name: 'p', defaultChannel: 's', icon: { base64data: 'aGk=', mediatype: 'image/png' } }]);
    expect(cfg.channels[0]?.entries).toEqual([
      { name: 'p.v1', skips: ['x'], skipRange: '<1.0.0' },
      { name: 'p.v2', replaces: 'p.v1' },
    ]);
    expect(cfg.bundles[0]).toMatchObject({ name: 'p.v1', package: 'p', image: '' });
    expect(cfg.bundles[0]?.properties[1]).toEqual({ type: 't', value: null });
    expect(isPropertyValueMissing(cfg.bundles[0]?.properties[1] as never)).toBe(true);
    expect(isPropertyValueMissing(cfg.bundles[0]?.properties[0] as never)).toBe(false);
    expect(cfg.deprecations).toEqual([
      { schema: 'olm.deprecations', package: 'p', entries: [{ reference: { schema: 'olm.package' }, message: 'old' }] },
    ]);
    expect(cfg.others.map((m) => m.name)).toEqual(['c']);
  });

  it.each<[string, string]>([
    [
      '{"schema":"olm.package","defaultChannel":1}',
      'parse package: json: cannot unmarshal number into Go struct field Package.defaultChannel of type string',
    ],
    [
      '{"schema":"olm.package","name":"p","icon":"x"}',
      'parse package: json: cannot unmarshal string into Go struct field Package.icon of type declcfg.Icon',
    ],
    ['{"schema":"olm.package","name":"p","icon":{"base64data":"abc!"}}', 'parse package: illegal base64 data at input byte 3'],
    ['{"schema":"olm.package","name":"p","icon":{"base64data":"ab"}}', 'parse package: illegal base64 data at input byte 0'],
    [
      '{"schema":"olm.package","name":"p","icon":{"base64data":1}}',
      'parse package: json: cannot unmarshal number into Go struct field Icon.icon.base64data of type []uint8',
    ],
    [
      '{"schema":"olm.channel","name":"c","entries":{}}',
      'parse channel: json: cannot unmarshal object into Go struct field Channel.entries of type []declcfg.ChannelEntry',
    ],
    [
      '{"schema":"olm.channel","name":"c","entries":[{"skips":"x"}]}',
      'parse channel: json: cannot unmarshal string into Go struct field ChannelEntry.entries.skips of type []string',
    ],
    [
      '{"schema":"olm.channel","name":"c","entries":[1]}',
      'parse channel: json: cannot unmarshal number into Go struct field Channel.entries of type declcfg.ChannelEntry',
    ],
    [
      '{"schema":"olm.bundle","relatedImages":{}}',
      'parse bundle: json: cannot unmarshal object into Go struct field Bundle.relatedImages of type []declcfg.RelatedImage',
    ],
    [
      '{"schema":"olm.bundle","properties":[{"type":5}]}',
      'parse bundle: json: cannot unmarshal number into Go struct field Property.properties.type of type string',
    ],
    [
      '{"schema":"olm.bundle","relatedImages":5,"image":true}',
      'parse bundle: json: cannot unmarshal bool into Go struct field Bundle.image of type string',
    ],
    [
      '{"schema":"olm.deprecations","entries":[{"reference":"x"}]}',
      'parse deprecation: json: cannot unmarshal string into Go struct field DeprecationEntry.entries.reference of type declcfg.PackageScopedReference',
    ],
    ['{"name":"x"}', `object '{"name":"x"}\n' is missing root schema field`],
    ['# only a comment\n', `object '' is missing root schema field`],
    [
      // A schema-less document with a large value (a CSV's base64 icon) is shown cut, with its length.
      `{"kind":"ClusterServiceVersion","icon":"${'A'.repeat(20000)}"}`,
      `object '{"icon":"${'A'.repeat(51)}... (20043 characters)' is missing root schema field`,
    ],
  ])('rejects %s', (text, want) => {
    expect(loadError(text)).toBe(want);
  });

  it('reports blobs that are not JSON in hand-built Metas', () => {
    const meta = (blob: string): Meta => ({ schema: 'olm.bundle', package: '', name: '', blob });
    expect(() => loadMetas([meta('{"name":')])).toThrow(/^parse bundle: unexpected end of JSON input$/);
    expect(() => loadMetas([meta('{} x')])).toThrow(/^parse bundle: invalid character 'x' after top-level value$/);
  });

  it('checks olm.bundle.object properties like readBundleObjects', () => {
    const bundle = (props: string): string => `{"schema":"olm.bundle","name":"b","package":"p","properties":[${props}]}`;
    const prefix = 'read bundle objects: package "p", bundle "b"';
    expect(loadError(bundle('{"type":"olm.bundle.object","value":"x"}'))).toBe(
      `${prefix}: parse property at index 0 as bundle object: json: cannot unmarshal string into Go value of type property.BundleObject`,
    );
    expect(loadError(bundle('{"type":"olm.gvk","value":{}},{"type":"olm.bundle.object"}'))).toBe(
      `${prefix}: parse property at index 1 as bundle object: unexpected end of JSON input`,
    );
    expect(loadError(bundle('{"type":"olm.bundle.object","value":{"data":"%%%%"}}'))).toBe(
      `${prefix}: parse property at index 0 as bundle object: illegal base64 data at input byte 0`,
    );
    expect(loadError(bundle(`{"type":"olm.bundle.object","value":{"data":"${b64('a: [1\n')}"}}`))).toMatch(
      new RegExp(`^${prefix}: convert bundle object property at index 0 to JSON: yaml: line \\d+: `),
    );
    // JSON data is accepted as is; YAML data must convert.
    const ok = loadMetas(
      metas(
        bundle(
          `{"type":"olm.bundle.object","value":{"data":"${b64('{not json')}"}},{"type":"olm.bundle.object","value":{"data":"${b64('kind: X\n')}"}}`,
        ),
      ),
    );
    expect(ok.bundles).toHaveLength(1);
  });
});
