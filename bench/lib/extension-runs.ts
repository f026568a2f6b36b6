/**
 * The measured procedures of the operator-controller benchmark (bench/benchmarks/extensions.ts):
 * one ClusterExtension applied with kubectl and timed to Installed=True, repeatedly under the
 * same name (deleted and gone in between), with operator-controller's per-step reconcile times
 * for each repetition; and many ClusterExtensions applied at once, timed until all are
 * installed, with operator-controller's RSS sampled meanwhile.
 */
import { writeFile } from 'node:fs/promises';
import { dump } from 'js-yaml';
import { type KubeClient, type KubeObject, isNotFound } from '../../pkg/shared/kube/index.ts';
import { createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import { sleep } from './http-load.ts';
import type { OlmStack, ProductProcess } from './olm-stack.ts';
import { type StepMetrics, scrapeStepMetrics, stepDelta } from './olm-stack.ts';
import { ProcessMemorySampler } from './proc.ts';

const CE = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension' };

interface ExtStatus {
  conditions?: Array<{ type: string; status: string; reason: string; message: string }>;
  install?: { bundle?: { name?: string } };
}

/** True when `obj` has Installed=True for bundle `bundleName`. */
export function isInstalledAs(obj: Readonly<KubeObject> | undefined, bundleName: string): boolean {
  const status = (obj?.status ?? {}) as ExtStatus;
  return status.conditions?.some((c) => c.type === 'Installed' && c.status === 'True') === true && status.install?.bundle?.name === bundleName;
}

async function getOrUndefined(client: KubeClient, name: string): Promise<KubeObject | undefined> {
  return client.get({ ...CE, name }).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
}

/** Polls until `check` holds (every `pollMs`); throws with `describe()` after `timeoutMs`. */
async function pollUntil(what: string, check: () => Promise<boolean>, describe: () => string, timeoutMs: number, pollMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}; ${describe()}`);
    await sleep(pollMs);
  }
}

/** One timed install of a reused ClusterExtension. */
export interface InstallRepetition {
  /** kubectl apply started -> Installed=True with the bundle name seen. */
  installMs: number;
  /** The kubectl process alone (start to exit: object created). */
  kubectlMs: number;
  /** Delete request -> the ClusterExtension is gone (finalizers done). */
  uninstallMs: number;
  /** operator-controller's step durations and reconciles during the install. */
  metrics: StepMetrics;
  /** Reconciles that ran after Installed was seen, with no change by the bench (e.g. caused by the status write). */
  followUp: StepMetrics;
  /** The same for the reconcile of the installed extension after an annotation change: the pull is a cache hit. */
  reReconcile: StepMetrics;
}

/** Applies `manifest` (written to `file`) with kubectl `repetitions` times, timing each install and the deletion after it. */
export async function repeatInstall(
  stack: OlmStack,
  oc: ProductProcess,
  opts: { manifest: KubeObject; file: string; bundleName: string; repetitions: number; log: (line: string) => void },
): Promise<{ reps: InstallRepetition[]; releaseObjects: number }> {
  const name = opts.manifest.metadata.name ?? '';
  await writeFile(opts.file, dump(opts.manifest));
  const client = stack.kube.client;
  const reps: InstallRepetition[] = [];
  let releaseObjects = Number.NaN;
  for (let i = 0; i < opts.repetitions; i++) {
    const before = await scrapeStepMetrics(oc.healthUrl);
    const start = performance.now();
    await stack.kubectl(['apply', '-f', opts.file]);
    const kubectlMs = performance.now() - start;
    let last: KubeObject | undefined;
    await pollUntil(
      `${name} Installed=True as ${opts.bundleName}`,
      async () => isInstalledAs((last = await getOrUndefined(client, name)), opts.bundleName),
      () => `last status ${JSON.stringify(last?.status ?? null)}`,
      60_000,
      20,
    );
    const installMs = performance.now() - start;
    const atInstalled = await scrapeStepMetrics(oc.healthUrl);
    const metrics = stepDelta(before, atInstalled);
    const settled = await quiet(oc);
    const followUp = stepDelta(atInstalled, settled);
    const reReconcile = await touch(client, oc, name, i, settled);
    if (i === opts.repetitions - 1) {
      const history = await createReleaseStore({ client, namespace: 'olmv1-system' }).history(name);
      releaseObjects = history[0]?.manifest.objects().length ?? Number.NaN;
    }
    const delStart = performance.now();
    await client.delete({ ...CE, name });
    await pollUntil(
      `${name} to be gone`,
      async () => (await getOrUndefined(client, name)) === undefined,
      () => 'still present',
      60_000,
      20,
    );
    const uninstallMs = performance.now() - delStart;
    opts.log(
      `repetition ${i + 1}/${opts.repetitions}: installed in ${Math.round(installMs)} ms (kubectl ${Math.round(kubectlMs)} ms), uninstalled in ${Math.round(uninstallMs)} ms`,
    );
    reps.push({ installMs, kubectlMs, uninstallMs, metrics, followUp, reReconcile });
  }
  return { reps, releaseObjects };
}

function reconcileTotal(m: StepMetrics): number {
  return Object.values(m.reconciles).reduce((n, v) => n + v, 0);
}

/**
 * Scrapes until no reconcile is in progress and the reconcile count has not changed for
 * `quietMs` (a reconcile the last status write triggers starts within that); returns the last scrape.
 */
export async function quiet(oc: ProductProcess, quietMs = 500, timeoutMs = 20_000): Promise<StepMetrics> {
  let last = await scrapeStepMetrics(oc.healthUrl);
  let since = performance.now();
  const deadline = since + timeoutMs;
  while (performance.now() - since < quietMs && performance.now() < deadline) {
    await sleep(50);
    const next = await scrapeStepMetrics(oc.healthUrl);
    if (next.active > 0 || reconcileTotal(next) !== reconcileTotal(last)) since = performance.now();
    last = next;
  }
  return last;
}

/**
 * Changes an annotation of the installed extension `name` and returns the step figures of the
 * reconciles that follow (one, unless its status write causes another), once quiet again.
 */
async function touch(client: KubeClient, oc: ProductProcess, name: string, i: number, before: StepMetrics): Promise<StepMetrics> {
  await client.patch({ ...CE, name }, { metadata: { annotations: { 'bench.olmv1/touch': String(i) } } }, 'merge');
  await pollUntil(
    `a reconcile of ${name} after the annotation change`,
    async () => reconcileTotal(await scrapeStepMetrics(oc.healthUrl)) > reconcileTotal(before),
    () => 'no reconcile counted',
    20_000,
    20,
  );
  return stepDelta(before, await quiet(oc));
}

/** Outcome of {@link installMany}. */
export interface ManyInstalled {
  /** kubectl apply started -> every extension Installed=True with its bundle. */
  allInstalledMs: number;
  kubectlMs: number;
  /** Peak RSS/anon of operator-controller while installing (100 ms samples). */
  peak: { rss: number; anon: number };
  metrics: StepMetrics;
}

/** Applies all `manifests` in one kubectl call and waits until each is installed as `bundles[name]`. */
export async function installMany(
  stack: OlmStack,
  oc: ProductProcess,
  opts: { manifests: KubeObject[]; bundles: Map<string, string>; file: string; timeoutMs: number },
): Promise<ManyInstalled> {
  await writeFile(opts.file, opts.manifests.map((m) => `---\n${dump(m)}`).join(''));
  const before = await scrapeStepMetrics(oc.healthUrl);
  const sampler = new ProcessMemorySampler(oc.child.pid, 100);
  try {
    const start = performance.now();
    await stack.kubectl(['apply', '-f', opts.file]);
    const kubectlMs = performance.now() - start;
    let pending: string[] = [...opts.bundles.keys()];
    await pollUntil(
      `${opts.bundles.size} extensions installed`,
      async () => {
        const list = await stack.kube.client.list(CE);
        const byName = new Map(list.items.map((o) => [o.metadata.name ?? '', o]));
        pending = pending.filter((n) => !isInstalledAs(byName.get(n), opts.bundles.get(n) ?? ''));
        return pending.length === 0;
      },
      () => `${pending.length} not installed, e.g. ${pending.slice(0, 3).join(', ')}`,
      opts.timeoutMs,
      200,
    );
    const allInstalledMs = performance.now() - start;
    return { allInstalledMs, kubectlMs, peak: sampler.stop(), metrics: stepDelta(before, await scrapeStepMetrics(oc.healthUrl)) };
  } finally {
    sampler.stop();
  }
}
