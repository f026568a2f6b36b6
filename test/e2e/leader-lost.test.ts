// A leader whose event loop stalled past its renew deadline (SIGSTOP, then SIGCONT: what a long
// collection or a throttled container does) must not stay up leaderless (issue 60): on resume it
// does not renew the Lease, it exits with code 1 within a bound (the kubelet restarts it), the
// other replica takes the Lease within the lease duration and writes status again. For both
// components, as real processes (cmd/*/main.ts) with two replicas each and short lease timings.
// The file has its own control plane: its operator-controllers reconcile every ClusterExtension,
// which must not include other files'.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { type KubeContext, connect } from '../../pkg/shared/kube/index.ts';
import { type ManagedProcess, Reaper } from '../envtest/index.ts';
import { startCatalogdProcess } from '../support/catalogd.ts';
import { condition, pushCatalog, simpleCatalog, waitForCatalog, writeCatalogFiles } from '../support/catalogs.ts';
import { startControllerProcess } from '../support/controller-process.ts';
import { installOlmConfig } from '../support/olm-config.ts';
import { useOwnControlPlane } from '../support/own-control-plane.ts';
import { withTempDir } from '../support/temp-dir.ts';

const own = useOwnControlPlane();
const id = randomBytes(3).toString('hex');

/** Short lease timings: a stall of STALL_MS passes the renew deadline and leaves the lease unexpired. */
const LEASE_MS = 10_000;
const RENEW_MS = 4_000;
const RETRY_MS = 1_000;
const TIMING_FLAGS = [
  `--leader-elect-lease-duration=${LEASE_MS}ms`,
  `--leader-elect-renew-deadline=${RENEW_MS}ms`,
  `--leader-elect-retry-period=${RETRY_MS}ms`,
];
/**
 * How long the leader is stopped: the fault itself, not a wait for something. Past the renew
 * deadline; within the lease duration unless the last renewal before the stop was late.
 */
const STALL_MS = 6_000;
/** The exit bound (cmd/shared/lost-leadership.ts) and a margin for a loaded machine. */
const EXIT_WITHIN_MS = 10_000;

let kube: KubeContext;
let reaper: Reaper;
let work: string;
const processes: ManagedProcess[] = [];

interface Lease {
  holder: string;
  renewTime: string;
}

async function lease(namespace: string, name: string): Promise<Lease | undefined> {
  const l = await kube.client.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace, name }).catch(() => undefined);
  const spec = l?.spec as { holderIdentity?: string | null; renewTime?: string } | undefined;
  return spec === undefined ? undefined : { holder: spec.holderIdentity ?? '', renewTime: spec.renewTime ?? '' };
}

async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number, logOf?: ManagedProcess): Promise<T> {
  return vi.waitFor(
    async () => {
      const v = await check();
      if (v === undefined) throw new Error(`timed out waiting for ${what}${logOf === undefined ? '' : `\n${logOf.logTail(20)}`}`);
      return v;
    },
    { timeout: timeoutMs, interval: 200 },
  );
}

/**
 * Two replicas lead by turns on `leaseName` in `namespace`: stops the leader for STALL_MS and
 * checks that it exits with code 1 soon after it runs again, without renewing the Lease, that
 * the other takes the Lease within the lease duration, and that `statusWritten` then holds.
 */
async function leaderStallScenario(
  replicas: Map<string, ManagedProcess>,
  namespace: string,
  leaseName: string,
  statusWritten: () => Promise<void>,
): Promise<void> {
  const leader = await waitFor(
    'a replica to hold the Lease',
    async () => {
      const holder = (await lease(namespace, leaseName))?.holder;
      return holder !== undefined && replicas.has(holder) ? holder : undefined;
    },
    60_000,
  );
  const stalled = replicas.get(leader);
  const [other] = [...replicas.entries()].filter(([name]) => name !== leader);
  if (stalled === undefined || other === undefined) throw new Error('two replicas expected');

  process.kill(-stalled.pid, 'SIGSTOP');
  await delay(STALL_MS);
  const resumedAt = Date.now();
  process.kill(-stalled.pid, 'SIGCONT');

  // Until it exits (or the bound passed), the stalled replica never renews the Lease again.
  let renewedAfterResume: Lease | undefined;
  const exitBy = resumedAt + EXIT_WITHIN_MS;
  while (stalled.exitStatus() === undefined && Date.now() < exitBy) {
    const l = await lease(namespace, leaseName);
    if (l?.holder === leader && Date.parse(l.renewTime) >= resumedAt) renewedAfterResume = l;
    await Promise.race([stalled.exited, delay(100)]);
  }
  expect(stalled.exitStatus(), `the stalled leader still runs ${EXIT_WITHIN_MS} ms after it resumed\n${stalled.logTail(30)}`).toEqual({
    code: 1,
    signal: null,
  });
  expect(renewedAfterResume).toBeUndefined();
  const log = await readFile(stalled.logPath, 'utf8');
  expect(log).toMatch(/"msg":"problem running manager".*"leader election lost"|"leader election lost".*"msg":"problem running manager"/);

  // The other replica takes the Lease within the lease duration (and its retry jitter) of the
  // stalled one's last renewal, which was before the stop.
  const [otherName, otherProc] = other;
  await waitFor(
    'the other replica to take the Lease',
    async () => ((await lease(namespace, leaseName))?.holder === otherName ? true : undefined),
    LEASE_MS + 3 * RETRY_MS * 2.2,
    otherProc,
  );
  await statusWritten();
}

