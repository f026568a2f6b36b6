/**
 * What catalogd and operator-controller share in their composition: leader election, registry
 * access, and running a component's leader-only part.
 */
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { PullSecretCredentials } from '../../pkg/shared/pullsecret/index.ts';
import { createImageClient, type ImageClient, type ImageLimits } from '../../pkg/shared/image/index.ts';
import { LeaderElector, type KubeClient } from '../../pkg/shared/kube/index.ts';
import { type ProxySelector, checkRegistryCertDir, registryCertDir } from '../../pkg/shared/nodehttp/index.ts';
import type { ComponentOptions } from './component-options.ts';
import { proxySelector } from './proxy.ts';

/** What runLeading uses besides the options. */
interface LeadingDeps {
  client: KubeClient;
  log: Logger;
  registry: Registry;
  /** Gets the readiness check `leader-election`, failing once leadership was lost (with leader election only). */
  health: { addReadinessCheck(name: string, check: () => true | string): void };
  /** Called at once when the elected leader lost its Lease, before runLeading resolves (the process's exit). */
  onLost: () => void;
}

/**
 * Runs `lead` while this replica leads (with leader election) or until `signal` aborts
 * (without). Resolves 'lost-leadership' when an elected leader lost its Lease, after `onLost`.
 * Rejects when `lead` fails while it should still run: an elected leader first gives up its
 * Lease (a replica that can reconcile takes over), and the process ends (componentMain) rather
 * than lead, and stay Ready, with nothing reconciling.
 */
export async function runLeading(
  o: Pick<ComponentOptions, 'leaderElect' | 'systemNamespace' | 'leaderElectionId' | 'identity' | 'leaderElection'>,
  deps: LeadingDeps,
  lead: (leading: AbortSignal) => Promise<void>,
  signal: AbortSignal,
): Promise<'stopped' | 'lost-leadership'> {
  if (!o.leaderElect) {
    await lead(signal);
    return 'stopped';
  }
  const electing = new AbortController();
  const stopElecting = (): void => electing.abort(signal.reason);
  signal.addEventListener('abort', stopElecting, { once: true });
  let failed: { err: unknown } | undefined;
  const leadOrStop = async (leading: AbortSignal): Promise<void> => {
    try {
      await lead(leading);
    } catch (err) {
      if (!leading.aborted) {
        failed = { err };
        electing.abort(err);
      }
      throw err;
    }
  };
  const elector = new LeaderElector({
    client: deps.client,
    namespace: o.systemNamespace,
    name: o.leaderElectionId,
    identity: o.identity,
    ...(o.leaderElection ?? {}),
    log: deps.log,
    registry: deps.registry,
    onStartedLeading: leadOrStop,
  });
  // A replica that lost its Lease neither leads nor campaigns again: not ready until its exit.
  let lost = false;
  deps.health.addReadinessCheck('leader-election', () => (lost ? 'leader election lost' : true));
  const outcome = await elector.run(electing.signal).finally(() => signal.removeEventListener('abort', stopElecting));
  if (failed !== undefined) throw new Error('the leader stopped working', { cause: failed.err });
  if (outcome !== 'lost') return 'stopped';
  lost = true;
  deps.onLost();
  return 'lost-leadership';
}

/**
 * The image client of a component, with the pull secrets (kept current by `pullSecret.run`, which
 * the caller runs), `--pull-ca-file`, `--pull-cas-dir`, registries.conf and the proxy.
 * @throws Error when `--pull-cas-dir` cannot be read or holds no certificate (upstream's check).
 */
export function componentImages(
  o: Pick<ComponentOptions, 'pullSecret' | 'pullCaFile' | 'pullCasDir' | 'proxy' | 'insecureRegistries' | 'registriesConf' | 'signaturePolicy'> & {
    imageLimits: ImageLimits;
    /** Connect and read timeouts of registry requests (pkg/shared/image defaults when absent). */
    pullConnectTimeoutMs?: number;
    pullReadTimeoutMs?: number;
  },
  client: KubeClient,
  log: Logger,
  userAgent: string,
): { images: ImageClient; pullSecret: PullSecretCredentials } {
  // Upstream's sources: the global pull secret, then the imagePullSecrets of our ServiceAccount.
  const pullSecret = new PullSecretCredentials(client, { global: o.pullSecret, serviceAccount: 'self' }, log);
  const caFile = o.pullCaFile;
  if (o.pullCasDir !== undefined) checkRegistryCertDir(o.pullCasDir);
  const certs = o.pullCasDir === undefined ? undefined : registryCertDir(o.pullCasDir);
  const proxy = componentProxy(o, log);
  const images = createImageClient({
    insecureRegistries: o.insecureRegistries,
    credentials: () => pullSecret?.get(),
    ...(caFile === undefined ? {} : { caPem: () => readFileSync(caFile, 'utf8') }),
    ...(certs === undefined ? {} : { tlsFor: (url: URL) => certs.tlsFor(url) }),
    ...(proxy === undefined ? {} : { proxy }),
    logger: log,
    userAgent,
    limits: o.imageLimits,
    registriesConf: o.registriesConf,
    signaturePolicy: o.signaturePolicy,
    ...(o.pullConnectTimeoutMs === undefined ? {} : { connectTimeoutMs: o.pullConnectTimeoutMs }),
    ...(o.pullReadTimeoutMs === undefined ? {} : { timeoutMs: o.pullReadTimeoutMs }),
  });
  return { images, pullSecret };
}

/** The proxy selector of the options (undefined: direct), logged once per component. */
function componentProxy(o: Pick<ComponentOptions, 'proxy'>, log: Logger): ProxySelector | undefined {
  return o.proxy === undefined ? undefined : proxySelector(o.proxy, log);
}
