import { describe, expect, it } from 'vitest';
import {
  compactRaw,
  decodeDocuments,
  decodeSingleDocument,
  decodeYamlOrJson,
  type RawJson,
  scanJson,
  YamlConvertError,
  yamlToJsonValue,
} from './index.ts';
import { PARITY_CASES } from '../../../test/goyaml/parity-cases.ts';

// The table's `go` answers are checked against the Go libraries by
// test/integration/yaml-go-parity.test.ts; here our decoder must give them (or `ours`).
describe('goyaml decoder against the Go parity table', () => {
  for (const row of PARITY_CASES) {
    it(`${row.mode}: ${row.name}`, () => {
      if (row.mode === 'convert') {
        const want = row.ours ?? row.go;
        let got: { json: unknown } | { error: string };
        try {
          got = { json: yamlToJsonValue(row.input) };
        } catch (e) {
          if (!(e instanceof YamlConvertError)) throw e;
          got = { error: e.message };
        }
        expect(got).toEqual('json' in want ? { json: JSON.parse(want.json) } : want);
        return;
      }
      const want = row.ours ?? row.go;
      const bytes = typeof row.input === 'string' ? Buffer.from(row.input, 'utf8') : row.input;
      const got = decodeYamlOrJson(bytes);
      expect(got).toEqual({ docs: want.docs.map((d) => JSON.parse(d) as unknown), ...(want.error === undefined ? {} : { error: want.error }) });
    });
  }
});

describe('raw JSON spans', () => {
  it('keeps key names and string indices for non-ASCII text and nested values', () => {
    const text = '{"é":"ü", "n":[1.50, {"k":"<&>"}], "z":{"a":{"b":null}}}';
    const r = scanJson(text);
    if (!r.ok) throw new Error(r.error);
    const root = r.value;
    if (root.kind !== 'object') throw new Error('not an object');
    expect(root.members.map((m) => m.key)).toEqual(['é', 'n', 'z']);
    expect(root.members.map((m) => text.slice(m.value.start, m.value.end))).toEqual(['"ü"', '[1.50, {"k":"<&>"}]', '{"a":{"b":null}}']);
    expect(compactRaw(text, (root.members[1] as { value: RawJson }).value)).toBe('[1.50,{"k":"\\u003c\\u0026\\u003e"}]');
  });

  it('reports Go syntax errors', () => {
    expect(scanJson('{"a":1} x')).toEqual({ ok: false, error: "invalid character 'x' after top-level value" });
    expect(scanJson('{"a":')).toEqual({ ok: false, error: 'unexpected end of JSON input' });
  });
});

describe('file-level helpers', () => {
  it('decodeDocuments drops null documents and the conversion prefix of errors', () => {
    expect(decodeDocuments('a: 1\n---\n# c\n---\nb: 2\n')).toEqual({ ok: true, value: [{ a: 1 }, { b: 2 }] });
    expect(decodeDocuments('a: [1\n')).toEqual({ ok: false, error: "yaml: line 1: did not find expected ',' or ']'" });
  });

  it('decodeSingleDocument reads the first document, like sigs.k8s.io/yaml.Unmarshal', () => {
    expect(decodeSingleDocument('a: 1\n---\nb: [\n')).toEqual({ ok: true, value: { a: 1 } });
    expect(decodeSingleDocument('')).toEqual({ ok: true, value: null });
  });
});