beforeAll(async () => {
  await installOlmConfig(own.info);
  kube = await connect({ kind: 'file', path: own.info.kubeconfigPath });
  reaper = Reaper.start();
  work = await mkdtemp(join(tmpdir(), 'leader-lost-'));
}, 120_000);

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  kube?.close();
  reaper?.close();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe('a leader stalled past its renew deadline exits, and the other replica takes over', () => {
  it('catalogd', async () => {
    const ns = `leader-lost-${id}`;
    const leaseName = `catalogd-lock-${id}`;
    await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const host = inject('envtestRegistries').anonymous.host;
    const replicas = new Map<string, ManagedProcess>();
    await Promise.all(
      ['catalogd-a', 'catalogd-b'].map(async (name) => {
        const r = await startCatalogdProcess(own.info, {
          name: `${name}-${id}`,
          workDir: work,
          reaper,
          flags: [`--system-namespace=${ns}`, '--external-address=catalogd.test', `--leader-election-id=${leaseName}`, ...TIMING_FLAGS],
        });
        processes.push(r.proc);
        replicas.set(r.name, r.proc);
      }),
    );
    const catalog = async (name: string): Promise<void> => {
      const ref = `${host}/leader-lost/${name}:v1`;
      await withTempDir('fbc-', async (dir) => pushCatalog(await writeCatalogFiles(dir, simpleCatalog(name, ['1.0.0'])), ref));
      await kube.client.create({
        apiVersion: 'olm.operatorframework.io/v1',
        kind: 'ClusterCatalog',
        metadata: { name },
        spec: { source: { type: 'Image', image: { ref } } },
      });
      const cc = await waitForCatalog(kube.client, name, (c) => condition(c, 'Serving')?.status === 'True');
      expect((cc.status as { urls: { base: string } }).urls.base).toBe(`http://catalogd.test/catalogs/${name}`);
    };
    try {
      await catalog(`before-${id}`);
      await leaderStallScenario(replicas, ns, leaseName, () => catalog(`after-${id}`));
    } finally {
      await Promise.all([...replicas.values()].map((p) => p.stop()));
    }
  }, 180_000);

  it('operator-controller', async () => {
    const leaseName = `operator-controller-lock-${id}`;
    // startControllerProcess runs it with --system-namespace=olmv1-system.
    await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'olmv1-system' } }).catch(() => undefined);
    const replicas = new Map<string, ManagedProcess>();
    await Promise.all(
      ['operator-controller-a', 'operator-controller-b'].map(async (name) => {
        const c = await startControllerProcess({
          name: `${name}-${id}`,
          cp: own.info,
          cacheDir: await mkdtemp(join(work, `${name}-`)),
          logDir: work,
          reaper,
          args: [`--leader-election-id=${leaseName}`, ...TIMING_FLAGS],
        });
        processes.push(c.proc);
        replicas.set(c.name, c.proc);
      }),
    );
    // An extension of a package no catalog offers: reconciling it writes its status.
    const extension = async (name: string): Promise<void> => {
      await kube.client.create({
        apiVersion: CLUSTER_EXTENSION.apiVersion,
        kind: CLUSTER_EXTENSION.kind,
        metadata: { name },
        spec: { namespace: 'default', serviceAccount: { name: 'installer' }, source: { sourceType: 'Catalog', catalog: { packageName: name } } },
      });
      await waitFor(
        `status on ClusterExtension ${name}`,
        async () => {
          const ce = await kube.client.get({ apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind, name });
          const conditions = (ce.status as { conditions?: Array<{ observedGeneration?: number }> } | undefined)?.conditions ?? [];
          return conditions.some((c) => c.observedGeneration === 1) ? true : undefined;
        },
        60_000,
      );
    };
    try {
      await extension(`before-${id}`);
      await leaderStallScenario(replicas, 'olmv1-system', leaseName, () => extension(`after-${id}`));
    } finally {
      await Promise.all([...replicas.values()].map((p) => p.stop()));
    }
  }, 180_000);
});
