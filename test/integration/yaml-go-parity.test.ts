// The YAML parity table (pkg/goyaml/parity-cases.ts) states what upstream's Go libraries
// answer for each tricky input; this test proves it. Every row goes through the real libraries
// at the versions upstream OLM links (test/goyaml: sigs.k8s.io/yaml v1.6.0 over
// go.yaml.in/yaml/v2 v2.4.4, apimachinery v0.36.4's YAMLOrJSONDecoder), built with the
// machine's Go toolchain and cached beside the envtest binaries. The unit test
// pkg/goyaml/goyaml.test.ts then holds our decoder to the same table.
import { beforeAll, describe, expect, it } from 'vitest';
import { PARITY_CASES } from '../../pkg/goyaml/parity-cases.ts';
import { defaultCacheRoot } from '../envtest/index.ts';
import { ensureGoYamlOracle } from '../goyaml/build.ts';
import { askGo, type OracleAnswer } from '../goyaml/oracle.ts';

let answers: OracleAnswer[] = [];

beforeAll(async () => {
  const binary = await ensureGoYamlOracle(defaultCacheRoot(process.env), process.env, (line) => process.stderr.write(`${line}\n`));
  answers = await askGo(binary, PARITY_CASES);
}, 600_000);

describe('the YAML parity table states what the Go libraries answer', () => {
  it('has unique row names', () => {
    expect(new Set(PARITY_CASES.map((c) => c.name)).size).toBe(PARITY_CASES.length);
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
