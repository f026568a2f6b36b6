import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FbcLoadError, parseMetas, parseMetaStream } from './index.ts';
import { type MetaEntry } from './walk.ts';

function blobs(text: string): string[] {
  return parseMetas(text).map((e) => e.meta.blob);
}

function failure(text: string): FbcLoadError {
  try {
    parseMetas(text, { file: 'f.json' });
  } catch (err) {
    if (err instanceof FbcLoadError) return err;
    throw err;
  }
  throw new Error('expected a decode error');
}

describe('stream framing', () => {
  it.each<[string, string, string[]]>([
    ['empty file', '', []],
    ['only separators', '---\n---\n', []],
    ['concatenated JSON objects', '{"b":1,"a":2}{"c":3}', ['{"a":2,"b":1}\n', '{"c":3}\n']],
    ['whitespace separated pretty JSON', '{\n  "a": 1\n}\n\n{\n  "b": [1,\n 2]\n}\n', ['{"a":1}\n', '{"b":[1,2]}\n']],
    ['YAML documents', 'a: 1\n---\nb: 2\n', ['{"a":1}\n', '{"b":2}\n']],
    ['leading separator and comment after separator', '--- # first\na: 1\n--- \nb: 2', ['{"a":1}\n', '{"b":2}\n']],
    ['CRLF YAML', 'a: x\r\n---\r\nb: z\r\n', ['{"a":"x"}\n', '{"b":"z"}\n']],
    ['CRLF JSON', '{"a":1}\r\n{"b":2}\r\n', ['{"a":1}\n', '{"b":2}\n']],
    ['whitespace-only file is one blank document', '  \n\t\n', ['']],
    ['header comment before the first separator', '# header\n---\na: 1\n', ['', '{"a":1}\n']],
    ['blank line between separators', '---\n\n---\na: 1\n', ['', '{"a":1}\n']],
    ['JSON null document', '{"a":1}\n{"b":2}\nnull', ['{"a":1}\n', '{"b":2}\n', 'null\n']],
    ['YAML null document is blank', 'null\n', ['']],
  ])('%s', (_name, text, want) => {
    expect(blobs(text)).toEqual(want);
  });

  it('names the file line and the document of a YAML error in a later document, keeping upstream text in detail', () => {
    const err = failure('schema: olm.package\nname: a\n---\nschema: olm.channel\nname: s\n---\n# third\nschema: olm.bundle\n  name: : x\n');
    expect(err.message).toBe('f.json:9: error converting YAML to JSON: yaml: line 9 (document 3): mapping values are not allowed in this context');
    expect(err.line).toBe(7);
    expect(err.detail).toBe('error converting YAML to JSON: yaml: line 3: mapping values are not allowed in this context');
  });

  it('reports the 1-based line where each document starts', () => {
    const json = parseMetas('\n{"a":1}\n\n  {"b":\n2}{"c":3}\n');
    expect(json.map((e) => e.source.line)).toEqual([2, 4, 5]);
    const yaml = parseMetas('a: 1\n---\n\nb: 2\n---\nc: 3\n');
    expect(yaml.map((e) => e.source.line)).toEqual([1, 3, 6]);
  });

  it('decides JSON vs YAML on the first non-space rune within 4096 bytes', () => {
    // As JSON, two concatenated objects are two documents...
    expect(blobs(`${' '.repeat(4000)}{"a":1}{"b":2}`)).toEqual(['{"a":1}\n', '{"b":2}\n']);
    // ...but past the sniff window the stream is YAML, where that text is one invalid document.
    expect(() => parseMetas(`${' '.repeat(5000)}{"a":1}{"b":2}`)).toThrow(/^line 1: error converting YAML to JSON: yaml: /);
  });
});

describe('JSON to YAML fallback', () => {
  it('switches to YAML after one JSON object', () => {
    expect(blobs('{"schema":"a"}\n---\nschema: b\n')).toEqual(['{"schema":"a"}\n', '{"schema":"b"}\n']);
    expect(blobs('{"schema":"a"}\nschema: b\n')).toEqual(['{"schema":"a"}\n', '{"schema":"b"}\n']);
  });

  it('re-reads an invalid first JSON object as YAML (trailing comma, comments)', () => {
    expect(blobs('{"a": 1,}')).toEqual(['{"a":1}\n']);
    expect(blobs('{"a": 1, # note\n "b": yes}')).toEqual(['{"a":1,"b":true}\n']);
  });

  it('re-reads an out-of-range number as YAML, where it stays a string', () => {
    expect(blobs('{"a":1e400}')).toEqual(['{"a":"1e400"}\n']);
  });

  it('reports the JSON syntax error with its stream offset when YAML fails too', () => {
    const err = failure('{"schema":"a"}\n{"schema": }');
    expect(err.detail).toBe(`json: offset 27: invalid character '}' looking for beginning of value`);
    expect(err.message).toBe(`f.json:2: json: offset 27: invalid character '}' looking for beginning of value`);
    expect(failure('{"a" 1}').detail).toBe(`json: offset 6: invalid character '1' after object key`);
    expect(failure('{"a":1]').detail).toBe(`json: offset 7: invalid character ']' after object key:value pair`);
  });

  it.each<[string, string]>([
    ['{"a":"\\x"}', `invalid character 'x' in string escape code`],
    ['{"a":"\\u12g4"}', `invalid character 'g' in \\u hexadecimal character escape`],
    ['{"a":"\t"}', `invalid character '\\t' in string literal`],
    ['{"a":tru}', `invalid character '}' in literal true (expecting 'e')`],
    ['{"a":nul}', `invalid character '}' in literal null (expecting 'l')`],
    ['{"a":01}', `invalid character '1' after object key:value pair`],
    ['{"a":-x}', `invalid character 'x' in numeric literal`],
    ['{"a":1.}', `invalid character '}' after decimal point in numeric literal`],
    ['{"a":1e}', `invalid character '}' in exponent of numeric literal`],
    ['{"a":[1 2]}', `invalid character '2' after array element`],
    ['{,}', `invalid character ',' looking for beginning of object key string`],
    ["{'a':1}", `invalid character '\\'' looking for beginning of object key string`],
    ['{"\u00e9":\u00e9}', `invalid character 'Ã' looking for beginning of value`],
  ])('uses Go scanner messages: %s', (bad, message) => {
    // Two good objects first, so that the error is not retried as YAML.
    expect(failure(`{}{}${bad}`).detail).toBe(message);
  });

  it('reports unexpected EOF without an offset', () => {
    expect(failure('{"a":[1,2').detail).toBe('unexpected EOF');
  });

  it('keeps the JSON error plain (no offset) once two objects were decoded', () => {
    const err = failure('{"a":1}\n{"b":2}\n{"c": }');
    expect(err.detail).toBe(`invalid character '}' looking for beginning of value`);
    expect(err.line).toBe(3);
    expect(failure('{"a":1}{"b":2}x').detail).toBe(`invalid character 'x' looking for beginning of value`);
  });

  it('keeps the JSON error when fewer than 4 bytes follow the last object', () => {
    // apimachinery reads 4 bytes at a time while skipping white space before YAML.
    expect(failure('{"a":1}\n}').detail).toBe(`json: offset 9: invalid character '}' looking for beginning of value`);
  });
});

