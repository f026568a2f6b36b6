/**
 * The measured procedure of the uninstall benchmark (bench/benchmarks/uninstall.ts): some
 * ClusterExtensions installed, then deleted (all DELETEs sent at once), timed until the
 * ClusterExtensions are gone (their finalizers done) and until every object of their releases
 * that the controller removes is gone too, whoever deletes it: ours deletes them under its
 * finalizer, upstream's leaves them to kube-controller-manager's garbage collector, which
 * deletes them once their owner, the ClusterExtension, is gone. CustomResourceDefinitions are
 * left out: ours keeps them, and the custom resources with them.
 *
 * The objects are followed by informers, one per kind the releases hold, on the owner label
 * both controllers put on what they apply (`olm.operatorframework.io/owner-kind`), so a
 * deletion is seen when the API server announces it, without polling.
 */
import pino from 'pino';
import { OWNER_KIND_LABEL, OWNER_NAME_LABEL } from '../../pkg/shared/api/index.ts';
import { Informer, type KubeObject, type TypeRef, clientListWatch } from '../../pkg/shared/kube/index.ts';
import { type AuditEvent, type AuditLog, byOperatorController } from './audit-log.ts';
import { sleep } from './http-load.ts';
import { type OlmStack, scrapeStepMetrics, stepDelta } from './olm-stack.ts';
import { type ClusterWatch, type InstallRun, type ProcessGroups, cpuMeter, installRun } from './scale-runs.ts';

const KUBE_SYSTEM = 'system:serviceaccount:kube-system:';
const CE = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension' } as const;

/** Informers over the labelled objects of some kinds. */
export interface ObjectWatch {
  /** `Kind ns/name` of every watched object owned by one of `extensions`. */
  ownedBy(extensions: ReadonlySet<string>): string[];
  /** Calls `fn` after every event. */
  onChange(fn: () => void): () => void;
  stop(): void;
}

/** The kinds (apiVersion and kind) of `objects`, CustomResourceDefinitions left out. */
export function releaseKinds(objects: readonly KubeObject[]): TypeRef[] {
  const kinds = new Map<string, TypeRef>();
  for (const o of objects)
    if (o.kind !== 'CustomResourceDefinition') kinds.set(`${o.apiVersion}/${o.kind}`, { apiVersion: o.apiVersion, kind: o.kind });
  return [...kinds.values()];
}

