import { dump } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { decodeDocuments } from '../../gocompat/goyaml/index.ts';
import { LONG_STRING, objectsToYaml, toYaml } from './yaml-output.ts';

describe('YAML output', () => {
  it('writes multi-megabyte strings that read back exactly (js-yaml alone overflows its regexp stack)', () => {
    const plain = 'x'.repeat(4 << 20);
    const text = `line one\n  "quoted" 'single' \\ back\ttab\u0085nel\u2028ls\u007fdel\ufeffbom é ✓ 🎉 `.repeat(5_000);
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { plain, text, short: 'yes' }, list: [plain, 1] };
    const out = objectsToYaml([obj]);
    expect(decodeDocuments(out)).toEqual({ ok: true, value: [obj] });
    // Short strings keep js-yaml's styles ("yes" quoted so that it stays a string).
    expect(out).toContain("  short: 'yes'\n");
  });

  it('leaves output without long strings exactly as js-yaml writes it', () => {
    const obj = { b: 'x'.repeat(LONG_STRING), a: ['multi\nline', { __proto__: 1, y: null }] };
    expect(toYaml(obj)).toBe(dump(obj, { sortKeys: true, lineWidth: -1, noRefs: true, skipInvalid: true }));
    expect(toYaml({ b: 1, a: 2 }, { sortKeys: false })).toBe('b: 1\na: 2\n');
  });

  it('keeps a __proto__ key holding a long string as data', () => {
    const obj = JSON.parse(`{"__proto__":"${'z'.repeat(LONG_STRING + 1)}"}`) as Record<string, unknown>;
    expect(decodeDocuments(toYaml(obj))).toEqual({ ok: true, value: [obj] });
  });

  it('refuses a map key too long for YAML with a clear error', () => {
    expect(() => toYaml({ ['k'.repeat(LONG_STRING + 1)]: 1 })).toThrow(`a map key of ${LONG_STRING + 1} characters cannot be written as YAML`);
  });
});
