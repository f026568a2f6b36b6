// Cluster-upgrade gating end to end (issue 20): real API server, registry, catalogd and
// operator-controller. Bundles declare olm.maxOpenShiftVersion in their CSV's olm.properties;
// the verdict is read from operator-controller's metrics, from `olmv1 status`, and, once the
// OpenShift CRDs of test/fixtures/openshift are installed, from the OLM `cluster` and
// ClusterOperator `olm` conditions the gate writes.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { isConflict, isNotFound, type KubeClient, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { waitUntil } from '../support/bundle-flow.ts';
import {
  bundleFiles,
  clusterExtension,
  installedAs,
  installerFor,
  packageCatalog,
  publishCatalog,
  pushBundle,
  startExtensionStack,
  waitForExtension,
  type BundleSpec,
  type ExtensionStack,
} from '../support/extensions.ts';
import { installOpenShiftKinds } from '../support/olm-config.ts';
import { readMetric } from '../support/operator-controller.ts';
import { createKubeconfigLookup } from '../../cmd/olmv1/cluster-access.ts';
import { runStatus } from '../../cmd/olmv1/status.ts';
import { StatusReport } from '../../pkg/olmv1/status/index.ts';

const exec = promisify(execFile);
const run = randomBytes(3).toString('hex');
const NS = `gate-${run}`;
const SA = 'installer';
const CE = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind };
const CV = { apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', name: 'version' };
const CO = { apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperator', name: 'olm' };
const OLM = { apiVersion: 'operator.openshift.io/v1', kind: 'OLM', name: 'cluster' };
const FIXTURES = fileURLToPath(new URL('../fixtures/openshift/', import.meta.url));

let stack: ExtensionStack;
let client: KubeClient;

const max = (value: unknown) => [{ type: 'olm.maxOpenShiftVersion', value }];
/** Package name -> its bundles (one catalog for all of them). */
const pkgName = (p: string) => `gate${run}${p}`;
const PACKAGES: Record<string, Array<Omit<BundleSpec, 'pkg'>>> = {
  none: [{ version: '1.0.0' }],
  a: [
    { version: '1.0.0', properties: max('4.18') },
    { version: '1.1.0', properties: max('4.19') },
  ],
  b: [{ version: '1.0.0', properties: max('5.0') }],
  two: [{ version: '1.0.0', properties: [...max('4.18'), ...max('4.19')] }],
  full: [{ version: '1.0.0', properties: max('4.18.0') }],
  vee: [{ version: '1.0.0', properties: max('v4.18') }],
  rc: [{ version: '1.0.0', properties: max('4.18-rc') }],
  bool: [{ version: '1.0.0', properties: max(true) }],
  nul: [{ version: '1.0.0', properties: max(null) }],
  int: [{ version: '1.0.0', properties: max(4) }],
};
/** Packages whose olm.maxOpenShiftVersion is malformed, or given twice. */
const BROKEN = ['two', 'full', 'vee', 'rc', 'bool', 'nul', 'int'];
const specs = (p: string): BundleSpec[] => (PACKAGES[p] ?? []).map((b) => ({ ...b, pkg: pkgName(p) }));

/** Runs `olmv1 status` in this process against the test cluster; `-o json` output is checked against the schema. */
async function runGateStatus(s: ExtensionStack, args: string[]): Promise<{ code: number; stdout: string; stderr: string; report: StatusReport }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) } };
  const deps = {
    kubeconfig: createKubeconfigLookup({ KUBECONFIG: s.cp.kubeconfigPath }, process.cwd()),
    isTTY: false,
    columns: undefined,
    noColor: true,
  };
  const code = await runStatus(args, io, deps);
  // OLMV1_GATING_PRINT=1 shows what a user sees (the README walkthrough is taken from it).
  if (process.env.OLMV1_GATING_PRINT === '1') process.stderr.write(`\n$ olmv1 status ${args.join(' ')}\n${stdout}${stderr}(exit ${code})\n`);
  let json = '';
  const jsonIo = { stdout: { write: (t: string) => (json += t) }, stderr: io.stderr };
  const jsonCode = await runStatus([...args, '-o', 'json'], jsonIo, deps);
  expect(jsonCode).toBe(code);
  return { code, stdout, stderr, report: StatusReport.parse(JSON.parse(json)) };
}

