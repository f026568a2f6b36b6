// Both binaries (cmd/catalogd/main.ts, cmd/operator-controller/main.ts, real processes) started
// with upstream's Deployment arguments against the real API server: its standard profile with the
// e2e values (--pprof-bind-address, the e2e TLS profiles) and its experimental profile. Only
// upstream's paths are replaced by files that exist (a serving certificate and a CA directory)
// and its listen addresses by free loopback ports, in place; the cache directories and
// catalogd's catalog server address, which upstream leaves at their defaults, are added. The
// standard arguments start both (/readyz answers, the TLS profile holds on the metrics port, the
// pprof address serves CPU and heap profiles of the process: issue 65) with one warning per flag
// that has no effect here; the experimental ones start operator-controller with the Boxcutter
// runtime (BoxcutterRuntime=true: the ClusterObjectSet CRD of config/crd/experimental is applied for
// it) and catalogd with its GraphQL endpoint (GraphQLCatalogQueries=true). Each start logs upstream's feature gate line with every gate in effect.
// The `version` command prints upstream's shape.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { type KubeContext, connect } from '../../pkg/shared/kube/index.ts';
import { type ManagedProcess, Reaper, freePorts, startProcess } from '../envtest/index.ts';
import { readManifests } from '../../cmd/olmv1/up-cluster.ts';
import { installOlmConfig } from '../support/olm-config.ts';
import { type ServingCertificate, handshake, servingCertificate } from '../support/secure-metrics.ts';
import { UPSTREAM_CATALOGD_ARGS, UPSTREAM_OPERATOR_CONTROLLER_ARGS, withPaths } from '../support/upstream-deployment-args.ts';

const MAIN = {
  catalogd: fileURLToPath(new URL('../../cmd/catalogd/main.ts', import.meta.url)),
  'operator-controller': fileURLToPath(new URL('../../cmd/operator-controller/main.ts', import.meta.url)),
};
type Binary = keyof typeof MAIN;

const id = randomBytes(3).toString('hex');
// Leases and the system namespace of this file alone, as POD_NAMESPACE gives it in a Pod.
const NS = `upstream-args-${id}`;

let kube: KubeContext;
let reaper: Reaper;
let work: string;
let cert: ServingCertificate;
let paths: { certFile: string; keyFile: string; caDir: string };

beforeAll(async () => {
  const cp = inject('envtestControlPlane');
  await installOlmConfig(cp);
  kube = await connect({ kind: 'file', path: cp.kubeconfigPath });
  for (const crd of (await readManifests(fileURLToPath(new URL('../../config/crd/experimental', import.meta.url)))).filter(
    (o) => o.kind === 'CustomResourceDefinition',
  ))
    await kube.client.apply(crd, { fieldManager: 'upstream-args-test', force: true });
  await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  reaper = Reaper.start();
  work = await mkdtemp(join(tmpdir(), 'upstream-args-'));
  // upstream's mounts: /var/certs/tls.{crt,key} (the serving certificate), /var/ca-certs/olm-ca.crt (its CA).
  cert = await servingCertificate(work);
  const caDir = join(work, 'ca-certs');
  await mkdir(caDir);
  await copyFile(cert.caPath, join(caDir, 'olm-ca.crt'));
  paths = { certFile: cert.certPath, keyFile: cert.keyPath, caDir };
});

afterAll(async () => {
  await kube?.client.delete({ apiVersion: 'v1', kind: 'Namespace', name: NS }).catch(() => undefined);
  kube?.close();
  await rm(work, { recursive: true, force: true });
});

/** A started binary: its process, its ports, its JSON log lines. */
interface Started {
  proc: ManagedProcess;
  health: number;
  metrics: number;
  pprof: number;
  lines(): Promise<Record<string, unknown>[]>;
}

/**
 * Starts `binary` with `args` (upstream's, paths and addresses replaced in place) and what
 * upstream leaves at defaults this test cannot use: the cache directory, catalogd's health and
 * catalog server addresses and webhook port (upstream's are :8081, :8443 and 9443).
 */
