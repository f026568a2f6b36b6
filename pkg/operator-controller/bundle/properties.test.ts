import { describe, expect, it } from 'vitest';
import { goJsonMarshal } from './index.ts';
import { mergeOlmProperties } from './properties.ts';
import { compactRaw, scanJson } from '../../gocompat/goyaml/index.ts';

const enc = new TextEncoder();

function merged(annotation: string | undefined, yaml: string | undefined): string | undefined {
  const r = mergeOlmProperties(
    annotation === undefined ? undefined : { 'olm.properties': annotation },
    yaml === undefined ? undefined : enc.encode(yaml),
  );
  if (!r.ok) throw new Error(r.error);
  return r.value?.['olm.properties'];
}

describe('mergeOlmProperties', () => {
  // Expected bytes were produced by Go (encoding/json + sigs.k8s.io/yaml) for the same input.
  it('keeps annotation values verbatim (compacted, HTML-escaped) and converts YAML values like Go', () => {
    const yaml =
      'properties:\n  - type: olm.maxOpenShiftVersion\n    value: 4.10\n  - type: acme.example.com/tier\n    value:\n      zeta: last\n      alpha: first\n      limits: {widgets: 100, ratio: 1.50}\n';
    expect(merged('[{"type":"acme.example.com/feature","value":{"b":1.0,"a":"<x&y>"}}]', yaml)).toBe(
      '[{"type":"acme.example.com/feature","value":{"b":1.0,"a":"\\u003cx\\u0026y\\u003e"}},{"type":"olm.maxOpenShiftVersion","value":4.1},{"type":"acme.example.com/tier","value":{"alpha":"first","limits":{"ratio":1.5,"widgets":100},"zeta":"last"}}]',
    );
  });

  it('matches Go on field case folding, extra fields, null entries and YAML 1.1 scalars', () => {
    const annotation = '[{"Type": "t", "value": [1, 2e5, -0.0, "\\u00e9\\u2028"], "extra": 1}, null]';
    const yaml = 'properties:\n- type: x\n  value: {b: [1, 2.50, yes, null], a: "q&", c: 1e3, d: 0x10, e: 1.0}\n';
    expect(merged(annotation, yaml)).toBe(
      '[{"type":"t","value":[1,2e5,-0.0,"\\u00e9\\u2028"]},{"type":"","value":null},{"type":"x","value":{"a":"q\\u0026","b":[1,2.5,true,null],"c":1000,"d":16,"e":1}}]',
    );
  });

  it('leaves the annotations untouched when properties.yaml is absent or empty', () => {
    const annotations = { 'olm.properties': '[ {"type": "a", "value": 1} ]', other: 'x' };
    expect(mergeOlmProperties(annotations, undefined)).toEqual({ ok: true, value: annotations });
    expect(mergeOlmProperties(annotations, new Uint8Array())).toEqual({ ok: true, value: annotations });
    expect(mergeOlmProperties(undefined, undefined)).toEqual({ ok: true, value: undefined });
  });

  it('writes null when neither source has properties (Go marshals a nil slice)', () => {
    expect(merged(undefined, 'properties: []\n')).toBe('null');
  });

  it.each([
    ['[{', 'unexpected end of JSON input'],
    ['[{]', "invalid character ']' looking for beginning of object key string"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['[{"a" 1}]', "invalid character '1' after object key"],
    ['[{"a":1 "b"}]', `invalid character '"' after object key:value pair`],
    ['[tru]', "invalid character ']' in literal true (expecting 'e')"],
    ['[-x]', "invalid character 'x' in numeric literal"],
    ['["a\\x01"]', "invalid character 'x' in string escape code"],
    ['{"type":"a"}', 'json: cannot unmarshal object into Go value of type []property.Property'],
    ['["a"]', 'json: cannot unmarshal string into Go value of type property.Property'],
    ['[{"type": 3}]', 'json: cannot unmarshal number into Go struct field Property.type of type string'],
    ['[] x', "invalid character 'x' after top-level value"],
  ])('reports an invalid annotation %s', (annotation, detail) => {
    const r = mergeOlmProperties({ 'olm.properties': annotation }, undefined);
    expect(r).toEqual({ ok: false, error: `failed to unmarshal csv.metadata.annotations['olm.properties']: ${detail}` });
  });

  it.each([
    ['properties: [\n', /^failed to unmarshal metadata\/properties\.yaml: error converting YAML to JSON: yaml: /],
    ['- a\n', /cannot unmarshal array into Go value of type source\.RegistryV1Properties$/],
    ['properties: 3\n', /cannot unmarshal number into Go struct field RegistryV1Properties\.properties of type \[\]property\.Property$/],
    ['properties:\n- type: 4\n', /cannot unmarshal number into Go struct field Property\.properties\.type of type string$/],
  ])('reports an invalid properties.yaml %j', (yaml, pattern) => {
    const r = mergeOlmProperties(undefined, enc.encode(yaml));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(pattern);
  });
});

describe('raw JSON helpers', () => {
  it('compacts raw values without touching number spellings or escapes', () => {
    const text = ' { "a" : [ 1.50 , "x < y" , "\\u0026" ] } ';
    const node = scanJson(text);
    expect(node.ok && compactRaw(text, node.value)).toBe('{"a":[1.50,"x \\u003c y","\\u0026"]}');
  });

  it('encodes like Go json.Marshal (sorted map keys, HTML escaping)', () => {
    expect(goJsonMarshal({ b: 1e21, a: ['<&>', 1e-7, 0.5, true, null] }, true)).toBe('{"a":["\\u003c\\u0026\\u003e",1e-7,0.5,true,null],"b":1e+21}');
    expect(() => goJsonMarshal(Number.POSITIVE_INFINITY, true)).toThrow('json: unsupported value: +Inf');
  });
});