async function metric(name: string): Promise<string | undefined> {
  const text = await (await fetch(`${stack.controller.healthUrl}/metrics`)).text();
  if (process.env.OLMV1_GATING_PRINT === '1')
    process.stderr.write(
      `\n$ curl -s .../metrics | grep olmv1_cluster_upgrade\n${text
        .split('\n')
        .filter((l) => l.startsWith('olmv1_cluster_upgrade'))
        .join('\n')}\n`,
    );
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
  return line?.replace(/^\S+\s+/, '') === undefined ? undefined : line;
}

/**
 * Installs package `p` at `version` (a pinned version), or moves its extension there, and
 * waits until that bundle is installed. Each test states the extensions it needs this way, so
 * that it runs alone as well as after the tests before it (for which this changes nothing).
 */
async function install(p: string, version: string): Promise<void> {
  const name = pkgName(p);
  const exists = await client.get({ ...CE, name }).then(
    () => true,
    (err: unknown) => (isNotFound(err) ? false : Promise.reject(err)),
  );
  if (exists) await client.patch({ ...CE, name }, { spec: { source: { catalog: { version } } } }, 'merge');
  else await client.create(clusterExtension(name, { namespace: NS, serviceAccount: SA, packageName: name, version }));
  await waitForExtension(client, name, `installed ${version}`, installedAs(`${name}.v${version}`), 90_000);
}

async function conditions(ref: { apiVersion: string; kind: string; name: string }): Promise<Array<Record<string, string>>> {
  const obj = await client.get(ref);
  return ((obj.status as { conditions?: Array<Record<string, string>> } | undefined)?.conditions ?? []).map(({ lastTransitionTime: _t, ...c }) => c);
}

/** Our condition on the OLM `cluster` object. */
async function ours(): Promise<Record<string, string> | undefined> {
  return (await conditions(OLM)).find((c) => c.type === 'InstalledOLMOperatorsUpgradeable');
}

async function setClusterVersion(version: string): Promise<void> {
  await writeStatus(CV, (status) => ({ ...status, desired: { version } }));
}

/**
 * Writes `ref`'s status as another controller would: read, change, write, and again from the
 * read when the write conflicts (operator-controller's gate writes the same objects' status as
 * soon as they appear).
 */
async function writeStatus(
  ref: { apiVersion: string; kind: string; name: string },
  change: (status: Record<string, unknown>) => object,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const obj = await client.get(ref);
    try {
      await client.updateStatus({ ...obj, status: change((obj.status ?? {}) as Record<string, unknown>) });
      return;
    } catch (err) {
      if (!isConflict(err) || attempt === 10) throw err;
    }
  }
}

/** Sets `conditions` (by type) ahead of the conditions of other types already there. */
function withConditions(conditions: Array<Record<string, string>>, more: object = {}): (status: Record<string, unknown>) => object {
  return (status) => {
    const types = new Set(conditions.map((c) => c.type));
    const others = ((status.conditions ?? []) as Array<Record<string, string>>).filter((c) => !types.has(c.type ?? ''));
    return { ...status, ...more, conditions: [...conditions, ...others] };
  };
}

const OLM_OTHERS = [
  { type: 'CatalogdStaticResourcesUpgradeable', status: 'True', reason: 'AsExpected', message: '' },
  { type: 'Available', status: 'True', reason: 'AsExpected', message: 'set by another controller' },
];
const upgradeable = (status: string, reason: string, message: string) => [
  ...OLM_OTHERS,
  { type: 'InstalledOLMOperatorsUpgradeable', status, reason, message },
];