describe('YAML documents', () => {
  it('rejects text after a document separator', () => {
    const err = failure('a: 1\n---foo\nb: 2\n');
    expect(err.detail).toBe('invalid Yaml document separator: foo');
    expect(err.line).toBe(2);
    expect(failure('----\n').detail).toBe('invalid Yaml document separator: -');
  });

  it('types plain scalars like YAML 1.1 (go-yaml v2)', () => {
    const doc = [
      'a: yes',
      'b: no',
      'c: on',
      'd: off',
      'e: y',
      'f: N',
      'g: True',
      'tilde: ~',
      'empty:',
      'float: 1.0',
      'exp: 1e3',
      'hex: 0x1F',
      'oct: 017',
      'under: 1_000',
      'neg0: -0',
      'negf0: -0.0',
      'eight: 08',
      'dot: .5',
      'big: 12345678901234567890',
      'huge: 1e400',
      'mixed: yEs',
      'date: 2024-01-02',
      'quoted: "yes"',
      'version: 1.10',
    ].join('\n');
    expect(blobs(doc)).toEqual([
      '{"a":true,"b":false,"big":12345678901234567000,"c":true,"d":false,"date":"2024-01-02","dot":0.5,"e":true,' +
        '"eight":8,"empty":null,"exp":1000,"f":false,"float":1,"g":true,"hex":31,"huge":"1e400","mixed":"yEs","neg0":0,' +
        '"negf0":-0,"oct":15,"quoted":"yes","tilde":null,"under":1000,"version":1.1}\n',
    ]);
    // Boolean-looking keys are booleans too: `yes:` and `on:` both become "true" (last wins).
    expect(blobs('yes: 1\non: 2\nno: 3\n')).toEqual(['{"false":3,"true":2}\n']);
  });

  it('stringifies non-string keys as Go prints them', () => {
    expect(blobs('1: a\n1.5: b\n1e6: c\ntrue: d\n0.1: e\n')).toEqual(['{"0.1":"e","1":"a","1.5":"b","1e+06":"c","true":"d"}\n']);
  });

  it('resolves anchors, merge keys and duplicate keys (last wins)', () => {
    expect(blobs('a: &x {b: 1}\nc:\n  <<: *x\n  d: 2\ne: 1\ne: 2\n')).toEqual(['{"a":{"b":1},"c":{"b":1,"d":2},"e":2}\n']);
  });

  it('reports conversion errors with sigs.k8s.io/yaml wording', () => {
    expect(failure('a: .inf\n').detail).toBe('error converting YAML to JSON: json: unsupported value: +Inf');
    expect(failure('a: [1, 2\n').detail).toMatch(/^error converting YAML to JSON: yaml: line \d+: /);
  });
});

describe('streaming', () => {
  const sample =
    '{"schema":"olm.package","name":"p"}\n{"schema":"olm.bundle","name":"p.v1","x":"\\"}{[\\\\"}\n' +
    '{"schema":"olm.channel","name":"c","entries":[{"name":"p.v1"}]}';

  it('gives the same documents whatever the chunking', async () => {
    const whole = parseMetas(sample).map((e) => e.meta);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 30 }), async (sizes) => {
        const bytes = Buffer.from(sample);
        const chunks: Uint8Array[] = [];
        for (let i = 0, k = 0; i < bytes.length; k++) {
          const n = sizes[k % sizes.length] as number;
          chunks.push(bytes.subarray(i, i + n));
          i += n;
        }
        const got: MetaEntry[] = [];
        for await (const e of parseMetaStream(chunks)) got.push(e);
        expect(got.map((e) => e.meta)).toEqual(whole);
      }),
      { numRuns: 60 },
    );
  });

  it('lets callers collect errors and continue with later YAML documents', () => {
    const errors: string[] = [];
    const got = parseMetas('a: 1\n---\n- x\n---\nb: 2\n', { file: 'c.yaml', onError: (e) => errors.push(e.message) });
    expect(got.map((e) => e.meta.blob)).toEqual(['{"a":1}\n', '{"b":2}\n']);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^c\.yaml:3: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array/);
  });
});
