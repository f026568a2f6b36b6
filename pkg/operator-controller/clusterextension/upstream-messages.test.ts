// The condition messages upstream's reference lists (../shared/reference/resolver.md §5 and §7,
// api-and-controllers.md), each held to its exact text as the resolve step writes it on the
// ClusterExtension: reason and message, nothing added. What this project knows beyond them (the
// versions and successors the catalogs offer) goes to a Warning Event, checked here too.
import { describe, expect, it } from 'vitest';
import { catalogSource, chainedPackage, recordingEvents } from '../../../test/support/extension-ports.ts';
import type { CatalogFixture } from '../../../test/support/cluster-catalogs.ts';
import { extensionState } from '../../../test/support/extension-state.ts';
import type { Release } from '../release/index.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { resolveStep, type ResolvePorts } from './steps.ts';
import { Manifest } from '../release/index.ts';

/** A deployed release of `<pkg>.v<version>`. */
function deployed(pkg: string, version: string): Release {
  return {
    extension: 'ext',
    extensionUID: 'u',
    revision: 1,
    status: 'deployed',
    bundle: { package: pkg, name: `${pkg}.v${version}`, version, image: `registry.example/${pkg}-bundle:v${version}` },
    manifest: Manifest.ofObjects([]),
    properties: [],
    description: 'Install complete',
  };
}

interface Case {
  /** Where upstream's reference states the text. */
  source: string;
  pkg: string;
  /** The package the catalogs carry (its versions, one channel "stable", each replacing the one before). */
  offered: { pkg: string; versions: string[] };
  catalogs?: Record<string, CatalogFixture>;
  spec?: { version?: string; channels?: string[] };
  installed?: string;
  progressing: string;
  installedCondition: { status: string; reason: string; message: string };
}

const NONE = { status: 'False', reason: 'Failed', message: 'No bundle installed' };
const installedAt = (pkg: string, v: string) => ({
  status: 'True',
  reason: 'Succeeded',
  message: `Installed bundle registry.example/${pkg}-bundle:v${v} successfully`,
});

const cases: Case[] = [
  {
    source: 'resolver.md §5 [T R04]',
    pkg: 'foo',
    offered: { pkg: 'bar', versions: ['1.0.0'] },
    progressing: 'no bundles found for package "foo"',
    installedCondition: NONE,
  },
  {
    source: 'resolver.md §5 [T R07]',
    pkg: 'foo',
    offered: { pkg: 'foo', versions: ['1.0.0', '2.0.0'] },
    spec: { version: '4.0.0' },
    progressing: 'no bundles found for package "foo" matching version "4.0.0"',
    installedCondition: NONE,
  },
  {
    source: 'resolver.md §5 [T R09]',
    pkg: 'foo',
    offered: { pkg: 'foo', versions: ['1.0.0'] },
    spec: { channels: ['beta'] },
    progressing: 'no bundles found for package "foo" in channels [beta]',
    installedCondition: NONE,
  },
  {
    source: 'resolver.md §5 [T R11]',
    pkg: 'foo',
    offered: { pkg: 'foo', versions: ['1.0.0', '3.0.0'] },
    spec: { version: '3.0.0', channels: ['beta'] },
    progressing: 'no bundles found for package "foo" matching version "3.0.0" in channels [beta]',
    installedCondition: NONE,
  },
  {
    source: 'resolver.md §5 [T R21]',
    pkg: 'foo',
    offered: { pkg: 'foo', versions: ['0.1.0', '1.0.0', '2.0.0'] },
    spec: { version: '<1.0.0 >=2.0.0' },
    installed: '0.1.0',
    progressing: 'error upgrading from currently installed version "0.1.0": no bundles found for package "foo" matching version "<1.0.0 >=2.0.0"',
    installedCondition: installedAt('foo', '0.1.0'),
  },
  {
    // Upstream's e2e scenario "Cannot update extension to non successor version".
    source: 'resolver.md §7 (e2e)',
    pkg: 'test',
    offered: { pkg: 'test', versions: ['1.0.0', '1.0.1', '1.2.0'] },
    spec: { version: '1.2.0' },
    installed: '1.0.0',
    progressing: 'error upgrading from currently installed version "1.0.0": no bundles found for package "test" matching version "1.2.0"',
    installedCondition: installedAt('test', '1.0.0'),
  },
  {
    source: 'resolver.md §5 (e2e)',
    pkg: 'test',
    offered: { pkg: 'test', versions: ['1.0.0'] },
    catalogs: { test: {}, extra: {} },
    progressing: 'found bundles for package "test" in multiple catalogs with the same priority [extra test]',
    installedCondition: NONE,
  },
  {
    source: 'resolver.md §5 E-range [T]',
    pkg: 'foo',
    offered: { pkg: 'foo', versions: ['1.0.0'] },
    spec: { version: 'foobar' },
    progressing: 'desired version range "foobar" is invalid: improper constraint: "foobar"',
    installedCondition: NONE,
  },
  {
    source: 'resolver.md §5 E-walk-2 and fetch errors',
    pkg: 'foo',
    offered: { pkg: 'foo', versions: ['1.0.0'] },
    catalogs: { a: { serving: 'False' } },
    progressing: 'error walking catalogs: error getting package "foo" from catalog "a": catalog "a" is not being served',
    installedCondition: NONE,
  },
];

function condition(s: ExtensionState, type: string) {
  return s.ce.status?.conditions?.find((c) => c.type === type);
}

describe("upstream's condition messages, exactly", () => {
  it.each(cases)('$progressing', async (c) => {
    const events: string[] = [];
    const s = extensionState({
      spec: { source: { sourceType: 'Catalog', catalog: { packageName: c.pkg, ...c.spec } } },
      ...(c.installed === undefined ? {} : { installed: deployed(c.pkg, c.installed), history: [deployed(c.pkg, c.installed)] }),
    });
    const ports = {
      catalogs: catalogSource(chainedPackage(c.offered.pkg, c.offered.versions), c.catalogs),
      features: { bundleReleaseSupport: false },
      events: recordingEvents(events),
    } satisfies ResolvePorts;
    const err: unknown = await Promise.resolve()
      .then(() => resolveStep(ports).run(s))
      .catch((e: unknown) => e);
    expect(err, c.source).toBeInstanceOf(Error);
    expect((err as Error).message).toBe(c.progressing);
    expect(condition(s, 'Progressing')).toMatchObject({ status: 'True', reason: 'Retrying', message: c.progressing });
    expect(condition(s, 'Installed')).toMatchObject(c.installedCondition);
    expect(condition(s, 'Deprecated')).toMatchObject({
      status: 'Unknown',
      reason: 'DeprecationStatusUnknown',
      message: 'deprecation status unknown: catalog data unavailable',
    });
    // The Event starts with upstream's text; whatever follows is on lines of its own.
    expect(events).toHaveLength(1);
    expect(events[0]?.startsWith(`Warning ResolutionFailed: ${c.progressing}`)).toBe(true);
    expect(events[0]?.slice(`Warning ResolutionFailed: ${c.progressing}`.length)).toMatch(/^(\n.+)*$/);
  });
});
