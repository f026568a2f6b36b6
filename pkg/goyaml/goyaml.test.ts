import { describe, expect, it } from 'vitest';
import { decodeYamlOrJson, YamlConvertError, yamlToJsonValue } from './index.ts';
import { PARITY_CASES } from './parity-cases.ts';

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
