// Upstream's end-to-end scenarios that need Pods, run against ours on a real node (issue #43),
// from upstream's test/e2e/features/: metrics.feature (both components' metrics through their
// Service), tls.feature (catalogd's metrics endpoint under `--tls-profile=custom`: minimum
// version, cipher, curves, the secp256r1 alias, a post-quantum hybrid group) and proxy.feature
// (operator-controller's catalog requests through HTTPS_PROXY). One deployment of config/ for
// the file (test/support/on-node.ts); each TLS and proxy scenario patches a Deployment, waits
// until every Pod runs the change, and checks. Each proxy scenario puts the original env back (that
// rollout awaited too), as upstream's steps do; the TLS scenarios go from one profile to the next
// and put the original args back after the last, which saves five rollouts. Where ours checks more than upstream's steps
// (every Pod besides the Service, certificates verified, a TLS 1.3 curve check, the proxied
// install completing), the test says so. Needs root and the node's prerequisites.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pushExample } from '../../cmd/olmv1/up-example.ts';
import { SYSTEM_NAMESPACE, type Kubectl } from '../../pkg/olmv1/in-cluster/index.ts';
import { customTlsArgs, deploymentRollouts, withEnv } from '../support/deployment-rollout.ts';
import { startForwardProxy } from '../support/forward-proxy.ts';
import { deployOnNode, httpsGet, kube, nodeEnv, nodeUnavailable, REPO, timed, type Obj, type OnNode } from '../support/on-node.ts';
import { handshake, type TlsTarget } from '../support/tls-probe.ts';

const missing = nodeUnavailable();
if (missing !== undefined) console.warn(`on-node-upstream.test.ts skipped: ${missing}`);

/** upstream's ${TEST_NAMESPACE}: the metrics reader and the extensions live here. */
const TEST_NS = 'upstream-e2e';
const CATALOGD = 'catalogd-controller-manager';
const OPERATOR_CONTROLLER = 'operator-controller-controller-manager';
const CATALOGD_HOST = `catalogd-service.${SYSTEM_NAMESPACE}.svc`;
/** The alert OpenSSL reports for no shared cipher or group. */
const HANDSHAKE_FAILURE = 'ERR_SSL_SSL/TLS_ALERT_HANDSHAKE_FAILURE';
const AES128 = { iana: 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', openssl: 'ECDHE-ECDSA-AES128-GCM-SHA256' };

let onNode: OnNode | undefined;
let kubectl: Kubectl;
let k: ReturnType<typeof kube>;
let rollouts: ReturnType<typeof deploymentRollouts>;
let work = '';
const log = (line: string): void => console.error(`on-node-upstream: ${line}`);

beforeAll(async () => {
  if (missing !== undefined) return;
  onNode = await deployOnNode(log);
  kubectl = onNode.kubectl;
  k = kube(kubectl);
  rollouts = deploymentRollouts(kubectl);
  await k.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: TEST_NS } });
}, 1_800_000);

afterAll(async () => {
  await onNode?.stop();
  if (work !== '') await rm(work, { recursive: true, force: true });
});