/** Starts an informer per kind over the objects with a ClusterExtension owner label; resolves once all have listed. */
export async function watchOwnedObjects(stack: OlmStack, kinds: readonly TypeRef[]): Promise<ObjectWatch> {
  const log = pino({ level: 'silent' });
  const stop = new AbortController();
  const selector = `${OWNER_KIND_LABEL}=ClusterExtension`;
  const informers = kinds.map(
    (type) => new Informer({ name: `bench-${type.kind}`, source: clientListWatch(stack.kube.client, type, { labelSelector: selector }), log }),
  );
  for (const i of informers) void i.run(stop.signal);
  await Promise.all(informers.map((i) => i.waitForSync(stop.signal)));
  return {
    ownedBy: (extensions) =>
      informers.flatMap((i) =>
        i
          .list()
          .filter((o) => extensions.has(o.metadata.labels?.[OWNER_NAME_LABEL] ?? ''))
          .map((o) => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`),
      ),
    onChange: (fn) => {
      const offs = informers.map((i) => i.addHandler(() => fn()));
      return () => {
        for (const off of offs) off();
      };
    },
    stop: () => stop.abort(),
  };
}

/** One timed uninstall; times in ms from the first DELETE. */
export interface UninstallRun {
  /** The extensions installed before (their own timing). */
  install: InstallRun;
  /** Objects of theirs present when the delete was issued (CRDs not counted). */
  objects: number;
  /** Every ClusterExtension gone from the API server. */
  extensionsGoneMs: number;
  /** Every one of those objects gone too. */
  objectsGoneMs: number;
  /** The later of the two: the uninstall done. */
  doneMs: number;
  /** Our operator-controller's requests from the delete until done (with `audit`). */
  requests: AuditEvent[];
  /** Time in our finalizers step (its reconciles' sum, all extensions; with `healthUrl`), ms. */
  finalizersMs: number;
  /** CPU seconds of each process group from the delete until done (with `cpu`; empty without). */
  cpu: Record<string, number>;
}

/**
 * Installs `manifests` (one kubectl apply; waits until each is Installed=True as `bundles[name]`),
 * lets the controller settle (`settle`), then deletes them all (a DELETE each, all at once) and times their removal; see the
 * module comment. Throws when the objects or extensions are still there after `timeoutMs`.
 */
export async function installThenUninstall(
  stack: OlmStack,
  watch: ClusterWatch,
  objects: ObjectWatch,
  opts: {
    manifests: readonly KubeObject[];
    bundles: ReadonlyMap<string, string>;
    file: string;
    timeoutMs: number;
    settle: () => Promise<void>;
    /** Create the extensions with the stack's client rather than one kubectl call (installRun). */
    byClient?: boolean;
    audit?: AuditLog;
    /** Our operator-controller's /healthz address: its step metrics give the time in the finalizers step. */
    healthUrl?: string;
    /** Whose requests `audit` counts (default: ours). */
    who?: (e: AuditEvent) => boolean;
    /** Processes whose CPU time the uninstall is measured by. */
    cpu?: ProcessGroups;
  },
): Promise<UninstallRun> {
  const install = await installRun(stack, watch, opts);
  await opts.settle();
  return { install, ...(await timeUninstall(stack, watch, objects, new Set(opts.bundles.keys()), opts)) };
}

/**
 * Deletes the installed ClusterExtensions `names` (a DELETE each, all at once) and times their
 * removal and their objects'; see the module comment. Throws when the objects or extensions are
 * still there after `timeoutMs`.
 */
export async function timeUninstall(
  stack: OlmStack,
  watch: ClusterWatch,
  objects: ObjectWatch,
  names: ReadonlySet<string>,
  opts: { timeoutMs: number; audit?: AuditLog; healthUrl?: string; who?: (e: AuditEvent) => boolean; cpu?: ProcessGroups },
): Promise<Omit<UninstallRun, 'install'>> {
  const count = objects.ownedBy(names).length;
  let extensionsGoneMs = Number.NaN;
  let objectsGoneMs = Number.NaN;
  let start = 0;
  let wallStart = 0;
  let check = (): void => undefined;
  const done = new Promise<void>((resolve) => {
    check = () => {
      const now = performance.now() - start;
      if (Number.isNaN(extensionsGoneMs) && !watch.extensions.list().some((o) => names.has(o.metadata.name ?? ''))) extensionsGoneMs = now;
      if (Number.isNaN(objectsGoneMs) && objects.ownedBy(names).length === 0) objectsGoneMs = now;
      if (!Number.isNaN(extensionsGoneMs) && !Number.isNaN(objectsGoneMs)) resolve();
    };
  });
  const offObjects = objects.onChange(() => check());
  const offExtensions = watch.extensions.addHandler(() => check());
  const timer = new Promise<never>((_, reject) =>
    setTimeout(
      () => reject(new Error(`uninstall not done after ${opts.timeoutMs / 1000} s: ${objects.ownedBy(names).slice(0, 5).join(', ')}`)),
      opts.timeoutMs,
    ).unref(),
  );
  const offset = await opts.audit?.offset();
  const before = opts.healthUrl === undefined ? undefined : await scrapeStepMetrics(opts.healthUrl);
  let cpuSince: (() => Record<string, number>) | undefined;
  try {
    cpuSince = opts.cpu === undefined ? undefined : cpuMeter(opts.cpu);
    start = performance.now();
    wallStart = Date.now();
    // In process, all at once: kubectl's own start-up (100-300 ms here) is not the controller's time.
    await Promise.all([...names].map((name) => stack.kube.client.delete({ ...CE, name })));
    check();
    await Promise.race([done, timer]);
  } finally {
    offObjects();
    offExtensions();
  }
  const cpu = cpuSince?.() ?? {};
  let finalizersMs = Number.NaN;
  if (before !== undefined && opts.healthUrl !== undefined) {
    finalizersMs = (stepDelta(before, await scrapeStepMetrics(opts.healthUrl)).steps['finalizers']?.sum ?? Number.NaN) * 1000;
  }
  let requests: AuditEvent[] = [];
  if (opts.audit !== undefined && offset !== undefined) {
    // The API server writes an event when it receives the request; a short wait lets the last ones land.
    await sleep(300);
    // kube-controller-manager's controllers act as ServiceAccounts of kube-system: not ours.
    // Events are written in batches: an earlier request's may land after the offset.
    requests = (await opts.audit.readSince(offset)).filter(
      (e) =>
        Date.parse(e.requestReceivedTimestamp) >= wallStart &&
        (opts.who ?? byOperatorController)(e) &&
        !(e.user?.username ?? '').startsWith(KUBE_SYSTEM),
    );
  }
  return { objects: count, extensionsGoneMs, objectsGoneMs, doneMs: Math.max(extensionsGoneMs, objectsGoneMs), requests, finalizersMs, cpu };
}