beforeAll(async () => {
  stack = await startExtensionStack(inject('envtestControlPlane'), inject('envtestRegistries').anonymous.host, {
    controller: { clusterVersion: { major: 4n, minor: 18n } },
  });
  client = stack.kube.client;
  const files: Record<string, string> = {};
  const all: BundleSpec[] = [];
  for (const p of Object.keys(PACKAGES)) {
    const bundles: Array<{ version: string; image: string }> = [];
    for (const s of specs(p)) {
      bundles.push({ version: s.version, image: await pushBundle(bundleFiles(s), `${stack.registry}/bundles/${s.pkg}:v${s.version}`) });
      all.push(s);
    }
    Object.assign(
      files,
      packageCatalog(pkgName(p), {
        defaultChannel: 'stable',
        channels: [
          { name: 'stable', entries: bundles.map((b, i) => ({ version: b.version, ...(i === 0 ? {} : { replaces: bundles[i - 1]?.version }) })) },
        ],
        bundles,
      }),
    );
  }
  await publishCatalog(stack, `gate-${run}`, files);
  await installerFor(client, NS, SA, all);
});

afterAll(async () => {
  if (client !== undefined) {
    for (const p of Object.keys(PACKAGES)) await client.delete({ ...CE, name: pkgName(p) }).catch(() => undefined);
    await waitUntil(
      'gating extensions are gone',
      async () => {
        for (const p of Object.keys(PACKAGES)) {
          const gone = await client.get({ ...CE, name: pkgName(p) }).then(
            () => false,
            (err: unknown) => isNotFound(err),
          );
          if (!gone) return false;
        }
        return true;
      },
      120_000,
    ).catch(() => undefined);
    const kubectl = (...args: string[]) => exec(stack.cp.kubectl, ['--kubeconfig', stack.cp.kubeconfigPath, ...args]);
    await kubectl('delete', '--ignore-not-found', '-f', FIXTURES).catch(() => undefined);
  }
  await stack?.stop();
});

describe('without the OpenShift APIs (--cluster-version 4.18)', () => {
  it('an extension without the property allows the upgrade: metrics and olmv1 status agree', async () => {
    await install('none', '1.0.0');
    await waitUntil(
      'upgradeable metric is 1',
      async () => (await metric('olmv1_cluster_upgradeable')) === 'olmv1_cluster_upgradeable{next="4.19"} 1',
    );
    expect(await metric('olmv1_cluster_upgrade_blockers')).toBe('olmv1_cluster_upgrade_blockers{next="4.19"} 0');
    const status = await runGateStatus(stack, ['--cluster-version', '4.18']);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('cluster upgrade to 4.19: allowed');
  });

  it('a maximum of 4.18 on a 4.18 cluster blocks; metrics and olmv1 status name the bundle', async () => {
    await install('a', '1.0.0');
    await waitUntil(
      'upgradeable metric is 0',
      async () => (await metric('olmv1_cluster_upgradeable')) === 'olmv1_cluster_upgradeable{next="4.19"} 0',
    );
    expect(await metric('olmv1_cluster_upgrade_blockers')).toBe('olmv1_cluster_upgrade_blockers{next="4.19"} 1');
    const status = await runGateStatus(stack, ['--cluster-version', '4.18']);
    expect(status.code).toBe(1);
    expect(status.stdout).toContain('cluster upgrade to 4.19: blocked by');
    expect(status.stdout).toContain(`${pkgName('a')}: bundle ${pkgName('a')}.v1.0.0 declares olm.maxOpenShiftVersion 4.18`);
    const earlier = await runGateStatus(stack, ['--cluster-version', '4.17']);
    expect(earlier.code).toBe(0);
    expect(earlier.stdout).toContain('cluster upgrade to 4.18: allowed');
  });

  it('schedules no periodic re-evaluation: it would only ask discovery for APIs its CRD watch says are absent', async () => {
    const gate = { controller: 'upgrade-gate' };
    expect(await readMetric(stack.controller.healthUrl, 'controller_runtime_reconcile_total', { ...gate, result: 'success' })).toBeGreaterThan(0);
    expect(await readMetric(stack.controller.healthUrl, 'controller_runtime_reconcile_total', { ...gate, result: 'requeue_after' })).toBe(0);
  });
});

