import { describe, expect, it } from 'vitest';
import { decodeDocuments, decodeYamlOrJson, inFileNumbering } from './index.ts';

// Three documents; the third has a syntax error on its 3rd line, the file's 8th.
const THREE_DOCS = ['a: 1', '---', 'b: 2', 'c: 3', '---', '# third', 'd: 4', '  e: : 5', ''].join('\n');

describe('inFileNumbering', () => {
  it.each([
    ['a first document keeps its text', 'yaml: line 3: oops', { index: 1, firstLine: 1 }, 'yaml: line 3: oops', 3],
    [
      'a later document names the file line and the document',
      'yaml: line 3: oops',
      { index: 3, firstLine: 10 },
      'yaml: line 12 (document 3): oops',
      12,
    ],
    [
      'only the first line number is rewritten, wrappers kept',
      'error converting YAML to JSON: yaml: line 2: a line 9: b',
      { index: 2, firstLine: 5 },
      'error converting YAML to JSON: yaml: line 6 (document 2): a line 9: b',
      6,
    ],
    [
      'text without a line is unchanged',
      'yaml: did not find expected node content',
      { index: 2, firstLine: 5 },
      'yaml: did not find expected node content',
      undefined,
    ],
  ])('%s', (_name, detail, at, text, line) => {
    expect(inFileNumbering(detail, at)).toEqual({ text, line });
  });
});

describe('decodeDocuments line numbers', () => {
  it('reports an error in the third document with the file line and the document index', () => {
    const r = decodeDocuments(THREE_DOCS);
    expect(r).toEqual({ ok: false, error: 'yaml: line 8 (document 3): mapping values are not allowed in this context' });
  });

  it('keeps upstream numbering in decodeYamlOrJson, where texts are compared with Go', () => {
    const r = decodeYamlOrJson(Buffer.from(THREE_DOCS));
    expect(r.error).toBe('error converting YAML to JSON: yaml: line 3: mapping values are not allowed in this context');
    expect(r.docs).toEqual([{ a: 1 }, { b: 2, c: 3 }]);
  });

  it('numbers a single document file as the file', () => {
    expect(decodeDocuments('a: 1\nb: 2\n  c: : 3\n')).toEqual({ ok: false, error: 'yaml: line 3: mapping values are not allowed in this context' });
  });

  it('counts CRLF lines and a leading separator', () => {
    expect(decodeDocuments('---\r\na: 1\r\n  b: : 2\r\n')).toEqual({
      ok: false,
      error: 'yaml: line 3 (document 1): mapping values are not allowed in this context',
    });
  });
});
