import { describe, expect, it } from 'vitest';
import { ClusterCatalogReason, ClusterExtensionConditionType, ClusterExtensionReason, Condition, findCondition } from '../index.ts';
import { ClusterCatalogConditionType } from './conditions.ts';

const CLUSTER_EXTENSION_CONDITION_TYPES = Object.values(ClusterExtensionConditionType);
const CLUSTER_EXTENSION_REASONS: string[] = Object.values(ClusterExtensionReason);
const CLUSTER_CATALOG_CONDITION_TYPES = Object.values(ClusterCatalogConditionType);
const CLUSTER_CATALOG_REASONS = Object.values(ClusterCatalogReason);

// The complete sets upstream's API defines for each kind, written out
// here independently of the implementation so that an added, removed or misspelt entry fails.
const SPEC_CE_TYPES = ['Installed', 'Progressing', 'Deprecated', 'PackageDeprecated', 'ChannelDeprecated', 'BundleDeprecated'];
const SPEC_CE_REASONS = [
  'Succeeded',
  'Failed',
  'Blocked',
  'Retrying',
  'InvalidConfiguration',
  'Absent',
  'RollingOut',
  'ProgressDeadlineExceeded',
  'Deprecated',
  'NotDeprecated',
  'DeprecationStatusUnknown',
];
const SPEC_CC_TYPES = ['Serving', 'Progressing'];
const SPEC_CC_REASONS = ['Available', 'Unavailable', 'UserSpecifiedUnavailable', 'Succeeded', 'Retrying', 'Blocked'];

// Every (type, reason) pair the specification's condition tables use.
const SPEC_CE_TABLE_REASONS = [
  ['Installed', ['Succeeded', 'Failed', 'Absent']],
  ['Progressing', ['Succeeded', 'Retrying', 'Blocked', 'InvalidConfiguration', 'RollingOut', 'ProgressDeadlineExceeded']],
  ['Deprecated', ['Deprecated', 'NotDeprecated', 'DeprecationStatusUnknown']],
  ['BundleDeprecated', ['Deprecated', 'NotDeprecated', 'Absent', 'DeprecationStatusUnknown']],
] as const;

// The reason pattern of metav1.Condition, as in the CRDs.
const REASON_PATTERN = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

describe('condition vocabulary', () => {
  it('lists exactly the ClusterExtension condition types of the specification', () => {
    expect([...CLUSTER_EXTENSION_CONDITION_TYPES]).toEqual(SPEC_CE_TYPES);
  });

  it('lists exactly the ClusterExtension reasons of the specification', () => {
    expect([...CLUSTER_EXTENSION_REASONS]).toEqual(SPEC_CE_REASONS);
  });

  it('lists exactly the ClusterCatalog condition types and reasons of the specification', () => {
    expect([...CLUSTER_CATALOG_CONDITION_TYPES]).toEqual(SPEC_CC_TYPES);
    expect([...CLUSTER_CATALOG_REASONS]).toEqual(SPEC_CC_REASONS);
  });

  it('covers every reason the ClusterExtension condition tables use', () => {
    for (const [type, reasons] of SPEC_CE_TABLE_REASONS) {
      expect(CLUSTER_EXTENSION_CONDITION_TYPES).toContain(type);
      for (const reason of reasons) expect(CLUSTER_EXTENSION_REASONS).toContain(reason);
    }
  });

  it('maps every key to the identical string, so keys can be used as values', () => {
    for (const [key, value] of Object.entries(ClusterExtensionConditionType)) expect(value).toBe(key);
    for (const [key, value] of Object.entries(ClusterExtensionReason)) expect(value).toBe(key);
    for (const [key, value] of Object.entries(ClusterCatalogReason)) expect(value).toBe(key);
  });

  it('uses only reasons the CRD reason pattern admits', () => {
    for (const reason of [...CLUSTER_EXTENSION_REASONS, ...CLUSTER_CATALOG_REASONS]) {
      expect(reason).toMatch(REASON_PATTERN);
    }
  });
});

describe('Condition schema', () => {
  const installed = {
    type: 'Installed',
    status: 'True',
    reason: 'Succeeded',
    message: 'Installed bundle quay.io/x/y@sha256:abc successfully',
    lastTransitionTime: '2024-01-02T03:04:05Z',
    observedGeneration: 3,
  } satisfies Condition;

  it('accepts a metav1.Condition, with or without observedGeneration and with an empty message', () => {
    expect(Condition.parse(installed)).toEqual(installed);
    const { observedGeneration: _, ...withoutGeneration } = installed;
    expect(Condition.parse({ ...withoutGeneration, message: '' })).toEqual({ ...withoutGeneration, message: '' });
  });

  it('rejects a status outside True/False/Unknown and a missing reason', () => {
    expect(Condition.safeParse({ ...installed, status: 'true' }).success).toBe(false);
    const { reason: _, ...noReason } = installed;
    expect(Condition.safeParse(noReason).success).toBe(false);
  });

  it('findCondition returns the condition of the given type, or undefined', () => {
    const progressing: Condition = { ...installed, type: 'Progressing', reason: 'Retrying' };
    expect(findCondition([installed, progressing], 'Progressing')).toBe(progressing);
    expect(findCondition([installed], 'Progressing')).toBeUndefined();
    expect(findCondition(undefined, 'Installed')).toBeUndefined();
  });
});