describe('with the OpenShift APIs, installed while operator-controller runs', () => {
  beforeAll(async () => {
    // operator-controller keeps running (with --cluster-version 4.18): its gate watches the
    // OpenShift CRDs and notices them appearing, with no restart and no discovery poll.
    await installOpenShiftKinds(stack.cp, client);
    await client.create({ apiVersion: OLM.apiVersion, kind: OLM.kind, metadata: { name: 'cluster' }, spec: { managementState: 'Managed' } });
    const t = '2026-01-01T00:00:00Z';
    // Conditions of other controllers: kept as they are, and the True *Upgradeable one joins the union.
    await writeStatus(OLM, withConditions(OLM_OTHERS.map((c) => ({ ...c, lastTransitionTime: t }))));
    await client.create({ apiVersion: CO.apiVersion, kind: CO.kind, metadata: { name: 'olm' }, spec: {} });
    await writeStatus(
      CO,
      withConditions(
        [
          { type: 'Available', status: 'True', lastTransitionTime: t, reason: 'AsExpected', message: 'from the cluster-olm-operator' },
          { type: 'Degraded', status: 'False', lastTransitionTime: t, reason: 'AsExpected', message: '' },
        ],
        { versions: [{ name: 'operator', version: '4.17.5' }] },
      ),
    );
    // The ClusterVersion's desired version, set last, takes over from --cluster-version.
    await setClusterVersion('4.17.5');
  });

  it('4.17 and a maximum of 4.18: Upgradeable, other ClusterOperator conditions untouched', async () => {
    await install('a', '1.0.0');
    // Well within the gate's 60 s resync: the CRD and ClusterVersion watches brought the change.
    await waitUntil(
      'OLM condition is True',
      async () => (await conditions(OLM)).some((c) => c.type === 'InstalledOLMOperatorsUpgradeable' && c.status === 'True'),
      30_000,
    );
    expect(await conditions(OLM)).toEqual(upgradeable('True', '', ''));
    await waitUntil('ClusterOperator Upgradeable', async () => (await conditions(CO)).some((c) => c.type === 'Upgradeable'));
    expect(await conditions(CO)).toEqual([
      { type: 'Available', status: 'True', reason: 'AsExpected', message: 'from the cluster-olm-operator' },
      { type: 'Degraded', status: 'False', reason: 'AsExpected', message: '' },
      { type: 'Upgradeable', status: 'True', reason: 'AsExpected', message: '' },
    ]);
    expect(await metric('olmv1_cluster_upgradeable')).toBe('olmv1_cluster_upgradeable{next="4.18"} 1');
  });

  it('the cluster moving to 4.18 blocks with the exact messages', async () => {
    await install('a', '1.0.0');
    await setClusterVersion('4.18.0');
    const message = `Found ClusterExtensions that require upgrades prior to upgrading cluster to version 4.19: bundle "${pkgName('a')}.v1.0.0" for ClusterExtension "${pkgName('a')}".`;
    await waitUntil('OLM condition is False', async () => (await ours())?.status === 'False');
    expect(await conditions(OLM)).toEqual(upgradeable('False', 'IncompatibleOperatorsInstalled', message));
    await waitUntil('ClusterOperator Upgradeable False', async () =>
      (await conditions(CO)).some((c) => c.type === 'Upgradeable' && c.status === 'False'),
    );
    expect(await conditions(CO)).toEqual([
      { type: 'Available', status: 'True', reason: 'AsExpected', message: 'from the cluster-olm-operator' },
      { type: 'Degraded', status: 'False', reason: 'AsExpected', message: '' },
      {
        type: 'Upgradeable',
        status: 'False',
        reason: 'InstalledOLMOperators_IncompatibleOperatorsInstalled',
        message: `InstalledOLMOperatorsUpgradeable: ${message}`,
      },
    ]);
    const co = await client.get(CO);
    expect((co.status as { versions?: unknown }).versions).toEqual([{ name: 'operator', version: '4.17.5' }]);
    const status = await runGateStatus(stack, []);
    expect(status.code).toBe(1);
    expect(status.stdout).toContain('cluster upgrade to 4.19: blocked by');
  });

  it('upgrading the extension to a compatible bundle clears the block within seconds', async () => {
    await install('a', '1.0.0');
    await setClusterVersion('4.18.0');
    await waitUntil('OLM condition is False', async () => (await ours())?.status === 'False');
    const name = pkgName('a');
    const obj = await client.get({ ...CE, name });
    await client.update({
      ...obj,
      spec: {
        ...(obj.spec as object),
        source: { sourceType: 'Catalog', catalog: { ...(obj.spec as { source: { catalog: object } }).source.catalog, version: '1.1.0' } },
      },
    } as KubeObject);
    await waitForExtension(client, name, 'installed 1.1.0', installedAs(`${name}.v1.1.0`), 90_000);
    // Within seconds of the install: the gate reacts to the extension's change (no resync period).
    await waitUntil('OLM condition is True again', async () => (await ours())?.status === 'True', 10_000);
    expect(await conditions(OLM)).toEqual(upgradeable('True', '', ''));
    await waitUntil(
      'ClusterOperator Upgradeable True',
      async () => (await conditions(CO)).some((c) => c.type === 'Upgradeable' && c.status === 'True'),
      10_000,
    );
    expect(await metric('olmv1_cluster_upgradeable')).toBe('olmv1_cluster_upgradeable{next="4.19"} 1');
  });

  it('a 4.23 cluster and a maximum of 5.0 block the upgrade to 5.1', async () => {
    await install('a', '1.1.0');
    await install('b', '1.0.0');
    await setClusterVersion('4.23.2');
    const message =
      'Found ClusterExtensions that require upgrades prior to upgrading cluster to version 5.1: ' +
      `bundle "${pkgName('a')}.v1.1.0" for ClusterExtension "${pkgName('a')}",bundle "${pkgName('b')}.v1.0.0" for ClusterExtension "${pkgName('b')}".`;
    await waitUntil('OLM condition names both', async () => (await conditions(OLM)).some((c) => c.message === message));
    expect(await conditions(OLM)).toEqual(upgradeable('False', 'IncompatibleOperatorsInstalled', message));
    expect(await metric('olmv1_cluster_upgrade_blockers')).toBe('olmv1_cluster_upgrade_blockers{next="5.1"} 2');
  });

  it('two properties and each malformed form are metadata errors with their texts, not blockers', async () => {
    await install('a', '1.1.0');
    await install('b', '1.0.0');
    await setClusterVersion('4.23.2');
    await Promise.all(BROKEN.map((p) => install(p, '1.0.0')));
    const err = (p: string, text: string) => `error(s) with cluster extension ${pkgName(p)}: error in bundle ${pkgName(p)}.v1.0.0: ${text}`;
    const errors = [
      err('bool', 'error converting to semver for version true: invalid type bool for olm.maxOpenshiftVersion: true'),
      err('full', 'error converting to semver for version "4.18.0": invalid version format'),
      err('int', 'error converting to semver for version 4: invalid semver format "4": expected <major>.<minor>'),
      err('nul', 'error converting to semver for version null: invalid type <nil> for olm.maxOpenshiftVersion: null'),
      err('rc', 'error converting to semver for version "4.18-rc": short version cannot contain PreRelease/Build meta data'),
      err('two', 'more than one olm.maxOpenShiftVersion found in bundle'),
      err('vee', 'error converting to semver for version "v4.18": invalid version format'),
    ];
    const blocked =
      'Found ClusterExtensions that require upgrades prior to upgrading cluster to version 5.1: ' +
      `bundle "${pkgName('a')}.v1.1.0" for ClusterExtension "${pkgName('a')}",bundle "${pkgName('b')}.v1.0.0" for ClusterExtension "${pkgName('b')}".`;
    const message = `${blocked}\n Additionally the following errors were encountered while getting extension metadata: ${errors.join('\n')}`;
    await waitUntil('OLM condition lists the errors', async () => (await conditions(OLM)).some((c) => c.message === message), 30_000).catch(
      async (e: unknown) => {
        throw new Error(`${(e as Error).message}: ${JSON.stringify(await conditions(OLM))}`);
      },
    );
    expect(await metric('olmv1_cluster_upgrade_metadata_errors')).toBe('olmv1_cluster_upgrade_metadata_errors{next="5.1"} 7');

    // Back on 4.18 only the errors remain: FailureGettingExtensionMetadata, still not upgradeable.
    await setClusterVersion('4.18.1');
    await waitUntil('errors alone', async () => (await conditions(OLM)).some((c) => c.reason === 'FailureGettingExtensionMetadata'));
    expect(await conditions(OLM)).toEqual(upgradeable('False', 'FailureGettingExtensionMetadata', errors.join('\n')));
    // The ClusterOperator is written right after the OLM object, in the same evaluation.
    await waitUntil('ClusterOperator follows', async () =>
      (await conditions(CO)).some((c) => c.reason === 'InstalledOLMOperators_FailureGettingExtensionMetadata'),
    );
    const co = (await conditions(CO)).find((c) => c.type === 'Upgradeable');
    expect(co).toEqual({
      type: 'Upgradeable',
      status: 'False',
      reason: 'InstalledOLMOperators_FailureGettingExtensionMetadata',
      message: errors.map((e) => `InstalledOLMOperatorsUpgradeable: ${e}`).join('\n'),
    });
    const status = await runGateStatus(stack, []);
    expect(status.code).toBe(1);
  });

  it('--watch redraws when the verdict changes and exits with the last verdict', async () => {
    // On 4.18 with the metadata errors of the test above, which leave the verdict undecided.
    for (const p of ['a', 'b', ...BROKEN]) await install(p, p === 'a' ? '1.1.0' : '1.0.0');
    await setClusterVersion('4.18.1');
    await waitUntil('errors alone', async () => (await conditions(OLM)).some((c) => c.reason === 'FailureGettingExtensionMetadata'));
    let out = '';
    const stop = new AbortController();
    const io = { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (out += t) } };
    const watching = runStatus(['--watch', '--interval', '0.2', '-o', 'json'], io, {
      kubeconfig: createKubeconfigLookup({ KUBECONFIG: stack.cp.kubeconfigPath }, process.cwd()),
      isTTY: false,
      columns: undefined,
      noColor: true,
      signal: stop.signal,
    });
    await waitUntil('first report', async () => out.includes('"schemaVersion"'));
    expect(out).not.toContain('---');
    await setClusterVersion('4.17.9');
    await waitUntil('redrawn', async () => out.includes('---\n'));
    stop.abort();
    expect(await watching).toBe(1); // the metadata errors still leave it undecided
    const docs = out.split('---\n').map((d) => StatusReport.parse(JSON.parse(d)));
    expect(docs[0]?.cluster.currentVersion).toBe('4.18');
    expect(docs.at(-1)?.cluster.currentVersion).toBe('4.17');
  });

  it('notices the APIs going: the verdict falls back to --cluster-version', async () => {
    const kubectl = (...args: string[]) => exec(stack.cp.kubectl, ['--kubeconfig', stack.cp.kubeconfigPath, ...args]);
    await setClusterVersion('4.17.9');
    await waitUntil(
      'judged against 4.17',
      async () => (await metric('olmv1_cluster_upgradeable'))?.startsWith('olmv1_cluster_upgradeable{next="4.18"}') === true,
    );
    await kubectl('delete', '--wait=true', '-f', FIXTURES);
    // Within the resync period: the CRD watch and the ClusterVersion informer's delete bring it.
    await waitUntil(
      'judged against --cluster-version 4.18',
      async () => (await metric('olmv1_cluster_upgradeable'))?.startsWith('olmv1_cluster_upgradeable{next="4.19"}') === true,
      30_000,
    );
  });
});
