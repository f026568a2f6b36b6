// The resolve step with dependency checking (decision 0104): a bundle whose requirements the
// cluster does not meet is not the target; a lower one of the range is, with a Normal Event; when
// none is left, Progressing names the requirement and what the selected catalogs offer for it.
import { describe, expect, it } from 'vitest';
import { catalogSource, recordingEvents } from '../../../test/support/extension-ports.ts';
import { extensionState } from '../../../test/support/extension-state.ts';
import type { DeclarativeConfig, Bundle } from '../../shared/fbc/types.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import { Manifest } from '../release/index.ts';
import type { CatalogSource } from '../dependencyview/index.ts';
import type { DependencyPorts } from '../dependencyview/index.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { resolveStep, type ResolvePorts } from './steps.ts';

function bundle(pkg: string, version: string, extra: Bundle['properties'] = []): Bundle {
  return {
    schema: 'olm.bundle',
    name: `${pkg}.v${version}`,
    package: pkg,
    image: `registry.example/${pkg}:v${version}`,
    properties: [{ type: 'olm.package', value: { packageName: pkg, version } }, ...extra],
  };
}

const NEEDS_ETCD = {
  type: 'olm.constraint',
  value: { failureMessage: 'app 2 needs etcd 3.2 or later', package: { packageName: 'etcd', versionRange: '>=3.2.0' } },
};
const content: DeclarativeConfig = {
  packages: [
    { schema: 'olm.package', name: 'app', defaultChannel: 'stable' },
    { schema: 'olm.package', name: 'etcd', defaultChannel: 'stable' },
  ],
  channels: [
    { schema: 'olm.channel', name: 'stable', package: 'app', entries: [{ name: 'app.v1.0.0' }, { name: 'app.v2.0.0', replaces: 'app.v1.0.0' }] },
    { schema: 'olm.channel', name: 'stable', package: 'etcd', entries: [{ name: 'etcd.v3.1.0' }, { name: 'etcd.v3.2.0', replaces: 'etcd.v3.1.0' }] },
  ],
  bundles: [bundle('app', '1.0.0'), bundle('app', '2.0.0', [NEEDS_ETCD]), bundle('etcd', '3.1.0'), bundle('etcd', '3.2.0')],
  deprecations: [],
  others: [],
};

// One package's partition, as the content cache gives it.
function partitioned(): CatalogSource {
  const src = catalogSource(content);
  const only = (pkg: string): DeclarativeConfig => ({
    ...content,
    packages: content.packages.filter((p) => p.name === pkg),
    channels: content.channels.filter((c) => c.package === pkg),
    bundles: content.bundles.filter((b) => b.package === pkg),
  });
  return { ...src, content: { ...src.content, getPackage: (_ref, pkg) => Promise.resolve(only(pkg)) } };
}

function installedEtcd(version: string): KubeObject {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name: 'etcd' },
    spec: { namespace: 'etcd', serviceAccount: { name: 'sa' }, source: { sourceType: 'Catalog', catalog: { packageName: 'etcd' } } },
    status: { install: { bundle: { name: `etcd.v${version}`, version } } },
  };
}

function ports(extensions: KubeObject[], events: string[]): ResolvePorts {
  const dependencies: DependencyPorts = { extensions: { list: () => extensions }, serves: () => Promise.resolve(false) };
  return { catalogs: partitioned(), features: { bundleReleaseSupport: false }, events: recordingEvents(events), dependencies };
}

const asking = (version?: string): ExtensionState =>
  extensionState({ spec: { source: { sourceType: 'Catalog', catalog: { packageName: 'app', ...(version === undefined ? {} : { version }) } } } });