describe.skipIf(missing !== undefined)("upstream's e2e scenarios on a real node", () => {
  describe('metrics.feature: component exposes metrics', () => {
    // Upstream's steps bind a ServiceAccount to <component>-metrics-reader and GET /metrics of
    // every Pod behind the component's Service (<component>-service, port `metrics`) (through port-forwards, certificates not
    // checked). Here: every Pod's address and the Service's ClusterIP, certificates verified.
    it.each([
      ['operator-controller', `operator-controller-service.${SYSTEM_NAMESPACE}.svc`],
      ['catalogd', CATALOGD_HOST],
    ])('%s: a ServiceAccount bound to its metrics-reader gets Prometheus metrics from /metrics of its Service', async (component, servername) => {
      const started = Date.now();
      await k.apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'metrics-reader', namespace: TEST_NS } });
      await k.apply({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: `${component}-metrics-reader-binding` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${component}-metrics-reader` },
        subjects: [{ kind: 'ServiceAccount', name: 'metrics-reader', namespace: TEST_NS }],
      });
      const token = (await kubectl(['create', 'token', '-n', TEST_NS, 'metrics-reader'])).trim();
      const service = await k.get(['service', '-n', SYSTEM_NAMESPACE, `${component}-service`]);
      const spec = service.spec as {
        clusterIP: string;
        selector: Record<string, string>;
        ports: Array<{ name: string; port: number; targetPort: string | number }>;
      };
      const port = spec.ports.find((p) => p.name === 'metrics');
      const selector = Object.entries(spec.selector)
        .map(([key, value]) => `${key}=${value}`)
        .join(',');
      const pods = await k.list(['pods', '-n', SYSTEM_NAMESPACE, '-l', selector]);
      expect(pods.length).toBeGreaterThan(0);
      const urls = [
        ...pods.map((p) => `https://${String(p.status?.['podIP'])}:${targetPort(p, port?.targetPort ?? '')}/metrics`),
        `https://${spec.clusterIP}:${port?.port}/metrics`,
      ];
      for (const url of urls) {
        const get = (): Promise<{ status: number; body: string }> =>
          httpsGet(url, { ca: onNode?.product.caCertPem ?? '', servername, token }).catch((e: Error) => ({ status: 0, body: e.message }));
        await expect.poll(async () => (await get()).status, { timeout: 60_000 }).toBe(200);
        const families = prometheusFamilies((await get()).body);
        log(`${url}: ${families.length} metric families`);
        expect(families.length).toBeGreaterThan(0);
      }
      timed(log, `metrics of ${component}`, started);
    });
  });

  describe("tls.feature: TLS profile enforcement on catalogd's metrics endpoint", () => {
    // Every catalogd Pod (upstream's port-forward reaches one) and the metrics Service.
    const targets = async (): Promise<TlsTarget[]> => {
      const ca = onNode?.product.caCertPem ?? '';
      const pods = await k.list(['pods', '-n', SYSTEM_NAMESPACE, '-l', 'app.kubernetes.io/name=catalogd']);
      const hosts = [...pods.map((p) => String(p.status?.['podIP'])), await k.clusterIp('catalogd-service')];
      return hosts.map((host) => ({ host, port: 7443, ca, servername: CATALOGD_HOST }));
    };
    /** Runs `check` on every target once a default client connects (upstream's readiness dial). */
    const onEveryTarget = async (check: (t: TlsTarget) => Promise<void>): Promise<void> => {
      for (const t of await targets()) {
        await expect.poll(async () => ('refused' in (await handshake(t)) ? 'refused' : 'connected'), { timeout: 30_000 }).toBe('connected');
        await check(t);
      }
    };
    // Each scenario's profile stays until the next one's replaces it (a scenario with the profile
    // already in place rolls nothing), and catalogd's original args come back after the last:
    // five rollouts for the five scenarios instead of ten, each scenario still on its own profile.
    let original: string[] | undefined;
    beforeAll(async () => {
      if (missing === undefined) original = (await rollouts.manager(CATALOGD)).args;
    });
    afterAll(async () => {
      if (original !== undefined) await rollouts.patch(CATALOGD, { args: original });
    });
    const scenario = (profile: { version: string; ciphers?: string; curves?: string }, check: (t: TlsTarget) => Promise<void>) => async () => {
      const started = Date.now();
      await rollouts.patch(CATALOGD, { args: customTlsArgs(original ?? [], profile) });
      await onEveryTarget(check);
      timed(log, `TLS profile ${JSON.stringify(profile)}`, started);
    };
    const tls12 = { maxVersion: 'TLSv1.2', ciphers: AES128.openssl } as const;

    it(
      'enforces the configured minimum TLS version: TLSv1.3 accepts 1.3, refuses 1.2',
      scenario({ version: 'TLSv1.3' }, async (t) => {
        expect(await handshake(t, { minVersion: 'TLSv1.3' })).toMatchObject({ protocol: 'TLSv1.3' });
        expect(await handshake(t, { maxVersion: 'TLSv1.2' })).toEqual({ refused: 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION' });
      }),
      600_000,
    );

    it(
      `negotiates and enforces the configured cipher suite: ${AES128.iana} over 1.2, a client offering only AES-256 refused`,
      scenario({ version: 'TLSv1.2', ciphers: AES128.iana, curves: 'prime256v1' }, async (t) => {
        expect(await handshake(t, tls12)).toEqual({ protocol: 'TLSv1.2', cipher: AES128.iana, group: 'prime256v1' });
        expect(await handshake(t, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES256-GCM-SHA384' })).toEqual({ refused: HANDSHAKE_FAILURE });
      }),
      600_000,
    );

    // Over TLS 1.2 a client without P-256 is refused by any server with a P-256 certificate, so
    // upstream's secp521r1 check passes whatever the curve setting; over TLS 1.3 the certificate
    // plays no part and the refusal is the setting's alone (a server without it accepts).
    for (const curve of ['prime256v1', 'secp256r1']) {
      it(
        `enforces the configured curve preferences (${curve}): prime256v1 accepted, only secp521r1 refused over 1.2 and 1.3`,
        scenario({ version: 'TLSv1.2', ciphers: AES128.iana, curves: curve }, async (t) => {
          expect(await handshake(t, { ...tls12, ecdhCurve: 'prime256v1' })).toEqual({
            protocol: 'TLSv1.2',
            cipher: AES128.iana,
            group: 'prime256v1',
          });
          expect(await handshake(t, { ...tls12, ecdhCurve: 'secp521r1' })).toEqual({ refused: HANDSHAKE_FAILURE });
          expect(await handshake(t, { minVersion: 'TLSv1.3', ecdhCurve: 'secp521r1' })).toEqual({ refused: HANDSHAKE_FAILURE });
        }),
        600_000,
      );
    }

    it(
      'accepts connections using a post-quantum hybrid curve (SecP256r1MLKEM768), refuses only secp521r1',
      scenario({ version: 'TLSv1.2', ciphers: AES128.iana, curves: 'SecP256r1MLKEM768,secp256r1' }, async (t) => {
        expect(await handshake(t, { ecdhCurve: 'SecP256r1MLKEM768' })).toMatchObject({ protocol: 'TLSv1.3', group: 'SecP256r1MLKEM768' });
        expect(await handshake(t, { ecdhCurve: 'secp521r1' })).toEqual({ refused: HANDSHAKE_FAILURE });
      }),
      600_000,
    );
  });

  describe('proxy.feature: HTTPS proxy support for outbound catalog requests', () => {
    const CATALOG = 'test';
    beforeAll(async () => {
      if (missing !== undefined) return;
      const started = Date.now();
      work = await mkdtemp(join(tmpdir(), 'olmv1-on-node-upstream-'));
      const registry = onNode?.product.registry.host ?? '';
      const example = await pushExample(REPO, registry, [registry], work, nodeEnv);
      await k.apply({
        apiVersion: 'olm.operatorframework.io/v1',
        kind: 'ClusterCatalog',
        metadata: { name: CATALOG },
        spec: { source: { type: 'Image', image: { ref: example.catalogRef } } },
      });
      // In a hook: vi.waitFor (expect.poll is for tests).
      await vi.waitFor(
        async () => {
          const serving = conditionOf(await k.get(['clustercatalog', CATALOG]), 'Serving');
          if (serving?.status !== 'True') throw new Error(`ClusterCatalog ${CATALOG} not Serving: ${serving?.message ?? 'no condition yet'}`);
        },
        { timeout: 120_000, interval: 1000 },
      );
      // Upstream's ClusterExtension names no ServiceAccount (upstream HEAD installs as
      // cluster-admin); ours installs as the one named, given what upstream's would have.
      await k.clusterAdminInstaller(TEST_NS, 'upstream-e2e-installer');
      timed(log, 'example catalog Serving', started);
    }, 300_000);

    const extension = (name: string): object => ({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterExtension',
      metadata: { name },
      spec: {
        namespace: TEST_NS,
        serviceAccount: { name: 'installer' },
        source: {
          sourceType: 'Catalog',
          catalog: { packageName: 'example-operator', selector: { matchLabels: { 'olm.operatorframework.io/metadata.name': CATALOG } } },
        },
      },
    });
    /**
     * operator-controller with HTTPS_PROXY set and NO_PROXY the API server's ClusterIP, as
     * upstream's step sets them: client-go would send API requests to the proxy without it.
     * Ours never proxies the Kubernetes API (decision 0093), so NO_PROXY changes nothing here.
     */
    const withProxy = async (proxyUrl: string, name: string, body: () => Promise<void>): Promise<void> => {
      const apiServer = await k.clusterIp('kubernetes', 'default');
      await rollouts.withChanged(
        OPERATOR_CONTROLLER,
        ({ env }) => ({ env: withEnv(withEnv(env, 'HTTPS_PROXY', proxyUrl), 'NO_PROXY', apiServer) }),
        async () => {
          try {
            await k.apply(extension(name));
            await body();
          } finally {
            await kubectl(['delete', 'clusterextension', name, '--ignore-not-found', '--timeout=180s']);
          }
        },
      );
    };

    it('operator-controller respects HTTPS_PROXY when fetching catalog data: an unreachable proxy is Progressing True, Retrying, proxyconnect', async () => {
      const started = Date.now();
      await withProxy('http://127.0.0.1:39999', 'proxy-unreachable', async () => {
        const progressing = async (): Promise<object | undefined> => {
          const c = conditionOf(await k.get(['clusterextension', 'proxy-unreachable']), 'Progressing');
          return c && { status: c.status, reason: c.reason, proxyconnect: c.message.includes('proxyconnect') };
        };
        await expect.poll(progressing, { timeout: 120_000, interval: 1000 }).toEqual({ status: 'True', reason: 'Retrying', proxyconnect: true });
        log(`Progressing: ${conditionOf(await k.get(['clusterextension', 'proxy-unreachable']), 'Progressing')?.message}`);
      });
      timed(log, 'unreachable proxy (two rollouts)', started);
    }, 600_000);

    it('operator-controller sends catalog requests through a configured HTTPS proxy: CONNECT for the catalogd service', async () => {
      const started = Date.now();
      // Upstream's recording proxy cannot reach Services and answers 502 after recording the
      // CONNECT. This one listens on the node's bridge address (where Pods reach the host, as
      // the registry does) and resolves catalogd's Service name to its ClusterIP, which the
      // host routes to: the tunnel carries the catalog fetch, TLS end to end, and the install
      // completes (beyond upstream's scenario).
      const hostIp = onNode?.cp.node?.hostIp ?? '';
      const proxy = await startForwardProxy({ listenHost: hostIp, hosts: { [CATALOGD_HOST]: await k.clusterIp('catalogd-service') } });
      try {
        await withProxy(proxy.url, 'proxy-recorded', async () => {
          const connects = (): string[] => proxy.requestsFor(CATALOGD_HOST).map((r) => `${r.method} ${r.authority} ${r.status}`);
          await expect.poll(connects, { timeout: 120_000, interval: 500 }).toContain(`CONNECT ${CATALOGD_HOST}:443 200`);
          const installed = async (): Promise<string | undefined> =>
            conditionOf(await k.get(['clusterextension', 'proxy-recorded']), 'Installed')?.status;
          await expect.poll(installed, { timeout: 180_000, interval: 1000 }).toBe('True');
          // The operator it installed runs on the node with operator-controller's proxy in its
          // environment (decision 0132, issue 72): the cluster-wide proxy outside OpenShift.
          const apiServer = await k.clusterIp('kubernetes', 'default');
          const operatorEnv = async (): Promise<string[]> =>
            (await k.list(['pods', '-n', TEST_NS]))
              .filter((p) => p.status?.['phase'] === 'Running')
              .flatMap((p) => (p.spec?.['containers'] as Array<{ env?: Array<{ name: string; value?: string }> }>).flatMap((c) => c.env ?? []))
              .filter((e) => e.name.endsWith('_PROXY'))
              .map((e) => `${e.name}=${e.value ?? ''}`);
          await expect
            .poll(operatorEnv, { timeout: 120_000, interval: 1000 })
            .toEqual(expect.arrayContaining([`HTTPS_PROXY=${proxy.url}`, `NO_PROXY=${apiServer}`]));
          log(`through the proxy: ${JSON.stringify(proxy.requests.map((r) => `${r.method} ${r.authority}`))}`);
        });
      } finally {
        await proxy.close();
      }
      timed(log, 'recording proxy (two rollouts)', started);
    }, 900_000);
  });
});

/** Condition `type` of `o` with its reason and message. */
function conditionOf(o: Obj, type: string): { status: string; reason: string; message: string } | undefined {
  return (o.status?.['conditions'] as Array<{ type: string; status: string; reason: string; message: string }> | undefined)?.find(
    (c) => c.type === type,
  );
}

/** The number of the container port named `name` of Pod `p`. */
/** A Service's target port on Pod `p`: a number as it is, a name looked up in the Pod's container ports. */
function targetPort(p: Obj, port: string | number): number {
  return typeof port === 'number' ? port : containerPort(p, port);
}

function containerPort(p: Obj, name: string): number {
  const containers = (p.spec?.['containers'] ?? []) as Array<{ ports?: Array<{ name?: string; containerPort: number }> }>;
  const port = containers.flatMap((c) => c.ports ?? []).find((q) => q.name === name);
  if (port === undefined) throw new Error(`Pod ${p.metadata.name} has no port named ${name}`);
  return port.containerPort;
}

const SAMPLE = /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? ([^ ]+)( -?\d+)?$/;
/** A sample value as Go's strconv.ParseFloat (upstream's parser) reads it: `NaN`, `Nan`, `+Inf` too. */
const isFloat = (v: string): boolean => /^(nan|[+-]?inf(inity)?)$/i.test(v) || (v.trim() !== '' && !Number.isNaN(Number(v)));

/**
 * The metric families (`# TYPE` names) of a Prometheus text exposition; throws on a line that
 * is neither a comment nor a sample, or a sample before any `# TYPE`, as upstream's parser would.
 */
function prometheusFamilies(text: string): string[] {
  const families: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ')) continue;
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type !== null) {
      families.push(type[1] ?? '');
      continue;
    }
    const sample = SAMPLE.exec(line);
    if (sample === null || !isFloat(sample[4] ?? '') || families.length === 0) throw new Error(`not Prometheus text: ${JSON.stringify(line)}`);
  }
  return families;
}
