import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, encodeGoJson } from './canonical-json.ts';
import { FbcLoadError, type JsonValue, parseMetas } from './index.ts';

function detail(text: string): string {
  try {
    parseMetas(text);
  } catch (err) {
    if (err instanceof FbcLoadError) return err.detail;
    throw err;
  }
  throw new Error('expected an error');
}

describe('Meta extraction', () => {
  it('looks up schema, package and name case-insensitively', () => {
    const [e] = parseMetas('{"Schema":"olm.bundle","PACKAGE":"p","nAmE":"b","x":1}');
    expect(e?.meta).toEqual({ schema: 'olm.bundle', package: 'p', name: 'b', blob: '{"PACKAGE":"p","Schema":"olm.bundle","nAmE":"b","x":1}\n' });
  });

  it('leaves absent fields empty and does not require a schema', () => {
    expect(parseMetas('{"x":1}')[0]?.meta).toEqual({ schema: '', package: '', name: '', blob: '{"x":1}\n' });
  });

  it.each<[string, string]>([
    ['{"schema":"a","Schema":"b"}', 'duplicate keys for key "schema": [Schema schema]'],
    ['{"x":1,"X":2}', 'duplicate keys for key "x": [X x]'],
    ['{"Name":"a","NAME":"b","x":1,"X":2}', '[duplicate keys for key "name": [NAME Name], duplicate keys for key "x": [X x]]'],
    ['{"schema":1}', 'expected value for key "schema" to be a string, got %!t(float64=1): 1'],
    ['{"Package":true}', 'expected value for key "Package" to be a string, got true: true'],
    ['{"name":null}', 'expected value for key "name" to be a string, got %!t(<nil>): <nil>'],
    [
      '{"name":{"b":[1,"x"],"a":1000000}}',
      'expected value for key "name" to be a string, got %!t(map[string]interface {}=map[a:1e+06 b:[1 x]]): map[a:1e+06 b:[1 x]]',
    ],
    ['{"name":[0.5]}', 'expected value for key "name" to be a string, got %!t([]interface {}=[0.5]): [0.5]'],
  ])('rejects %s', (text, want) => {
    expect(detail(text)).toBe(want);
  });

  it('renders non-object documents with the pretty type error', () => {
    // Two objects first so that the JSON error is final (no YAML retry).
    expect(detail('{}{}[1,{"a":2}]')).toBe(
      'json: cannot unmarshal array into Go value of type map[string]interface {} at offset 1 (indicated by <==)\n' +
        '[ <== \n    1,\n    {\n        "a": 2\n    }\n]',
    );
    expect(detail('{}{}"x"')).toBe(
      'json: cannot unmarshal string into Go value of type map[string]interface {} at offset 3 (indicated by <==)\n"x" <==',
    );
    expect(detail('{}{}42 ')).toBe(
      'json: cannot unmarshal number into Go value of type map[string]interface {} at offset 2 (indicated by <==)\n42 <==',
    );
    expect(detail('{}{}true')).toBe(
      'json: cannot unmarshal bool into Go value of type map[string]interface {} at offset 4 (indicated by <==)\ntrue <==',
    );
    // In YAML the document goes through Go's json.Marshal first (keys sorted, HTML escaped).
    expect(detail('- b: "<"\n  a: 1\n')).toBe(
      'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {} ' +
        'at offset 1 (indicated by <==)\n[ <== \n    {\n        "a": 1,\n        "b": "\\u003c"\n    }\n]',
    );
  });

  it('reports an out-of-range number in a JSON stream that cannot fall back to YAML', () => {
    expect(detail('{}{}{"a":1e400,"b":1}')).toBe(
      'json: cannot unmarshal number 1e400 into Go value of type float64 at offset 11 (indicated by <==)\n{\n    "a": 1e400, <== \n    "b": 1\n}',
    );
  });
});

describe('blob normalisation', () => {
  it.each<[string, string]>([
    ['{"b":{"z":1,"a":[{"y":1,"x":2}]},"a":0}', '{"a":0,"b":{"a":[{"x":2,"y":1}],"z":1}}'],
    ['{"a":"<>&"}', '{"a":"<>&"}'],
    ['{"a":"\\u2028\\u2029"}', '{"a":"\\u2028\\u2029"}'],
    ['{"a":"\\u0001\\b\\f\\n\\r\\t\\u007f é"}', '{"a":"\\u0001\\b\\f\\n\\r\\t\u007f é"}'],
    ['{"a":"\\ud800x"}', '{"a":"\ufffdx"}'],
    ['{"a":-0}', '{"a":-0}'],
    [
      '{"a":[1.0,1e21,1e20,1.5e-7,0.000001,100,12345678901234567890]}',
      '{"a":[1,1e+21,100000000000000000000,1.5e-7,0.000001,100,12345678901234567000]}',
    ],
    ['{"\ue000":1,"\ud83d\ude00":2,"z":3}', '{"z":3,"\ue000":1,"\ud83d\ude00":2}'],
    // V8 enumerates array-index keys first and numerically; Go sorts them as bytes.
    ['{"a":3,"10":1,"9":2," ":4}', '{" ":4,"10":1,"9":2,"a":3}'],
    ['{"b":{"__proto__":{"y":1,"x":2},"a":1},"a":[{"d":1,"c":2}]}', '{"a":[{"c":2,"d":1}],"b":{"__proto__":{"x":2,"y":1},"a":1}}'],
  ])('%s -> %s', (input, want) => {
    expect(parseMetas(`${input}`)[0]?.meta.blob).toBe(`${want}\n`);
  });

  it('matches an independent model: sorted keys + JSON.stringify + Go escapes', () => {
    const model = (x: JsonValue): string => {
      if (Array.isArray(x)) return `[${x.map(model).join(',')}]`;
      if (x !== null && typeof x === 'object') {
        const keys = Object.keys(x).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
        return `{${keys.map((k) => `${model(k)}:${model(x[k] as JsonValue)}`).join(',')}}`;
      }
      if (Object.is(x, -0)) return '-0';
      return JSON.stringify(x)
        .replace(/\u2028/g, '\\u2028')
        .replace(/\u2029/g, '\\u2029');
    };
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'grapheme' }), (v) => {
        expect(canonicalJson(v as JsonValue)).toBe(model(v as JsonValue));
      }),
      { numRuns: 300 },
    );
  });

  it('gives the same text on the native fast path and the rule-by-rule encoder', () => {
    const key = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 4 }), fc.constantFrom('0', '9', '10', '1a', '__proto__', '\ue000', 'a', 'B'));
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.string({ unit: 'grapheme' }),
        fc.constantFrom('\u2028', 'x\ud800', '<&>'),
        fc.double(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value')),
        fc.dictionary(key, tie('value')),
      ),
    }));
    fc.assert(
      fc.property(value, (v) => {
        const reference = (() => {
          try {
            return encodeGoJson(v as JsonValue, { native: false });
          } catch (err) {
            return err;
          }
        })();
        if (reference instanceof Error) expect(() => canonicalJson(v as JsonValue)).toThrow(reference.constructor as new () => Error);
        else expect(encodeGoJson(v as JsonValue)).toEqual(reference);
      }),
      { numRuns: 500 },
    );
  });
});
