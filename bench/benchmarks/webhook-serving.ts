/**
 * An operator with webhooks on a real node (issue #46): the time from a ClusterExtension's
 * apply to its webhook serving. The product deployed as it ships (pkg/olmv1/in-cluster, as the
 * `in-cluster` benchmark does), cert-manager deployed next to it (built here from its pinned
 * modules), examples/webhook-operator's catalog Serving; then, from the apply of the
 * ClusterExtension for 0.1.0: Installed, its Certificate Ready (issued by cert-manager), and a
 * valid Widget admitted (the API server reached the operator's validating webhook with the CA
 * cainjector injected), and a Widget stored as v1 read as v2 (its conversion webhook). The
 * setup steps are timed too but are not the figure. `OLMV1_BENCH_WEBHOOK_ROUNDS` repeats it on
 * fresh control planes (rows are medians). Skips with the reason where no node can run.
 */
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { pushExample } from '../../cmd/olmv1/up-example.ts';
import { deployCertManager } from '../../pkg/olmv1/in-cluster/index.ts';
import { defaultCacheRoot, resolveCertManagerBinaries, waitUntil } from '../../pkg/olmv1/localstack/index.ts';
import type { Benchmark, BenchContext, BenchOutcome } from '../lib/benchmark.ts';
import type { BenchKubectl } from '../lib/example-workload.ts';
import { measure } from '../lib/report.ts';
import { onNode, REPO, withProductOnNode, type NodeBench } from '../lib/product-on-node.ts';
import { median, round } from '../lib/stats.ts';

const NS = 'webhook-operator';
const EXTENSION = 'webhook-operator';
const CATALOG = 'webhook-catalog';

interface Round {
  lockWaitMs: number;
  /** Control plane with a node Ready, product Available, cert-manager serving, catalog Serving. */
  setupMs: number;
  installedMs: number;
  certificateMs: number;
  servingMs: number;
  conversionMs: number;
}

/** Milliseconds from `since` until `check` holds (polled every 250 ms, at most `timeoutMs`). */
async function timeUntil(what: string, since: number, check: () => Promise<boolean>, timeoutMs = 300_000): Promise<number> {
  await waitUntil(what, () => check().catch(() => false), { timeoutMs, intervalMs: 250 });
  return performance.now() - since;
}

/** The webhook operator installed through a ClusterExtension on `kubectl`'s cluster: each step's time from the apply. */
async function installAndServe(kubectl: BenchKubectl, registry: string, workDir: string, env: NodeJS.ProcessEnv) {
  const apply = (obj: object): Promise<string> => kubectl(['apply', '--server-side', '-f', '-'], JSON.stringify(obj));
  const get = async (args: string[]): Promise<{ status?: { conditions?: Array<{ type: string; status: string }> } }> =>
    JSON.parse(await kubectl(['get', ...args, '-o', 'json'])) as { status?: { conditions?: Array<{ type: string; status: string }> } };
  const isTrue = (o: Awaited<ReturnType<typeof get>>, type: string): boolean =>
    o.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
  const example = await pushExample(REPO, registry, [registry], await mkdtemp(join(workDir, 'webhook-')), env, 'webhook-operator');
  await apply({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name: CATALOG },
    spec: { source: { type: 'Image', image: { ref: example.catalogRef } } },
  });
  await kubectl(['wait', '--for=condition=Serving', `clustercatalog/${CATALOG}`, '--timeout=180s']);
  await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'installer', namespace: NS } });
  await apply({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'webhook-operator-installer' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'ServiceAccount', name: 'installer', namespace: NS }],
  });
  const widget = (name: string): object => ({
    apiVersion: 'webhook.example.com/v1',
    kind: 'Widget',
    metadata: { name, namespace: NS },
    spec: { valid: true },
  });
  const t = performance.now();
  await apply({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name: EXTENSION },
    spec: {
      namespace: NS,
      serviceAccount: { name: 'installer' },
      source: { sourceType: 'Catalog', catalog: { packageName: 'webhook-operator', version: '0.1.0' } },
    },
  });
  const installedMs = await timeUntil('the ClusterExtension Installed', t, async () =>
    isTrue(await get(['clusterextension', EXTENSION]), 'Installed'),
  );
  const certificateMs = await timeUntil('its Certificate Ready', t, async () => {
    const list = JSON.parse(await kubectl(['get', 'certificates.cert-manager.io', '-n', NS, '-o', 'json'])) as {
      items: Awaited<ReturnType<typeof get>>[];
    };
    return list.items.length > 0 && list.items.every((c) => isTrue(c, 'Ready'));
  });
  const servingMs = await timeUntil('a Widget admitted through the validating webhook', t, async () => (await apply(widget('bench')), true));
  const conversionMs = await timeUntil(
    'the Widget read as v2 through the conversion webhook',
    t,
    async () => (await kubectl(['get', 'widgets.v2.webhook.example.com', '-n', NS, 'bench', '-o', 'name'])).trim() !== '',
  );
  return { installedMs, certificateMs, servingMs, conversionMs };
}

async function oneRound(ctx: BenchContext, bench: NodeBench): Promise<Round> {
  const certManager = await resolveCertManagerBinaries({ cacheRoot: defaultCacheRoot(bench.env), env: bench.env, log: ctx.log });
  return withProductOnNode(ctx, bench, async (product, _cp, clock) => {
    await deployCertManager({ kubectl: product.kubectl, registry: product.registry.host, binaries: certManager, log: ctx.log });
    const setupMs = performance.now() - clock.locked;
    const times = await installAndServe(product.kubectl, product.registry.host, ctx.workDir, bench.env);
    ctx.log(`webhook serving ${round(times.servingMs / 1000, 1)} s after the ClusterExtension's apply`);
    return { lockWaitMs: clock.locked - clock.started, setupMs, ...times };
  });
}

async function measureAll(ctx: BenchContext, bench: NodeBench): Promise<BenchOutcome> {
  const rounds = Number(process.env['OLMV1_BENCH_WEBHOOK_ROUNDS'] ?? '1');
  const all: Round[] = [];
  for (let n = 1; n <= rounds; n++) {
    ctx.log(`round ${n} of ${rounds}: control plane with a node, config/ and cert-manager deployed`);
    all.push(await oneRound(ctx, bench));
  }
  const s = (pick: (r: Round) => number): number => round(median(all.map(pick)) / 1000, 1);
  return {
    measurements: [
      measure(
        'ClusterExtension apply -> validating webhook serving (a Widget admitted)',
        s((r) => r.servingMs),
        's',
        undefined,
        `median of ${rounds}`,
      ),
      measure(
        'ClusterExtension apply -> Installed',
        s((r) => r.installedMs),
        's',
      ),
      measure(
        'ClusterExtension apply -> its Certificate Ready (cert-manager)',
        s((r) => r.certificateMs),
        's',
      ),
      measure(
        'ClusterExtension apply -> a v1 Widget read as v2 (conversion webhook)',
        s((r) => r.conversionMs),
        's',
      ),
      measure(
        'setup: node Ready, product Available, cert-manager serving (not counted)',
        s((r) => r.setupMs),
        's',
      ),
    ],
    details: { rounds: all },
  };
}

export const webhookServingBenchmark: Benchmark = {
  name: 'webhook-serving',
  title: 'an operator with webhooks on a real node: ClusterExtension apply to a serving webhook',
  run: (ctx) => onNode(ctx, (bench) => measureAll(ctx, bench)),
};
