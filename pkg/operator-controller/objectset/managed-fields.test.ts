import { describe, expect, it } from 'vitest';
import { upgradeManagedFieldsPatch } from './managed-fields.ts';

const M = 'olm.operatorframework.io';

describe('upgradeManagedFieldsPatch', () => {
  it('has nothing to do without an Update entry of the manager', () => {
    expect(upgradeManagedFieldsPatch(undefined, M, '1')).toBeUndefined();
    expect(
      upgradeManagedFieldsPatch(
        [
          { manager: M, operation: 'Apply', fieldsV1: {} },
          { manager: 'kubectl', operation: 'Update' },
        ],
        M,
        '1',
      ),
    ).toBeUndefined();
  });
  it("merges the create's Update entry into the Apply entry, keeping other managers' entries", () => {
    const fields = [
      { manager: M, operation: 'Update', apiVersion: 'v1', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } } },
      { manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:metadata': {} } },
      { manager: M, operation: 'Apply', apiVersion: 'v1', fieldsV1: { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': {} } } },
      { manager: M, operation: 'Update', subresource: 'status', fieldsV1: { 'f:status': {} } },
    ];
    expect(upgradeManagedFieldsPatch(fields, M, '7')).toEqual([
      {
        op: 'replace',
        path: '/metadata/managedFields',
        value: [
          { manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:metadata': {} } },
          { manager: M, operation: 'Apply', apiVersion: 'v1', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:labels': {} } } },
          { manager: M, operation: 'Update', subresource: 'status', fieldsV1: { 'f:status': {} } },
        ],
      },
      { op: 'replace', path: '/metadata/resourceVersion', value: '7' },
    ]);
  });
  it('turns a lone Update entry into the Apply entry', () => {
    const patch = upgradeManagedFieldsPatch([{ manager: M, operation: 'Update', fieldsV1: { 'f:data': {} } }], M, '2');
    expect(patch?.[0]).toEqual({
      op: 'replace',
      path: '/metadata/managedFields',
      value: [{ manager: M, operation: 'Apply', fieldsV1: { 'f:data': {} } }],
    });
  });
});