describe('resolve step with dependencies', () => {
  it('takes the highest bundle when an installed extension meets its requirement', async () => {
    const s = asking();
    expect(await resolveStep(ports([installedEtcd('3.2.0')], [])).run(s)).toBeUndefined();
    expect(s.target?.bundle.name).toBe('app.v2.0.0');
  });

  it('falls back to a lower bundle and says which it passed over and why', async () => {
    const events: string[] = [];
    const s = asking();
    expect(await resolveStep(ports([installedEtcd('3.1.0')], events)).run(s)).toBeUndefined();
    expect(s.target?.bundle.name).toBe('app.v1.0.0');
    expect(events).toEqual([
      'Normal BundlePassedOver: chose bundle app.v1.0.0; passed over:\napp.v2.0.0: bundle "app.v2.0.0" has an unmet dependency: app 2 needs etcd 3.2 or later (olm.constraint: package "etcd" in range ">=3.2.0"), met by no installed ClusterExtension and no API the cluster serves',
    ]);
  });

  it('refuses when the version asked for has an unmet requirement, naming what the catalogs offer', async () => {
    const s = asking('2.0.0');
    await expect(resolveStep(ports([installedEtcd('3.1.0')], [])).run(s)).rejects.toThrow(
      'bundle "app.v2.0.0" has an unmet dependency: app 2 needs etcd 3.2 or later (olm.constraint: package "etcd" in range ">=3.2.0"), met by no installed ClusterExtension and no API the cluster serves; the selected catalogs offer it: package "etcd" (bundle "etcd.v3.2.0", catalog "c"); install one with a ClusterExtension',
    );
    expect(s.ce.status?.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({ status: 'True', reason: 'Retrying' });
    expect(s.target).toBeUndefined();
  });

  it('holds an upgrade that would leave an installed extension without its requirement, naming it', async () => {
    // app 2.0.0 is installed and needs etcd >= 3.2.0; etcd is installed at 3.2.0 and its
    // extension asks for 3.1.0 (a SelfCertified downgrade): that would break app.
    const app: KubeObject = {
      ...installedEtcd('3.2.0'),
      metadata: { name: 'app' },
      spec: { namespace: 'app', serviceAccount: { name: 'sa' }, source: { sourceType: 'Catalog', catalog: { packageName: 'app' } } },
      status: { install: { bundle: { name: 'app.v2.0.0', version: '2.0.0' } } },
    };
    const events: string[] = [];
    const etcdBundle = { package: 'etcd', name: 'etcd.v3.2.0', version: '3.2.0', image: 'registry.example/etcd:v3.2.0' };
    const release = {
      extension: 'etcd',
      extensionUID: 'u',
      revision: 1,
      status: 'deployed' as const,
      bundle: etcdBundle,
      manifest: Manifest.ofObjects([]),
      properties: [],
      description: 'Install complete',
    };
    const s = extensionState({
      name: 'etcd',
      spec: { source: { sourceType: 'Catalog', catalog: { packageName: 'etcd', version: '3.1.0', upgradeConstraintPolicy: 'SelfCertified' } } },
      installed: release,
      history: [release],
    });
    expect(await resolveStep(ports([app, installedEtcd('3.2.0')], events)).run(s)).toBeUndefined();
    expect(s.target).toEqual({ bundle: etcdBundle });
    const held =
      'upgrade to bundle "etcd.v3.1.0" held: it would leave ClusterExtension "app" with an unmet dependency: app 2 needs etcd 3.2 or later (olm.constraint: package "etcd" in range ">=3.2.0")';
    expect(s.resolutionError?.message).toBe(held);
    expect(events).toEqual([`Warning ResolutionFailed: ${held}`]);
    // Once the dependent is gone, the same move goes ahead.
    const again = extensionState({ name: 'etcd', spec: s.ce.spec, installed: release, history: [release] });
    expect(await resolveStep(ports([installedEtcd('3.2.0')], [])).run(again)).toBeUndefined();
    expect(again.target?.bundle.name).toBe('etcd.v3.1.0');
  });

  it('sets olmv1_extension_dependency_unmet: 1 while refused for a dependency, 0 once resolved', async () => {
    const samples: [string, boolean][] = [];
    const gauge = { set: (name: string, unmet: boolean) => void samples.push([name, unmet]) };
    const withGauge = (extensions: KubeObject[]): ResolvePorts => {
      const p = ports(extensions, []);
      return { ...p, ...(p.dependencies === undefined ? {} : { dependencies: { ...p.dependencies, gauge } }) };
    };
    await expect(resolveStep(withGauge([installedEtcd('3.1.0')])).run(asking('2.0.0'))).rejects.toThrow(/unmet dependency/);
    expect(await resolveStep(withGauge([installedEtcd('3.2.0')])).run(asking('2.0.0'))).toBeUndefined();
    expect(samples).toEqual([
      ['ext', true],
      ['ext', false],
    ]);
  });

  it("keeps upstream's refusal when no dependency ports are given", async () => {
    const { dependencies: _none, ...upstream } = ports([], []);
    await expect(resolveStep(upstream).run(asking('2.0.0'))).rejects.toThrow(
      'validating bundle "app.v2.0.0": bundle "app.v2.0.0" has a dependency declared via property "olm.constraint" which is currently not supported',
    );
  });
});