async function start(binary: Binary, args: readonly string[], name: string): Promise<Started> {
  const [health = 0, metrics = 0, server = 0, webhook = 0, pprof = 0] = await freePorts(5);
  const cacheDir = await mkdtemp(join(work, `${name}-cache-`));
  const loopback = {
    'health-probe-bind-address': `127.0.0.1:${health}`,
    'metrics-bind-address': `127.0.0.1:${metrics}`,
    'pprof-bind-address': `127.0.0.1:${pprof}`,
  };
  const extra =
    binary === 'catalogd'
      ? [
          `--cache-dir=${cacheDir}`,
          `--health-probe-bind-address=127.0.0.1:${health}`,
          `--catalogs-server-addr=127.0.0.1:${server}`,
          // Upstream's 9443 may be taken on a shared machine.
          `--webhook-server-port=${webhook}`,
        ]
      : [`--cache-path=${cacheDir}`];
  const logPath = join(work, `${name}.log`);
  const proc = await startProcess({
    name,
    command: process.execPath,
    args: [MAIN[binary], ...withPaths(args, paths, loopback), ...extra],
    env: { ...process.env, KUBECONFIG: inject('envtestControlPlane').kubeconfigPath, POD_NAMESPACE: NS, POD_NAME: name },
    logPath,
    reaper,
  });
  const lines = async (): Promise<Record<string, unknown>[]> =>
    (await readFile(logPath, 'utf8'))
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { proc, health, metrics, pprof, lines };
}

/** Resolves once /readyz answers 200; throws with the log's tail if the process exits first or after 60 s. */
async function ready(s: Started): Promise<void> {
  const notReady = (): Error => new Error(`${s.proc.name} not ready (exit ${JSON.stringify(s.proc.exitStatus())})\n${s.proc.logTail(20)}`);
  const outcome = await vi.waitFor(
    async () => {
      // An exit ends the wait at once (returned, thrown below); not ready yet is retried.
      if (s.proc.exitStatus() !== undefined) return 'exited';
      if ((await fetch(`http://127.0.0.1:${s.health}/readyz`).catch(() => undefined))?.status !== 200) throw notReady();
      return 'ready';
    },
    { timeout: 60_000, interval: 200 },
  );
  if (outcome === 'exited') throw notReady();
}

/** The fields of the feature gate line at start (upstream's `feature gate status`), gates only. */
async function gateStatus(s: Started, msg: string): Promise<Record<string, unknown> | undefined> {
  const line = (await s.lines()).find((l) => l['msg'] === msg);
  if (line === undefined) return undefined;
  const { level: _level, ts: _ts, component: _component, msg: _msg, ...gates } = line;
  return gates;
}

/** The warnings about flags with no effect: flag, and gate for --feature-gates. */
async function notices(s: Started): Promise<string[]> {
  return (await s.lines())
    .filter((l) => l['msg'] === 'flag has no effect here' && l['level'] === 'warn')
    .map((l) => [l['flag'], l['gate']].filter(Boolean).join(' '));
}

