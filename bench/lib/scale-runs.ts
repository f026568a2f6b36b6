/**
 * The measured procedures of the many-extensions benchmark (bench/benchmarks/scale.ts). Times
 * come from watches the bench holds open as the admin (informers over ClusterExtensions,
 * ClusterCatalogs and operator-controller's release index Secrets), not from polling, so
 * observing adds one watch event per change instead of a list every few hundred ms, and each
 * extension's moment is stamped when its event arrives:
 *
 * - install runs: many ClusterExtensions in one kubectl apply, until every named one is
 *   Installed=True as its bundle (others applied alongside, e.g. failing ones, are not waited for);
 * - a catalog update: the ClusterCatalog's image reference is patched, then per extension when
 *   its new bundle was first resolved (the earlier of status naming it as rolling out, written
 *   ahead of the reconcile by decision 0100, and the first release revision recorded for it) and
 *   Installed=True as the new bundle;
 * - steady state: operator-controller's API requests (audit log) and CPU time over a window.
 */
import { writeFile } from 'node:fs/promises';
import { dump } from 'js-yaml';
import pino from 'pino';
import { Informer, clientListWatch, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { type AuditEvent, type AuditLog, byOperatorController } from './audit-log.ts';
import { isInstalledAs } from './extension-runs.ts';
import type { OlmStack } from './olm-stack.ts';
import { findProcesses, procCpuSeconds } from './proc.ts';
import { sleep } from './http-load.ts';

const CE = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension' };
const CATALOG = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog' };
/** Labels of operator-controller's release index Secrets (pkg/operator-controller/release naming.ts). */
const INDEX_SELECTOR = 'owner=operator-controller,type=index';
const BUNDLE_NAME_LABEL = 'olm.operatorframework.io/bundle-name';

/** The bench's informers (started by {@link watchCluster}). */
export interface ClusterWatch {
  extensions: Informer<KubeObject>;
  catalogs: Informer<KubeObject>;
  /** Release index Secrets in the system namespace. */
  releases: Informer<KubeObject>;
  stop(): void;
}

/** Starts the informers and waits until they have listed. */
export async function watchCluster(stack: OlmStack, systemNamespace: string): Promise<ClusterWatch> {
  const log = pino({ level: 'silent' });
  const client = stack.kube.client;
  const stop = new AbortController();
  const informers = {
    extensions: new Informer({ name: 'bench-extensions', source: clientListWatch(client, CE), log }),
    catalogs: new Informer({ name: 'bench-catalogs', source: clientListWatch(client, CATALOG), log }),
    releases: new Informer({
      name: 'bench-releases',
      source: clientListWatch(client, { apiVersion: 'v1', kind: 'Secret' }, { namespace: systemNamespace, labelSelector: INDEX_SELECTOR }),
      log,
    }),
  };
  for (const i of Object.values(informers)) void i.run(stop.signal);
  await Promise.all(Object.values(informers).map((i) => i.waitForSync(stop.signal)));
  return { ...informers, stop: () => stop.abort() };
}

/** How often a long wait reports its progress. */
const PROGRESS_MS = 120_000;

/** When each key first met a condition (performance.now() ms), from an informer's events. */
export interface Stamps {
  times: Map<string, number>;
  /**
   * Resolves once every one of `keys` has a time; rejects after `timeoutMs`, naming some that
   * have none and the informer's object of the first. With `progress`, reports how many have a
   * time every PROGRESS_MS meanwhile (a wait at 10,000 takes an hour; a run stopped early keeps
   * its rate in the log).
   */
  all(keys: readonly string[], timeoutMs: number, what: string, progress?: (line: string) => void): Promise<void>;
  stop(): void;
}

/**
 * Stamps `keyOf(obj)` the first time an event (or the current cache) shows an object for which
 * `matches` holds; objects without a key are ignored.
 */
export function stampFirst(
  informer: Informer<KubeObject>,
  keyOf: (o: Readonly<KubeObject>) => string | undefined,
  matches: (o: Readonly<KubeObject>) => boolean,
): Stamps {
  const times = new Map<string, number>();
  let changed = (): void => undefined;
  const off = informer.addHandler((type, obj) => {
    const key = keyOf(obj);
    if (type === 'delete' || key === undefined || times.has(key) || !matches(obj)) return;
    times.set(key, performance.now());
    changed();
  });
  return {
    times,
    all: (keys, timeoutMs, what, progress) =>
      new Promise<void>((resolve, reject) => {
        const start = performance.now();
        const ticker =
          progress === undefined
            ? undefined
            : setInterval(() => {
                const done = keys.filter((k) => times.has(k)).length;
                progress(`${what}: ${done} of ${keys.length} after ${Math.round((performance.now() - start) / 1000)} s`);
              }, PROGRESS_MS);
        const timer = setTimeout(() => {
          clearInterval(ticker);
          const missing = keys.filter((k) => !times.has(k));
          const example = informer.list().find((o) => keyOf(o) === missing[0]);
          const state = JSON.stringify(example?.status ?? example?.metadata.labels ?? null);
          reject(
            new Error(
              `timed out after ${timeoutMs / 1000} s waiting for ${what}: ${missing.length} missing, e.g. ${missing.slice(0, 3).join(', ')}; ${missing[0]}: ${state}`,
            ),
          );
        }, timeoutMs);
        changed = () => {
          if (keys.some((k) => !times.has(k))) return;
          clearTimeout(timer);
          clearInterval(ticker);
          resolve();
        };
        changed();
      }),
    stop: () => {
      off();
    },
  };
}

const nameOf = (o: Readonly<KubeObject>): string | undefined => o.metadata.name;

/** Outcome of {@link installRun}. */
export interface InstallRun {
  /** kubectl apply (or the first create) started -> the last of the awaited extensions Installed=True. */
  allMs: number;
  /** Per awaited extension: kubectl apply (or the first create) started -> Installed=True as its bundle. */
  eachMs: number[];
  /** The kubectl call, or the creates. */
  kubectlMs: number;
}

/**
 * Applies `manifests` in one kubectl call (with `byClient`, creates them one by one with the
 * stack's client, as the floors apply theirs: no process start in the time) and waits until every
 * extension named in `bundles` is Installed=True as `bundles[name]`.
 */
export async function installRun(
  stack: OlmStack,
  watch: ClusterWatch,
  opts: {
    manifests: readonly KubeObject[];
    bundles: ReadonlyMap<string, string>;
    file: string;
    timeoutMs: number;
    progress?: (line: string) => void;
    byClient?: boolean;
  },
): Promise<InstallRun> {
  await writeFile(opts.file, opts.manifests.map((m) => `---\n${dump(m)}`).join(''));
  const installed = stampFirst(watch.extensions, nameOf, (o) => isInstalledAs(o, opts.bundles.get(o.metadata.name ?? '') ?? ''));
  try {
    const start = performance.now();
    if (opts.byClient === true) for (const m of opts.manifests) await stack.kube.client.create(m);
    else await stack.kubectl(['apply', '-f', opts.file]);
    const kubectlMs = performance.now() - start;
    await installed.all([...opts.bundles.keys()], opts.timeoutMs, 'extensions installed', opts.progress);
    const eachMs = [...opts.bundles.keys()].map((n) => (installed.times.get(n) ?? Number.NaN) - start);
    return { allMs: Math.max(...eachMs), eachMs, kubectlMs };
  } finally {
    installed.stop();
  }
}

/** Deletes every ClusterExtension and waits until they are gone (uninstalled, finalizers done); returns the time taken. */
export async function deleteAllExtensions(stack: OlmStack, watch: ClusterWatch, timeoutMs: number): Promise<number> {
  const start = performance.now();
  await stack.kubectl(['delete', 'clusterextensions', '--all', '--wait=false']);
  const deadline = start + timeoutMs;
  while (watch.extensions.list().length > 0) {
    if (performance.now() > deadline)
      throw new Error(`${watch.extensions.list().length} ClusterExtensions still present after ${timeoutMs / 1000} s`);
    await sleep(100);
  }
  return performance.now() - start;
}

/** Outcome of {@link catalogUpdate}; times from the patch of the ClusterCatalog, in ms. */
export interface CatalogUpdate {
  /** The ClusterCatalog's status names the new digest and it is Serving. */
  servedMs: number;
  /** Per extension: the first release revision for its new bundle recorded. */
  recordedMs: number[];
  /** Per extension: status first said the new bundle is rolling out (decision 0100); NaN when never seen. */
  reportedMs: number[];
  /** Per extension: re-resolved, the earlier of the two above. */
  resolvedMs: number[];
  /** Per extension: Installed=True as its new bundle. */
  upgradedMs: number[];
}

function servesDigest(o: Readonly<KubeObject>, digest: string): boolean {
  const status = (o.status ?? {}) as { conditions?: Array<{ type: string; status: string }>; resolvedSource?: { image?: { ref?: string } } };
  return (
    status.conditions?.some((c) => c.type === 'Serving' && c.status === 'True') === true && (status.resolvedSource?.image?.ref ?? '').endsWith(digest)
  );
}

/** Progressing says `bundle` is rolling out (operator-controller's report ahead of the upgrade, decision 0100). */
function reportsRollingOut(o: Readonly<KubeObject>, bundle: string): boolean {
  if (bundle === '') return false;
  const conditions = ((o.status ?? {}) as { conditions?: Array<{ type: string; reason?: string; message?: string }> }).conditions;
  const p = conditions?.find((c) => c.type === 'Progressing');
  return p?.reason === 'RollingOut' && (p.message ?? '').includes(JSON.stringify(bundle));
}

/**
 * Points ClusterCatalog `catalog` at `ref` (its image digest `digest`) and waits until every
 * extension in `targets` is Installed=True as `targets[name]`.
 */
export async function catalogUpdate(
  stack: OlmStack,
  watch: ClusterWatch,
  opts: {
    catalog: string;
    ref: string;
    digest: string;
    targets: ReadonlyMap<string, string>;
    timeoutMs: number;
    progress?: (line: string) => void;
  },
): Promise<CatalogUpdate> {
  const names = [...opts.targets.keys()];
  const served = stampFirst(watch.catalogs, nameOf, (o) => o.metadata.name === opts.catalog && servesDigest(o, opts.digest));
  const recorded = stampFirst(
    watch.releases,
    (o) => o.metadata.labels?.['name'],
    (o) => {
      const ext = o.metadata.labels?.['name'] ?? '';
      return o.metadata.labels?.[BUNDLE_NAME_LABEL] === opts.targets.get(ext);
    },
  );
  const reported = stampFirst(watch.extensions, nameOf, (o) => reportsRollingOut(o, opts.targets.get(o.metadata.name ?? '') ?? ''));
  const upgraded = stampFirst(watch.extensions, nameOf, (o) => isInstalledAs(o, opts.targets.get(o.metadata.name ?? '') ?? ''));
  try {
    const start = performance.now();
    await stack.kube.client.patch({ ...CATALOG, name: opts.catalog }, { spec: { source: { image: { ref: opts.ref } } } }, 'merge');
    await served.all([opts.catalog], opts.timeoutMs, `ClusterCatalog ${opts.catalog} serving ${opts.digest}`);
    await upgraded.all(names, opts.timeoutMs, 'extensions upgraded', opts.progress);
    await recorded.all(names, 1_000, `release revisions of ${names.length} extensions`);
    const since = (t: number | undefined): number => (t ?? Number.NaN) - start;
    const recordedMs = names.map((n) => since(recorded.times.get(n)));
    const reportedMs = names.map((n) => since(reported.times.get(n)));
    return {
      servedMs: since(served.times.get(opts.catalog)),
      recordedMs,
      reportedMs,
      resolvedMs: recordedMs.map((r, i) => {
        const ahead = reportedMs[i] ?? Number.NaN;
        return Number.isNaN(ahead) ? r : Math.min(r, ahead);
      }),
      upgradedMs: names.map((n) => since(upgraded.times.get(n))),
    };
  } finally {
    served.stop();
    recorded.stop();
    reported.stop();
    upgraded.stop();
  }
}

/** Outcome of {@link steadyState}. */
export interface SteadyState {
  seconds: number;
  /** operator-controller's requests received by the API server in the window. */
  requests: AuditEvent[];
  /** User + system CPU time operator-controller used in the window. */
  cpuSeconds: number;
}

/** Measures operator-controller (`pid`) over `windowMs` without touching it. */
export async function steadyState(pid: number, audit: AuditLog, windowMs: number): Promise<SteadyState> {
  const offset = await audit.offset();
  const cpu0 = procCpuSeconds(pid);
  const t0 = Date.now();
  await sleep(windowMs);
  const cpu1 = procCpuSeconds(pid);
  const t1 = Date.now();
  if (cpu0 === undefined || cpu1 === undefined) throw new Error(`operator-controller (pid ${pid}) is gone`);
  // The API server writes an event when it receives the request; a short wait lets the last ones land.
  await sleep(500);
  const requests = (await audit.readSince(offset)).filter((e) => {
    const at = Date.parse(e.requestReceivedTimestamp);
    return at >= t0 && at < t1 && byOperatorController(e);
  });
  return { seconds: (t1 - t0) / 1000, requests, cpuSeconds: cpu1 - cpu0 };
}

/** The processes whose CPU time the benchmark splits a phase into. */
export type ProcessGroups = Record<string, readonly number[]>;

/** kube-apiserver and etcd of the stack's control plane (found by their temp directory on the command line). */
export function controlPlaneProcesses(stack: OlmStack): ProcessGroups {
  const ours = (name: string) => (cmd: string) => cmd.includes(stack.cp.dir) && (cmd.split(' ')[0] ?? '').endsWith(`/${name}`);
  return { 'kube-apiserver': findProcesses(ours('kube-apiserver')), etcd: findProcesses(ours('etcd')) };
}

/** Starts counting CPU time per group; the returned function gives the seconds used since, per group. */
export function cpuMeter(groups: ProcessGroups): () => Record<string, number> {
  const total = (pids: readonly number[]): number => pids.reduce((n, pid) => n + (procCpuSeconds(pid) ?? 0), 0);
  const start = Object.fromEntries(Object.entries(groups).map(([k, pids]) => [k, total(pids)]));
  return () => Object.fromEntries(Object.entries(groups).map(([k, pids]) => [k, total(pids) - (start[k] ?? 0)]));
}

/** Runs `fn` over `items`, at most `limit` at a time. */
export async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

type Conditions = Array<{ type: string; status: string; reason: string; message: string }>;

/**
 * The failing extensions' conditions once they report a failure (Progressing Retrying), waited
 * for after the healthy ones are installed; throws when one was installed after all.
 */
export async function faultStates(watch: ClusterWatch, names: readonly string[]): Promise<Record<string, string>> {
  const conditionsOf = (name: string): Conditions => ((watch.extensions.get(name)?.status ?? {}) as { conditions?: Conditions }).conditions ?? [];
  const failing = stampFirst(
    watch.extensions,
    (o) => o.metadata.name,
    (o) => {
      const conditions = ((o.status ?? {}) as { conditions?: Conditions }).conditions ?? [];
      return conditions.some((c) => c.type === 'Progressing' && c.reason === 'Retrying');
    },
  );
  try {
    await failing.all(names, 120_000, 'the failing extensions to report their failure');
  } finally {
    failing.stop();
  }
  const out: Record<string, string> = {};
  for (const name of names) {
    const conditions = conditionsOf(name);
    const installed = conditions.find((c) => c.type === 'Installed');
    if (installed?.status === 'True') throw new Error(`failing extension ${name} was installed: the fault did not take effect`);
    const progressing = conditions.find((c) => c.type === 'Progressing');
    out[name] =
      `Installed=${installed?.status ?? '?'}; Progressing=${progressing?.status ?? '?'}/${progressing?.reason ?? '?'}: ${(progressing?.message ?? '').slice(0, 200)}`;
  }
  return out;
}
