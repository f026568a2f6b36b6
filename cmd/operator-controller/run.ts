/**
 * operator-controller's composition: informers run on every replica, the elected leader
 * reconciles, and losing leadership ends the process (as controller-runtime does). Readiness is
 * the informers' sync; the rest (control.ts) loads only after it (decision 0097).
 */
import type { Logger } from 'pino';
// The constants' file, not pkg/shared/api's index (the zod schemas, which control.ts loads).
import { CLUSTER_CATALOG, CLUSTER_EXTENSION, CLUSTER_OBJECT_SET, OWNER_NAME_LABEL } from '../../pkg/shared/api/v1/constants.ts';
import { HealthServer, informersSynced } from '../../pkg/shared/controller/index.ts';
import {
  Informer,
  clientListWatch,
  connect,
  labelIndex,
  stripManagedFields,
  type KubeContext,
  type KubeObject,
} from '../../pkg/shared/kube/index.ts';
import { componentKubeConfig } from '../shared/component-options.ts';
import { FIRST_PROBE_WAIT_MS, firstPass, waitAtMost } from '../shared/first-answer.ts';
import { startMetricsServing } from '../shared/metrics-serving.ts';
import { checkRegistryCertDir } from '../../pkg/shared/nodehttp/index.ts';
// The classes and default metrics from prom-client's files, not its index (@opentelemetry/api; decision 0097).
import { Registry, collectDefaultMetrics } from '../../pkg/shared/metrics/index.ts';
import { saveCompileCache } from '../shared/compile-cache.ts';
import type { OperatorControllerOptions } from './options.ts';

/**
 * Runs operator-controller; resolves when `signal` aborts (after a graceful stop) or leadership is lost.
 * `leadershipLost` is called as soon as the elected leader lost its Lease (the process's exit, cmd/shared/lost-leadership.ts).
 */
export async function runOperatorController(
  o: OperatorControllerOptions,
  log: Logger,
  signal: AbortSignal,
  leadershipLost: () => void = () => undefined,
): Promise<'stopped' | 'lost-leadership'> {
  const registry = new Registry();
  // Credentials and registry certificates are read first: when they are unusable the start
  // fails, with the same message, before anything listens.
  const credentials = componentKubeConfig(o);
  if (o.pullCasDir !== undefined) checkRegistryCertDir(o.pullCasDir);
  const kube: KubeContext = await connect(credentials, { userAgent: 'operator-controller' });

  // Each informer is named by its resource (`plural`).
  const informer = ({ apiVersion, kind, plural }: { apiVersion: string; kind: string; plural: string }): Informer<KubeObject> =>
    new Informer({ name: plural, source: clientListWatch(kube.client, { apiVersion, kind }), log, registry, transform: stripManagedFields });
  const extensions = informer(CLUSTER_EXTENSION);
  const catalogs = informer(CLUSTER_CATALOG);
  // BoxcutterRuntime: the revisions (their CRD is config/crd/experimental's).
  const objectSets = o.featureGates.BoxcutterRuntime ? informer(CLUSTER_OBJECT_SET) : undefined;
  const informers = objectSets === undefined ? [extensions, catalogs] : [extensions, catalogs, objectSets];

  // /metrics: over HTTPS to authorized callers (with a certificate), plain on the probe port only with --insecure-metrics.
  const health = new HealthServer({ port: o.healthProbe.port, host: o.healthProbe.host, ...(o.insecureMetrics ? { registry } : {}), log });
  const ready = firstPass(informersSynced(informers));
  health.addReadinessCheck('informers', ready.check);

  // The informers stop with the process, or when the rest fails to start (which ends it). Their
  // first requests go out before the rest of the set-up (default metrics, probe and metrics
  // servers), which runs while kube-apiserver answers (decision 0153).
  const informing = new AbortController();
  const stopInforming = (): void => informing.abort(signal.reason);
  signal.addEventListener('abort', stopInforming, { once: true });
  for (const i of informers) void i.run(informing.signal);
  collectDefaultMetrics(registry);
  let outcome: 'stopped' | 'lost-leadership' = 'stopped';
  let metrics: { stop: () => Promise<void> } | undefined;
  try {
    // The probe port's worker thread starts once the informers synced: its start (a second Node
    // environment) does not take the CPU their lists and /readyz wait for (decision 0153).
    const syncing = Promise.all(informers.map((i) => i.waitForSync(signal))).then(
      () => true,
      () => false,
    );
    await health.start({ workerAfter: syncing });
    log.info({ address: o.healthProbe, metrics: o.insecureMetrics }, 'health server listening');
    metrics = await startMetricsServing(o, { client: kube.client, registry, log });
    // The rest loads once the informers synced (ready): its modules evaluate on this thread
    // (zod's the most), which would hold back the lists' answers and /readyz; and nothing of it
    // acts before: the reconciler waits for both informers' sync (control.ts).
    const synced = await syncing;
    if (synced) {
      // A probe that came as the informers synced is answered before the rest loads.
      await waitAtMost(ready.passed, FIRST_PROBE_WAIT_MS, signal);
      const { runOperatorControllerControl } = await import('./control.ts');
      saveCompileCache();
      const started = { log, registry, kube, extensions, catalogs, health, leadershipLost };
      outcome = await runOperatorControllerControl(
        o,
        objectSets === undefined ? started : { ...started, objectSets, objectSetsOf: labelIndex(objectSets, OWNER_NAME_LABEL) },
        signal,
      );
    }
  } catch (err) {
    stopInforming();
    throw err;
  } finally {
    signal.removeEventListener('abort', stopInforming);
  }
  // Stopped, or leadership lost: the informers end too.
  stopInforming();

  await health.stop();
  await metrics.stop();
  kube.close();
  return outcome;
}
