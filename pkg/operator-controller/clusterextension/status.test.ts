import { describe, expect, it } from 'vitest';
import type { ClusterExtension, Condition } from '../../shared/api/index.ts';
import { MAX_CONDITION_MESSAGE_BYTES, TRUNCATION_SUFFIX } from '../../shared/controller/index.ts';
import { TerminalError } from '../../shared/errors/index.ts';
import type { Release } from '../release/index.ts';
import {
  MESSAGES,
  bundleMetadataOf,
  setCondition,
  setDeprecation,
  setInstalledFrom,
  setInstalledUnknown,
  setProgressingError,
  setProgressingRetrying,
  setProgressingSucceeded,
  statusOf,
} from './status.ts';
import { Manifest } from '../release/index.ts';

const OLD = '2020-01-01T00:00:00Z';

function extension(generation: number | null = 3): ClusterExtension {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name: 'ext', ...(generation === null ? {} : { generation }) },
    spec: { namespace: 'ns', source: { sourceType: 'Catalog', catalog: { packageName: 'pkg', upgradeConstraintPolicy: 'CatalogProvided' } } },
  };
}

function release(version: string, extra: Partial<Release['bundle']> = {}): Release {
  return {
    extension: 'ext',
    extensionUID: 'u',
    revision: 1,
    status: 'deployed',
    bundle: { package: 'pkg', name: `pkg.v${version}`, version, image: `registry.example/pkg-bundle@sha256:${version}`, ...extra },
    manifest: Manifest.ofObjects([]),
    properties: [],
    description: 'Install complete',
  };
}

function condition(ce: ClusterExtension, type: string): Condition | undefined {
  return statusOf(ce).conditions?.find((c) => c.type === type);
}

describe('setInstalledFrom', () => {
  it('with a deployed release: Installed True/Succeeded and status.install', () => {
    const ce = extension();
    setInstalledFrom(ce, release('1.0.0', { release: '2' }));
    expect(condition(ce, 'Installed')).toMatchObject({
      type: 'Installed',
      status: 'True',
      reason: 'Succeeded',
      message: 'Installed bundle registry.example/pkg-bundle@sha256:1.0.0 successfully',
      observedGeneration: 3,
    });
    expect(statusOf(ce).install).toEqual({ bundle: { name: 'pkg.v1.0.0', version: '1.0.0', release: '2' } });
  });

  it('without a release: Installed False/Failed "No bundle installed" and no status.install', () => {
    const ce = extension();
    setInstalledFrom(ce, release('1.0.0'));
    setInstalledFrom(ce, undefined);
    expect(condition(ce, 'Installed')).toMatchObject({
      status: 'False',
      reason: 'Failed',
      message: MESSAGES.noBundleInstalled,
      observedGeneration: 3,
    });
    expect(MESSAGES.noBundleInstalled).toBe('No bundle installed');
    expect(statusOf(ce)).not.toHaveProperty('install');
  });

  it('keeps lastTransitionTime when only the message changes, and moves it when the status changes', () => {
    const ce = extension();
    setInstalledFrom(ce, release('1.0.0'));
    const installed = condition(ce, 'Installed');
    if (installed === undefined) throw new Error('no Installed condition');
    expect(installed.lastTransitionTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    installed.lastTransitionTime = OLD;
    setInstalledFrom(ce, release('1.1.0'));
    expect(condition(ce, 'Installed')).toMatchObject({
      message: 'Installed bundle registry.example/pkg-bundle@sha256:1.1.0 successfully',
      lastTransitionTime: OLD,
    });
    expect(statusOf(ce).install).toEqual({ bundle: { name: 'pkg.v1.1.0', version: '1.1.0' } });
    setInstalledFrom(ce, undefined);
    expect(condition(ce, 'Installed')?.lastTransitionTime).not.toBe(OLD);
  });

  it('observedGeneration follows metadata.generation and is absent without one', () => {
    const ce = extension(3);
    setInstalledFrom(ce, release('1.0.0'));
    ce.metadata.generation = 4;
    setInstalledFrom(ce, release('1.0.0'));
    expect(condition(ce, 'Installed')?.observedGeneration).toBe(4);
    const bare = extension(null);
    setInstalledFrom(bare, release('1.0.0'));
    expect(condition(bare, 'Installed')).not.toHaveProperty('observedGeneration');
  });
});

describe('other status setters', () => {
  it('setInstalledUnknown clears status.install only when asked', () => {
    const ce = extension();
    setInstalledFrom(ce, release('1.0.0'));
    setInstalledUnknown(ce, MESSAGES.retryingInstalledBundle, false);
    expect(condition(ce, 'Installed')).toMatchObject({ status: 'Unknown', reason: 'Failed', message: 'retrying to get installed bundle' });
    expect(statusOf(ce).install).toBeDefined();
    setInstalledUnknown(ce, 'x', true);
    expect(statusOf(ce)).not.toHaveProperty('install');
  });

  it.each([
    ['retried', new Error('timeout'), { status: 'True', reason: 'Retrying', message: 'timeout' }],
    [
      'terminal',
      new TerminalError('bad config', { reason: 'InvalidConfiguration' }),
      { status: 'False', reason: 'InvalidConfiguration', message: 'bad config' },
    ],
  ])('setProgressingError: %s', (_name, err, want) => {
    const ce = extension();
    setProgressingError(ce, err);
    expect(condition(ce, 'Progressing')).toMatchObject({ ...want, observedGeneration: 3 });
  });

  it('setProgressingRetrying and setProgressingSucceeded', () => {
    const ce = extension();
    setProgressingRetrying(ce, 'waiting for permissions');
    expect(condition(ce, 'Progressing')).toMatchObject({ status: 'True', reason: 'Retrying', message: 'waiting for permissions' });
    setProgressingSucceeded(ce);
    expect(condition(ce, 'Progressing')).toMatchObject({ status: 'True', reason: 'Succeeded', message: 'Desired state reached' });
    expect(statusOf(ce).conditions).toHaveLength(1);
  });

  it('setCondition truncates long messages to the API limit', () => {
    const ce = extension();
    setCondition(ce, 'Progressing', 'True', 'Retrying', 'z'.repeat(MAX_CONDITION_MESSAGE_BYTES + 10));
    const message = condition(ce, 'Progressing')?.message ?? '';
    expect(Buffer.byteLength(message)).toBe(MAX_CONDITION_MESSAGE_BYTES);
    expect(message.endsWith(TRUNCATION_SUFFIX)).toBe(true);
  });

  it('setDeprecation sets the conditions in the given order', () => {
    const ce = extension();
    setDeprecation(ce, [
      { type: 'Deprecated', status: 'False', reason: 'NotDeprecated', message: '' },
      { type: 'PackageDeprecated', status: 'True', reason: 'Deprecated', message: 'pkg is deprecated' },
    ]);
    expect(statusOf(ce).conditions?.map((c) => [c.type, c.status, c.message])).toEqual([
      ['Deprecated', 'False', ''],
      ['PackageDeprecated', 'True', 'pkg is deprecated'],
    ]);
  });

  it('bundleMetadataOf leaves release out when the bundle has none', () => {
    expect(bundleMetadataOf(release('2.0.0'))).toEqual({ name: 'pkg.v2.0.0', version: '2.0.0' });
  });
});
