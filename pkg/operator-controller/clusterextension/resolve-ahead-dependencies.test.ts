// ResolveAhead with dependency checking (decision 0104): an upgrade the reconcile would pass
// over (an unmet requirement, a minKubeVersion above the cluster's) or hold back (an installed
// extension needs the installed version) is not announced as RollingOut; one whose requirement
// is met is.
import pino from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { catalogSource, chainedPackage } from '../../../test/support/extension-ports.ts';
import type { Bundle, DeclarativeConfig } from '../../shared/fbc/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import type { DependencyPorts } from '../dependencyview/index.ts';
import { ResolveAhead } from './resolve-ahead.ts';

const NEEDS_ETCD = {
  type: 'olm.constraint',
  value: { failureMessage: 'p 1.0.1 needs etcd', package: { packageName: 'etcd', versionRange: '>=3.2.0' } },
};
const NEEDS_NEW_KUBE = { type: 'olm.csv.metadata', value: { minKubeVersion: '1.99.0' } };
const NEEDS_OLD_P = { type: 'olm.constraint', value: { failureMessage: 'q needs p 1.0.0', package: { packageName: 'p', versionRange: '<1.0.1' } } };

/** Packages p (1.0.0 -> 1.0.1, 1.0.1 with `extra`), etcd 3.2.0 and q 1.0.0 (with `q`). */
function content(extra: Bundle['properties'], q: Bundle['properties'] = []): DeclarativeConfig {
  const parts = [chainedPackage('p', ['1.0.0', '1.0.1']), chainedPackage('etcd', ['3.2.0']), chainedPackage('q', ['1.0.0'])];
  const bundles = parts.flatMap((c) => c.bundles);
  for (const b of bundles) {
    if (b.name === 'p.v1.0.1') b.properties.push(...extra);
    if (b.name === 'q.v1.0.0') b.properties.push(...q);
  }
  return { ...chainedPackage('p', []), packages: parts.flatMap((c) => c.packages), channels: parts.flatMap((c) => c.channels), bundles };
}

function extension(name: string, pkg: string, version: string): KubeObject {
  const condition = { status: 'True', reason: 'Succeeded', message: 'm', observedGeneration: 1, lastTransitionTime: '2026-11-24T00:00:00Z' };
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name, generation: 1, resourceVersion: '10' },
    spec: { namespace: 'ns', serviceAccount: { name: 'sa' }, source: { sourceType: 'Catalog', catalog: { packageName: pkg } } },
    status: {
      conditions: [
        { type: 'Installed', ...condition },
        { type: 'Progressing', ...condition },
      ],
      install: { bundle: { name: `${pkg}.v${version}`, version } },
    },
  };
}

async function ahead(c: DeclarativeConfig, others: KubeObject[]): Promise<{ writes: string[]; outcomes: Record<string, number> }> {
  const all = [extension('a', 'p', '1.0.0'), ...others];
  const registry = new Registry();
  const writes: string[] = [];
  const dependencies: DependencyPorts = {
    extensions: { list: () => all },
    serves: () => Promise.resolve(false),
    serverVersion: () => Promise.resolve('v1.31.0'),
  };
  const a = new ResolveAhead({
    extensions: { get: (k) => all.find((o) => o.metadata.name === k) },
    catalogs: catalogSource(c),
    features: { bundleReleaseSupport: false },
    dependencies,
    client: { updateStatus: async (obj: KubeObject) => (writes.push(obj.metadata.name ?? ''), obj as never) },
    beside: (_key, fn) => fn(),
    log: pino({ level: 'silent' }),
    registry,
    signal: new AbortController().signal,
  });
  a.offer('a');
  await a.settled();
  const m = await registry.getSingleMetric('operator_controller_resolve_ahead_total')?.get();
  return { writes, outcomes: Object.fromEntries((m?.values ?? []).map((v) => [String(v.labels['outcome']), v.value])) };
}

describe('ResolveAhead with dependencies', () => {
  it('does not announce a bundle whose requirement nothing installed meets', async () => {
    expect(await ahead(content([NEEDS_ETCD]), [])).toEqual({ writes: [], outcomes: { unchanged: 1 } });
  });

  it('announces it once an installed extension meets the requirement', async () => {
    expect(await ahead(content([NEEDS_ETCD]), [extension('etcd', 'etcd', '3.2.0')])).toEqual({ writes: ['a'], outcomes: { reported: 1 } });
  });

  it('does not announce a bundle whose minKubeVersion is above the cluster version', async () => {
    expect(await ahead(content([NEEDS_NEW_KUBE]), [])).toEqual({ writes: [], outcomes: { unchanged: 1 } });
  });

  it('does not announce an upgrade held for an installed extension that needs the installed version', async () => {
    expect(await ahead(content([], [NEEDS_OLD_P]), [extension('q', 'q', '1.0.0')])).toEqual({ writes: [], outcomes: { held: 1 } });
  });
});
