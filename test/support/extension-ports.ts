/**
 * Fakes of the ports the ClusterExtension steps use (pkg/operator-controller/clusterextension,
 * assembled in cmd/operator-controller/reconcilers.ts), for step and reconciler tests without a
 * cluster: catalogs serving one package, release records in memory, drift watches and an
 * Events recorder that record what they are told, and generated bundles.
 */
import { parseBundle, type RegistryV1Bundle } from '../../pkg/operator-controller/bundle/index.ts';
import type { CatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import type { CatalogSource } from '../../pkg/operator-controller/dependencyview/index.ts';
import { createReleaseApplier, type Applier } from '../../pkg/operator-controller/applier/index.ts';
import type { DriftTracker } from '../../pkg/operator-controller/drift/index.ts';
import { deployedRelease, type Release, type ReleaseStore, type ReleaseSummary } from '../../pkg/operator-controller/release/index.ts';
import type { DeclarativeConfig } from '../../pkg/shared/fbc/index.ts';
import type { EventRecorder, KubeClient, RequestOptions, ScopedClientFactory } from '../../pkg/shared/kube/index.ts';
import { bundleFiles } from './bundle-gen.ts';
import { clusterCatalogObject, type CatalogFixture } from './cluster-catalogs.ts';

/** The image of bundle `<pkg>.v<version>` in the catalogs below. */
export const bundleImage = (pkg: string, version: string): string => `registry.example/${pkg}-bundle:v${version}`;

/** Package `pkg` with bundles `<pkg>.v<version>` chained by `replaces` in channel `stable`. */
export function chainedPackage(pkg: string, versions: readonly string[]): DeclarativeConfig {
  const name = (v: string): string => `${pkg}.v${v}`;
  return {
    packages: [{ schema: 'olm.package', name: pkg, defaultChannel: 'stable' }],
    channels: [
      {
        schema: 'olm.channel',
        name: 'stable',
        package: pkg,
        entries: versions.map((v, i) => ({ name: name(v), ...(i === 0 ? {} : { replaces: name(versions[i - 1] ?? '') }) })),
      },
    ],
    bundles: versions.map((v) => ({
      schema: 'olm.bundle',
      name: name(v),
      package: pkg,
      image: bundleImage(pkg, v),
      properties: [{ type: 'olm.package', value: { packageName: pkg, version: v } }],
    })),
    deprecations: [],
    others: [],
  } as unknown as DeclarativeConfig;
}

/** One catalog of `parts`' packages, channels and bundles, in that order. */
export function mergedConfig(parts: readonly DeclarativeConfig[]): DeclarativeConfig {
  return {
    packages: parts.flatMap((p) => p.packages),
    channels: parts.flatMap((p) => p.channels),
    bundles: parts.flatMap((p) => p.bundles),
    deprecations: parts.flatMap((p) => p.deprecations),
    others: parts.flatMap((p) => p.others),
  };
}

/**
 * Catalogs `catalogs` (default one serving catalog `c`), each serving `content` (or what it
 * returns at the time of the request) for the package it holds, nothing for others.
 */
export function catalogSource(
  content: DeclarativeConfig | (() => DeclarativeConfig),
  catalogs: Record<string, CatalogFixture> = { c: {} },
): CatalogSource {
  const now = typeof content === 'function' ? content : () => content;
  const cache = {
    getPackage: (_ref, packageName) => {
      const c = now();
      return Promise.resolve(c.packages.some((p) => p.name === packageName) ? c : { ...c, packages: [], channels: [], bundles: [] });
    },
    packageNames: () => Promise.resolve(new Set(now().packages.map((p) => p.name))),
    forget: () => undefined,
  } satisfies CatalogContentCache;
  const objects = Object.entries(catalogs).map(([name, fixture]) => clusterCatalogObject(name, fixture));
  return { catalogs: { list: () => objects }, content: cache };
}

/** A deep copy of `r` as a store keeps it, its manifest (an immutable value, not cloneable) shared. */
export function copiedRelease(r: Release): Release {
  const { manifest, ...rest } = r;
  return { ...structuredClone(rest), manifest };
}

/** Release records in memory, newest first, as the Secret-backed store keeps them. */
export class MemoryReleaseStore implements ReleaseStore {
  readonly records: Release[] = [];
  /** Thrown by `history` when set. */
  failure: Error | undefined;

  history(extension: string): Promise<Release[]> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const own = this.records.filter((r) => r.extension === extension);
    return Promise.resolve(own.map(copiedRelease).sort((a, b) => b.revision - a.revision));
  }
  async deployed(extension: string): Promise<ReleaseSummary | undefined> {
    const found = deployedRelease(await this.history(extension));
    if (found === undefined) return undefined;
    const { manifest: _objects, ...summary } = found;
    return summary;
  }
  list(): Promise<string[]> {
    return Promise.resolve([...new Set(this.records.map((r) => r.extension))]);
  }
  create(r: Release): Promise<void> {
    this.records.push(copiedRelease(r));
    return Promise.resolve();
  }
  update(r: Release): Promise<void> {
    const i = this.records.findIndex((x) => x.extension === r.extension && x.revision === r.revision);
    this.records[i] = copiedRelease(r);
    return Promise.resolve();
  }
  async deleteAll(extension: string, _signal?: AbortSignal, after?: Promise<unknown>): Promise<void> {
    await after;
    this.records.splice(0, this.records.length, ...this.records.filter((r) => r.extension !== extension));
  }
}

