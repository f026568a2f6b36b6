import { describe, expect, it } from 'vitest';
import { selectCatalogs, type LabelSelector } from './index.ts';
import { parseLabelSelector, type Labels } from './label-selector.ts';

const KEY_RULE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE_RULE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

function matches(selector: LabelSelector | null, labels: Labels | undefined): boolean {
  const m = parseLabelSelector(selector);
  if (!m.ok) throw new Error(m.error);
  return m.value(labels);
}

describe('parseLabelSelector matching', () => {
  const labels = { name: 'a', tier: 'gold' };
  it.each<[string, LabelSelector | null, boolean]>([
    ['null selects everything', null, true],
    ['empty selects everything', {}, true],
    ['matchLabels hit', { matchLabels: { name: 'a' } }, true],
    ['matchLabels miss', { matchLabels: { name: 'b' } }, false],
    ['matchLabels on a missing key', { matchLabels: { other: 'a' } }, false],
    ['In', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold', 'silver'] }] }, true],
    ['In on a missing key', { matchExpressions: [{ key: 'zone', operator: 'In', values: ['x'] }] }, false],
    ['NotIn', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['gold'] }] }, false],
    ['NotIn on a missing key', { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['x'] }] }, true],
    ['Exists', { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, true],
    ['DoesNotExist', { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, false],
    ['all requirements must hold', { matchLabels: { name: 'a' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['silver'] }] }, false],
  ])('%s', (_, selector, want) => {
    expect(matches(selector, labels)).toBe(want);
  });

  it('treats absent labels as an empty set', () => {
    expect(matches({ matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, undefined)).toBe(true);
    expect(matches({ matchLabels: { a: 'b' } }, undefined)).toBe(false);
  });
});

describe('parseLabelSelector errors (Kubernetes texts)', () => {
  it.each<[LabelSelector, string]>([
    [{ matchExpressions: [{ key: 'name', operator: 'bad' }] }, '"bad" is not a valid label selector operator'],
    [{ matchLabels: { '-bad-': 'x' } }, `key: Invalid value: "-bad-": name part ${KEY_RULE}`],
    [{ matchLabels: { name: 'bad value' } }, `values[0][name]: Invalid value: "bad value": ${VALUE_RULE}`],
    [{ matchExpressions: [{ key: 'name', operator: 'In' }] }, "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"],
    [
      { matchExpressions: [{ key: 'name', operator: 'Exists', values: ['a<b'] }] },
      `[values: Invalid value: ["a\\u003cb"]: values set must be empty for exists and does not exist, values[0][name]: Invalid value: "a<b": ${VALUE_RULE}]`,
    ],
    [
      { matchExpressions: [{ key: 'Bad_Prefix/a', operator: 'In', values: ['ok'] }] },
      `key: Invalid value: "Bad_Prefix/a": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ],
    [{ matchLabels: { [`${'a'.repeat(64)}`]: 'x' } }, `key: Invalid value: "${'a'.repeat(64)}": name part must be no more than 63 bytes`],
  ])('%j', (selector, message) => {
    expect(parseLabelSelector(selector)).toEqual({ ok: false, error: message });
  });

  it('checks matchLabels before matchExpressions', () => {
    const r = parseLabelSelector({ matchLabels: { '-x': 'v' }, matchExpressions: [{ key: 'a', operator: 'bad' }] });
    expect(r.ok ? '' : r.error).toMatch(/^key: Invalid value:/);
  });
});

describe('selectCatalogs', () => {
  const catalogs: { name: string; labels: Labels }[] = [
    { name: 'a', labels: { 'olm.operatorframework.io/metadata.name': 'a', env: 'prod' } },
    { name: 'b', labels: { 'olm.operatorframework.io/metadata.name': 'b' } },
    { name: 'c', labels: { 'olm.operatorframework.io/metadata.name': 'c', env: 'prod' } },
  ];

  it('keeps matching catalogs in input order', () => {
    const r = selectCatalogs(catalogs, { matchLabels: { env: 'prod' } });
    expect(r.ok && r.value.map((c) => c.name)).toEqual(['a', 'c']);
  });

  it('selects everything for a nil selector', () => {
    const r = selectCatalogs(catalogs, undefined);
    expect(r.ok && r.value.length).toBe(3);
  });

  it('selects by name through the metadata.name label', () => {
    const r = selectCatalogs(catalogs, { matchLabels: { 'olm.operatorframework.io/metadata.name': 'b' } });
    expect(r.ok && r.value.map((c) => c.name)).toEqual(['b']);
  });

  it('prefixes errors with E-sel', () => {
    expect(selectCatalogs(catalogs, { matchExpressions: [{ key: 'x', operator: 'bad' }] })).toEqual({
      ok: false,
      error: 'desired catalog selector is invalid: "bad" is not a valid label selector operator',
    });
  });
});
