// The YAML parity table (test/goyaml/parity-cases.ts) states what upstream's Go libraries
// answer for each tricky input; this test proves it. Every row goes through the real libraries
// at the versions upstream OLM links (test/goyaml: sigs.k8s.io/yaml v1.6.0 over
// go.yaml.in/yaml/v2 v2.4.4, apimachinery v0.36.4's YAMLOrJSONDecoder), built with the
// machine's Go toolchain and cached beside the envtest binaries. The unit test
// pkg/gocompat/goyaml/goyaml.test.ts then holds our decoder to the same table.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { YamlConvertError, yamlToJsonValue } from '../../pkg/gocompat/goyaml/index.ts';
import { PARITY_CASES } from '../goyaml/parity-cases.ts';
import { defaultCacheRoot } from '../envtest/index.ts';
import { ensureGoYamlOracle } from '../goyaml/build.ts';
import { askGo, type OracleAnswer } from '../goyaml/oracle.ts';

let binary = '';
let answers: OracleAnswer[] = [];

beforeAll(async () => {
  binary = await ensureGoYamlOracle(defaultCacheRoot(process.env), process.env, (line) => process.stderr.write(`${line}\n`));
  answers = await askGo(binary, PARITY_CASES);
}, 600_000);

describe('the YAML parity table states what the Go libraries answer', () => {
  it('has unique mode and name pairs', () => {
    expect(new Set(PARITY_CASES.map((c) => `${c.mode}: ${c.name}`)).size).toBe(PARITY_CASES.length);
  });

  PARITY_CASES.forEach((row, i) => {
    it(`${row.mode}: ${row.name}`, () => {
      const go = answers[i];
      if (row.mode === 'convert') {
        expect(go).toEqual(row.go);
        return;
      }
      // An empty document list is left out of Go's answer.
      expect({ docs: go?.docs ?? [], ...(go?.error === undefined ? {} : { error: go.error }) }).toEqual(row.go);
    });
  });
});

// Beyond the table: short random words over the characters that drive go-yaml's scalar
// resolution (digits, signs, base prefixes, exponents, `_`, `:`, `.`, bool/null letters), as
// values and as keys, straight against Go. Deterministic (fixed seed).
describe('random plain scalars', () => {
  it('are typed and stringified as keys the way go-yaml and sigs.k8s.io/yaml do', async () => {
    const unit = fc.constantFrom(...'0123456789+-._:eExXoObBaAfFnNyYtTlLiI~');
    const words = fc.sample(fc.string({ unit, minLength: 1, maxLength: 8 }), { numRuns: 3000, seed: 7 });
    const texts = words.flatMap((w) => [`a: ${w}\n`, `${w}: 1\n`]);
    const go = await askGo(
      binary,
      texts.map((input) => ({ mode: 'convert' as const, input })),
    );
    const mismatches: string[] = [];
    texts.forEach((text, i) => {
      let ours: { json: unknown } | { error: string };
      try {
        ours = { json: yamlToJsonValue(text) };
      } catch (e) {
        if (!(e instanceof YamlConvertError)) throw e;
        ours = { error: e.message };
      }
      const answer = go[i];
      const agree =
        answer?.json !== undefined ? 'json' in ours && JSON.stringify(ours.json) === JSON.stringify(JSON.parse(answer.json)) : 'error' in ours;
      if (!agree) mismatches.push(`${JSON.stringify(text)}: go ${JSON.stringify(answer)}, ours ${JSON.stringify(ours)}`);
    });
    expect(mismatches).toEqual([]);
  });
});