describe("upstream's Deployment arguments", () => {
  it('start catalogd (standard profile, e2e values): ready, TLS 1.3 only on metrics, pprof served, APIV1MetasHandler=false reported', async () => {
    const catalogd = await start('catalogd', UPSTREAM_CATALOGD_ARGS.standardE2e, `catalogd-${id}`);
    try {
      await ready(catalogd);
      expect(await notices(catalogd)).toEqual(['--feature-gates APIV1MetasHandler']);
      // --pprof-bind-address: a CPU profile of the process over ?seconds=1 answers within its second and a bound.
      const pprof = `http://127.0.0.1:${catalogd.pprof}/debug/pprof`;
      const began = Date.now();
      const cpu = await fetch(`${pprof}/profile?seconds=1`);
      const cpuProfile = (await cpu.json()) as { nodes: unknown[]; samples: unknown[] };
      expect(Date.now() - began).toBeLessThan(1_000 + 10_000);
      expect([cpu.status, cpu.headers.get('content-disposition')]).toEqual([200, 'attachment; filename="profile.cpuprofile"']);
      expect(cpuProfile.nodes.length).toBeGreaterThan(1);
      expect(cpuProfile.samples.length).toBeGreaterThan(0);
      const heap = await fetch(`${pprof}/heap`);
      expect([heap.status, heap.headers.get('content-disposition')]).toEqual([200, 'attachment; filename="heap.heapprofile"']);
      expect(((await heap.json()) as { samples: unknown[] }).samples.length).toBeGreaterThan(0);
      expect(await (await fetch(`${pprof}/`)).text()).toContain('href="heap"');
      expect(await gateStatus(catalogd, 'catalogd feature gate status')).toEqual({ APIV1MetasHandler: true, GraphQLCatalogQueries: false });
      // --tls-profile=custom --tls-custom-version=TLSv1.3: the metrics server refuses TLS 1.2.
      expect(await handshake(catalogd.metrics, cert.caPem)).toMatch(/^TLSv1\.3 TLS_AES_(128|256)_GCM_SHA(256|384)$/);
      expect(await handshake(catalogd.metrics, cert.caPem, { maxVersion: 'TLSv1.2' })).toMatch(/^ERR_SSL/);
    } finally {
      await catalogd.proc.stop();
    }
    expect(catalogd.proc.exitStatus()).toEqual({ code: 0, signal: null });
  });

  it('start operator-controller (standard profile, e2e values): ready, every gate taken, nothing reported, pprof served', async () => {
    const oc = await start('operator-controller', UPSTREAM_OPERATOR_CONTROLLER_ARGS.standardE2e, `operator-controller-${id}`);
    try {
      await ready(oc);
      expect(await notices(oc)).toEqual([]);
      const heap = await fetch(`http://127.0.0.1:${oc.pprof}/debug/pprof/heap`);
      expect(heap.status).toBe(200);
      expect(((await heap.json()) as { head: { children: unknown[] } }).head.children.length).toBeGreaterThan(0);
      // Each of the six --feature-gates occurrences counts.
      expect(await gateStatus(oc, 'feature gate status')).toEqual({
        BoxcutterRuntime: false,
        BundleReleaseSupport: false,
        DeploymentConfig: false,
        SingleOwnNamespaceInstallSupport: false,
        TenantExtensions: false,
        WebhookProviderCertManager: true,
        WebhookProviderOpenshiftServiceCA: false,
      });
      // --tls-profile=modern.
      expect(await handshake(oc.metrics, cert.caPem)).toMatch(/^TLSv1\.3 /);
      expect(await handshake(oc.metrics, cert.caPem, { maxVersion: 'TLSv1.2' })).toMatch(/^ERR_SSL/);
    } finally {
      await oc.proc.stop();
    }
    expect(oc.proc.exitStatus()).toEqual({ code: 0, signal: null });
  });

  it('start operator-controller (experimental profile, e2e values) with the Boxcutter runtime', async () => {
    const oc = await start('operator-controller', UPSTREAM_OPERATOR_CONTROLLER_ARGS.experimentalE2e, `operator-controller-experimental-${id}`);
    try {
      await ready(oc);
      expect(await notices(oc)).toEqual([]);
      expect(await gateStatus(oc, 'feature gate status')).toMatchObject({ BoxcutterRuntime: true });
    } finally {
      await oc.proc.stop();
    }
    expect(oc.proc.exitStatus()).toEqual({ code: 0, signal: null });
  });

  it('start catalogd (experimental profile, e2e values) with the GraphQL endpoint', async () => {
    const catalogd = await start('catalogd', UPSTREAM_CATALOGD_ARGS.experimentalE2e, `catalogd-experimental-${id}`);
    try {
      await ready(catalogd);
      expect(await notices(catalogd)).toEqual([]);
      expect(await gateStatus(catalogd, 'catalogd feature gate status')).toEqual({ APIV1MetasHandler: true, GraphQLCatalogQueries: true });
    } finally {
      await catalogd.proc.stop();
    }
    expect(catalogd.proc.exitStatus()).toEqual({ code: 0, signal: null });
  });

  it('start operator-controller with the experimental profile once BoxcutterRuntime is false', async () => {
    const args = UPSTREAM_OPERATOR_CONTROLLER_ARGS.experimental.map((a) => a.replace('BoxcutterRuntime=true', 'BoxcutterRuntime=false'));
    const oc = await start('operator-controller', args, `operator-controller-helm-${id}`);
    try {
      await ready(oc);
      expect(await notices(oc)).toEqual([]);
      expect(await gateStatus(oc, 'feature gate status')).toEqual({
        BoxcutterRuntime: false,
        BundleReleaseSupport: true,
        DeploymentConfig: true,
        SingleOwnNamespaceInstallSupport: true,
        TenantExtensions: false,
        WebhookProviderCertManager: true,
        WebhookProviderOpenshiftServiceCA: false,
      });
    } finally {
      await oc.proc.stop();
    }
  });

  it.each([
    ['operator-controller', 'version: "v'],
    ['catalogd', '"version: \\"v'],
  ] as const)("%s version prints upstream's version line", async (binary, prefix) => {
    const { stdout } = await promisify(execFile)(process.execPath, [MAIN[binary], 'version']);
    expect(stdout.startsWith(prefix)).toBe(true);
    expect(stdout).toMatch(/commit: \\?"unknown\\?", date: \\?"unknown\\?", state: \\?"unknown\\?"("?)\n$/);
  });
});