/** Drift watches that record what they are told (`track <ext> <n> objects`, `stop <ext>`). */
export function recordingDrift(calls: string[]): DriftTracker {
  return {
    track: (release) => Promise.resolve(void calls.push(`track ${release.extension} ${release.objects.length} objects`)),
    stop: (extension) => void calls.push(`stop ${extension}`),
    expectDeletes: () => undefined,
    ownedUid: () => undefined,
    revisionControlled: () => false,
    noteApplied: () => undefined,
    inSync: () => false,
    takeDrifted: () => [],
    listed: async () => undefined,
    // Nothing is watched here, so nothing has been listed.
    health: () => ({ observed: false }),
  };
}

/**
 * The release-record Applier the reconciler composes, over `parts`: clients acting as the
 * installer, release records (default: in memory) and drift watches (default: recordingDrift's).
 */
export function releaseApplier(parts: {
  scoped: Pick<ScopedClientFactory, 'forServiceAccount'>;
  releases?: ReleaseStore;
  drift?: Parameters<typeof createReleaseApplier>[0]['drift'];
}): Applier {
  return createReleaseApplier({
    scoped: parts.scoped,
    releases: parts.releases ?? new MemoryReleaseStore(),
    drift: parts.drift ?? recordingDrift([]),
  });
}

/** An Events recorder that records `<type> <reason>: <note>`. */
export function recordingEvents(events: string[]): EventRecorder {
  return { event: (_regarding, type, reason, _action, note) => void events.push(`${type} ${reason}: ${note}`) };
}

/** Generated bundle `<pkg>.v<version>` (bundle-gen.ts: a Deployment, a CRD, cluster permissions), parsed. */
export function generatedBundle(pkg: string, version: string): RegistryV1Bundle {
  const files = new Map([...bundleFiles({ pkg, version })].map(([path, text]) => [path, new TextEncoder().encode(text)] as const));
  const parsed = parseBundle(files);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

/**
 * `client` (e.g. fakeCluster's) answering SelfSubjectRulesReviews: every permission (`all`),
 * none, or the error given; `reviews` records each review's namespace.
 */
export function withRulesReviews(client: KubeClient, granted: 'all' | 'none' | Error, reviews: string[] = []): KubeClient {
  const ALL = { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] };
  const request = <T>(_method: string, _path: string, o?: RequestOptions): Promise<T> => {
    reviews.push((o?.body as { spec: { namespace: string } }).spec.namespace);
    if (granted instanceof Error) return Promise.reject(granted);
    return Promise.resolve({ status: granted === 'all' ? ALL : { resourceRules: [], nonResourceRules: [] } } as T);
  };
  return { ...client, transport: { ...client.transport, request } };
}
