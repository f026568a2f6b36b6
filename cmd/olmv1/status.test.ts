import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { KubeContext, KubeObject } from '../../pkg/shared/kube/index.ts';
import { testTempDir } from '../../test/support/temp-dir.ts';
import { createKubeconfigLookup } from './cluster-access.ts';
import {
  STATUS_EXIT,
  STATUS_SCHEMA_VERSION,
  StatusReport,
  buildStatusReport,
  statusExitCode,
  type StatusInput,
} from '../../pkg/olmv1/status/index.ts';
import { renderStatusTable } from './status-table.ts';
import { runStatus } from './status.ts';
import { fakeCluster, type FakeCluster } from '../../test/support/fake-cluster.ts';
import { clusterExtension, objectSet, objectSetHistory, seedHelmHistory } from '../../test/support/revision-fixtures.ts';

const fixture = (name: string): string => readFileSync(new URL(`../../test/fixtures/olmv1-status/${name}`, import.meta.url), 'utf8');

const catalog: KubeObject = {
  apiVersion: 'olm.operatorframework.io/v1',
  kind: 'ClusterCatalog',
  metadata: { name: 'operatorhubio' },
  spec: { priority: 10, source: { type: 'Image', image: { ref: 'quay.io/operatorhubio/catalog:latest' } } },
  status: {
    conditions: [{ type: 'Serving', status: 'True', reason: 'Available', message: '' }],
    resolvedSource: {
      type: 'Image',
      image: { ref: 'quay.io/operatorhubio/catalog@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef' },
    },
    lastUnpacked: '2026-11-23T18:00:00Z',
    urls: { base: 'https://catalogd-service.olmv1-system.svc/catalogs/operatorhubio' },
  },
};

function extension(name: string, version: string, conditions: object[], catalogSpec: object = {}): KubeObject {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name },
    spec: {
      namespace: name,
      serviceAccount: { name: 'installer' },
      source: { sourceType: 'Catalog', catalog: { packageName: name, ...catalogSpec } },
    },
    status: { conditions, install: { bundle: { name: `${name}.v${version}`, version } } },
  };
}

const ok = [
  { type: 'Installed', status: 'True', reason: 'Succeeded' },
  { type: 'Progressing', status: 'True', reason: 'Succeeded' },
];
const max = (value: unknown) => [{ type: 'olm.maxOpenShiftVersion', value }];

// One of each: allowed (no property), compatible, blocking, deprecated, a metadata error, nothing deployed.
const input: StatusInput = {
  version: { ok: true, current: { major: 4n, minor: 18n }, source: 'flag' },
  catalogs: [catalog],
  extensions: [
    extension(
      'zeta',
      '2.0.0',
      [...ok, { type: 'Deprecated', status: 'True', reason: 'Deprecated' }, { type: 'BundleDeprecated', status: 'True', reason: 'Deprecated' }],
      { channels: ['stable'] },
    ),
    extension('alpha', '1.0.0', [...ok, { type: 'Healthy', status: 'True', reason: 'Healthy' }], { version: '>=1.0.0 <2' }),
    extension('beta', '1.2.0', [...ok, { type: 'Healthy', status: 'False', reason: 'Unhealthy' }]),
    extension('broken', '0.1.0', ok),
    {
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterExtension',
      metadata: { name: 'pending' },
      spec: { source: { catalog: { packageName: 'pending' } } },
      status: { conditions: [{ type: 'Progressing', status: 'True', reason: 'Retrying' }] },
    },
  ],
  deployed: new Map([
    ['zeta', { extension: 'zeta', bundle: 'zeta.v2.0.0', properties: [] }],
    ['alpha', { extension: 'alpha', bundle: 'alpha.v1.0.0', properties: max('4.18') }],
    ['beta', { extension: 'beta', bundle: 'beta.v1.2.0', properties: max(4.19) }],
    ['broken', { extension: 'broken', bundle: 'broken.v0.1.0', properties: max('v4.20') }],
  ]),
  unreadable: [],
};

describe('olmv1 status report', () => {
  it('-o json is the documented schema: the fixture, field for field', () => {
    const report = buildStatusReport(input);
    expect(StatusReport.parse(report)).toEqual(report);
    expect(report.schemaVersion).toBe(STATUS_SCHEMA_VERSION);
    expect(`${JSON.stringify(report, null, 2)}\n`).toBe(fixture('blocked.json'));
  });

  it('healthy was added within schema version 1: documents of earlier builds, without it, still parse', () => {
    const report = buildStatusReport(input);
    const earlier = { ...report, extensions: report.extensions.map(({ healthy: _h, ...e }) => e) };
    expect(StatusReport.parse(earlier).extensions.map((e) => e.healthy)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(report.extensions.map((e) => e.healthy?.reason ?? null)).toEqual(['Healthy', 'Unhealthy', null, null, null]);
  });

  it("a failing resolution shows the ResolutionFailed Event's lines after upstream's message, only while the condition still says it", () => {
    const upstream = 'error upgrading from currently installed version "1.0.0": no bundles found for package "pending" matching version "9.0.0"';
    const failing = extension('pending', '1.0.0', [
      { type: 'Installed', status: 'True', reason: 'Succeeded', message: 'Installed bundle x successfully' },
      { type: 'Progressing', status: 'True', reason: 'Retrying', message: upstream },
    ]);
    const event = (name: string, note: string, at: string, reason = 'ResolutionFailed'): KubeObject => ({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: `pending.${name}`, namespace: 'default', creationTimestamp: at },
      regarding: { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension', name: 'pending' },
      reason,
      type: 'Warning',
      note,
    });
    const events = [
      event('old', 'no bundles found for package "pending" matching version "8.0.0"\nversions: 1.0.0', '2026-11-25T10:00:00Z'),
      event('new', `${upstream}\nversions: 1.1.0, 1.0.0\nsuccessors of the installed version "1.0.0": 1.1.0`, '2026-11-25T11:00:00Z'),
    ];
    const report = buildStatusReport({ ...input, extensions: [failing], adviceEvents: events });
    expect(StatusReport.parse(report)).toEqual(report);
    expect(report.extensions[0]?.resolution).toEqual({
      message: upstream,
      hints: ['versions: 1.1.0, 1.0.0', 'successors of the installed version "1.0.0": 1.1.0'],
    });
    expect(renderStatusTable(report, { color: false })).toContain(
      `\npending: ${upstream}\n  versions: 1.1.0, 1.0.0\n  successors of the installed version "1.0.0": 1.1.0\n`,
    );
    // An Event of an earlier failure, or one about another extension, adds nothing.
    const stale = buildStatusReport({ ...input, extensions: [failing], adviceEvents: [events[0]!] });
    expect(stale.extensions[0]?.resolution).toBeUndefined();
    expect(buildStatusReport(input).extensions.map((e) => e.resolution)).toEqual([undefined, undefined, undefined, undefined, undefined]);

    // Missing permissions: the condition is upstream's list alone; the Event's lines say how to grant them.
    const denied = `error for resolved bundle "pending.v1.1.0" with version "1.1.0": pre-authorization failed: service account requires the following permissions to manage cluster extension:`;
    const waiting = extension('pending', '1.0.0', [
      { type: 'Installed', status: 'True', reason: 'Succeeded', message: 'Installed bundle x successfully' },
      {
        type: 'Progressing',
        status: 'True',
        reason: 'Retrying',
        message: `${denied}\n  Namespace:"ns" APIGroups:[] Resources:[configmaps] Verbs:[list,watch]`,
      },
    ]);
    const grant = 'grant them with the RBAC printed by: olmv1 rbac img --install-namespace ns --service-account sa';
    const advised = buildStatusReport({
      ...input,
      extensions: [waiting],
      adviceEvents: [
        ...events,
        event('denied', `${denied}\nService account ns/sa lacks 1 permission(s).\n${grant}`, '2026-11-25T12:00:00Z', 'PreAuthorizationFailed'),
      ],
    });
    expect(StatusReport.parse(advised)).toEqual(advised);
    expect(advised.extensions[0]?.resolution).toBeUndefined();
    expect(advised.extensions[0]?.advice).toEqual({
      reason: 'PreAuthorizationFailed',
      message: denied,
      hints: ['Service account ns/sa lacks 1 permission(s).', grant],
    });
    expect(renderStatusTable(advised, { color: false })).toContain(
      `\npending: ${denied}\n  Service account ns/sa lacks 1 permission(s).\n  ${grant}\n`,
    );
  });

  it('the table: catalogs, extensions, verdict with one line per blocker, errors apart; no colour unless asked', () => {
    const text = renderStatusTable(buildStatusReport(input), { color: false });
    expect(text).toBe(fixture('blocked.txt'));
    expect(text).not.toContain('\x1b[');
    expect(renderStatusTable(buildStatusReport(input), { color: true })).toContain('\x1b[31mcluster upgrade to 4.19: blocked by\x1b[0m');
  });

  it('fits the terminal width when one is given', () => {
    const lines = renderStatusTable(buildStatusReport(input), { color: false, columns: 40 }).trimEnd().split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(40);
  });

  it('allowed and undecided verdicts', () => {
    const at417 = { ok: true, current: { major: 4n, minor: 17n }, source: 'flag' } as const;
    const allowed = buildStatusReport({
      ...input,
      version: at417,
      deployed: new Map([...input.deployed].filter(([k]) => k !== 'broken')),
    });
    expect(allowed.verdict).toEqual({ upgradeable: true, blockers: [], metadataErrors: [] });
    expect(statusExitCode(allowed)).toBe(STATUS_EXIT.allowed);
    expect(renderStatusTable(allowed, { color: false })).toContain('cluster upgrade to 4.18: allowed (current 4.17, from --cluster-version)\n');
    const undecided = buildStatusReport({ ...input, version: at417 });
    expect(undecided.verdict.upgradeable).toBe(false);
    expect(renderStatusTable(undecided, { color: false })).toContain('cluster upgrade to 4.18: undecided');
    expect(statusExitCode(undecided)).toBe(STATUS_EXIT.blocked);
    expect(statusExitCode(buildStatusReport(input))).toBe(STATUS_EXIT.blocked);
  });

  it('without a cluster version: the whole report, the gate line saying why it cannot judge and how to, exit 3', () => {
    const why = 'the cluster serves no config.openshift.io/v1 ClusterVersion API (it is not OpenShift)';
    const report = buildStatusReport({ ...input, version: { ok: false, error: why } });
    expect(StatusReport.parse(report)).toEqual(report);
    expect(report.cluster).toEqual({ currentVersion: null, versionSource: null, nextVersion: null, versionError: why });
    // Everything that does not depend on the version is there: catalogs, extensions, maxima, metadata errors.
    expect(report.catalogs.map((c) => c.name)).toEqual(['operatorhubio']);
    expect(report.extensions.map((e) => [e.name, e.maxOpenShiftVersion])).toEqual([
      ['alpha', '4.18'],
      ['beta', '4.19'],
      ['broken', null],
      ['pending', null],
      ['zeta', null],
    ]);
    expect(report.verdict).toEqual({ upgradeable: false, blockers: [], metadataErrors: [expect.stringContaining('broken.v0.1.0')] });
    expect(statusExitCode(report)).toBe(STATUS_EXIT.undecidable);
    const text = renderStatusTable(report, { color: false });
    expect(text).toContain(
      [
        'cluster upgrade: cannot judge, no cluster version',
        `  ${why}`,
        "  pass --cluster-version X.Y (the cluster's current version) to judge the next minor upgrade",
        'metadata errors:',
      ].join('\n'),
    );
    expect(text).toContain('EXTENSIONS\nNAME ');
  });
});

describe('olmv1 status without a cluster version', () => {
  const why = 'the cluster serves no config.openshift.io/v1 ClusterVersion API (it is not OpenShift)';
  it('is allowed, exit 0, when no installed bundle declares olm.maxOpenShiftVersion', () => {
    const none = new Map([...input.deployed].filter(([k]) => k === 'zeta'));
    const report = buildStatusReport({ ...input, deployed: none, version: { ok: false, error: why } });
    expect(report.extensions.every((e) => e.maxOpenShiftVersion === null)).toBe(true);
    expect(report.verdict).toEqual({ upgradeable: true, blockers: [], metadataErrors: [] });
    expect(report.cluster.currentVersion).toBeNull();
    expect(statusExitCode(report)).toBe(STATUS_EXIT.allowed);
    expect(renderStatusTable(report, { color: false })).toContain(
      ['cluster upgrade: allowed, whatever the cluster version', '  no installed extension declares olm.maxOpenShiftVersion', `  (${why})`].join(
        '\n',
      ),
    );
  });

  it('stays undecidable, exit 3, when one declares a maximum', () => {
    const declared = new Map([...input.deployed].filter(([k]) => k === 'alpha' || k === 'zeta'));
    const report = buildStatusReport({ ...input, deployed: declared, version: { ok: false, error: why } });
    expect(report.verdict).toEqual({ upgradeable: false, blockers: [], metadataErrors: [] });
    expect(statusExitCode(report)).toBe(STATUS_EXIT.undecidable);
    expect(renderStatusTable(report, { color: false })).toContain('cluster upgrade: cannot judge, no cluster version');
  });
});

describe('olmv1 status usage', () => {
  const io = () => {
    const out = { stdout: '', stderr: '' };
    return { out, io: { stdout: { write: (s: string) => (out.stdout += s) }, stderr: { write: (s: string) => (out.stderr += s) } } };
  };
  // A lookup that finds no kubeconfig at all: nothing in an empty directory, no HOME.
  const deps = {
    kubeconfig: createKubeconfigLookup({ KUBECONFIG: '/nonexistent/kubeconfig' }, '/nonexistent'),
    isTTY: false,
    columns: undefined,
    noColor: true,
  };

  it.each([[['-o', 'xml']], [['--cluster-version', '4']], [['--bogus']]])('%j exits 2', async (args) => {
    const { out, io: cio } = io();
    expect(await runStatus(args, cio, deps)).toBe(2);
    expect(out.stderr).toContain('Usage: olmv1 status');
  });

  it('no kubeconfig exits 2 and says where it looked', async () => {
    const { out, io: cio } = io();
    expect(await runStatus(['--cluster-version', '4.18'], cio, deps)).toBe(2);
    expect(out.stderr).toContain('no kubeconfig found: none of the files in $KUBECONFIG exists (/nonexistent/kubeconfig)');
    expect(out.stdout).toBe('');
  });

  it('an unreachable cluster exits 2', async () => {
    const dir = await testTempDir('status-unreachable-');
    const path = join(dir, 'config');
    await writeFile(
      path,
      'current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\nclusters: [{name: k, cluster: {server: "http://127.0.0.1:1"}}]\n',
    );
    const { out, io: cio } = io();
    expect(await runStatus(['--kubeconfig', path], cio, deps)).toBe(2);
    expect(out.stderr).toContain('127.0.0.1:1');
    expect(out.stdout).toBe('');
  });
});

describe('olmv1 status on a cluster with ClusterObjectSets (BoxcutterRuntime)', () => {
  async function on(cluster: FakeCluster, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const out = { stdout: '', stderr: '' };
    const io = { stdout: { write: (s: string) => (out.stdout += s) }, stderr: { write: (s: string) => (out.stderr += s) } };
    const code = await runStatus(['--cluster-version', '4.18', '--kubernetes-version', '1.33', ...args], io, {
      kubeconfig: createKubeconfigLookup({ KUBECONFIG: '/nonexistent/kubeconfig' }, '/nonexistent'),
      isTTY: false,
      columns: undefined,
      noColor: true,
      // --kubernetes-version is given: the API server's /version is never read.
      connect: () => Promise.resolve({ client: cluster.client, transport: {} as KubeContext['transport'], close: () => undefined }),
    });
    return { code, ...out };
  }
  const installed = (name: string): KubeObject => ({
    ...clusterExtension(name),
    status: {
      conditions: ok,
      install: { bundle: { name: 'demo.v1.1.0', version: '1.1.0' } },
    },
  });
  // The extensions table header before ClusterObjectSets were read.
  const HELM_TABLE = [
    'EXTENSIONS',
    'NAME   PACKAGE  INSTALLED  CHANNELS/VERSION  INSTALLED?        PROGRESSING       HEALTH  DEPRECATED  MAX OCP',
    'helmy  demo     1.1.0      -                 True (Succeeded)  True (Succeeded)  -       -           -',
    '',
  ].join('\n');

  it('reads the deployed revision from the ClusterObjectSets and shows its name, state, Available and Progressing', async () => {
    const cluster = fakeCluster();
    cluster.seed(installed('boxy'));
    cluster.seed(installed('helmy'));
    for (const set of [...objectSetHistory('boxy'), objectSet('boxy', 3, '1.2.0', 'rolling-out')]) cluster.seed(set);
    await seedHelmHistory(cluster.client, 'helmy');
    const json = await on(cluster, '-o', 'json');
    expect(json.stderr).toBe('');
    expect(json.code).toBe(STATUS_EXIT.allowed);
    const report = StatusReport.parse(JSON.parse(json.stdout));
    const [boxy, helmy] = report.extensions;
    expect(boxy?.objectSet).toEqual({ name: 'boxy-2', revision: 2, lifecycleState: 'Active', available: 'True', progressing: 'True' });
    expect(helmy).not.toHaveProperty('objectSet');
    expect(report.verdict.metadataErrors).toEqual([]);
    // The deployed revision's objects were read (the removed-API check ran over them).
    expect(report.verdict.removedApis).toEqual([]);
    const table = await on(cluster);
    const lines = table.stdout.split('\n');
    const head = lines.findIndex((l) => l.startsWith('NAME ') && l.includes('OBJECT SET'));
    expect(lines[head]?.split(/ {2,}/).slice(0, 4)).toEqual(['NAME', 'PACKAGE', 'INSTALLED', 'OBJECT SET']);
    expect(lines[head + 1]?.split(/ {2,}/).slice(0, 4)).toEqual(['boxy', 'demo', '1.1.0', 'boxy-2 (Active)']);
    expect(lines[head + 2]?.split(/ {2,}/).slice(0, 4)).toEqual(['helmy', 'demo', '1.1.0', '-']);
  });

  it.each([
    ['no extension has ClusterObjectSets', {}],
    ['the cluster does not serve ClusterObjectSets', { unserved: ['olm.operatorframework.io/v1/ClusterObjectSet'] }],
  ])('without them (%s) reads the Helm records and prints what it printed before', async (_, options) => {
    const cluster = fakeCluster(options);
    cluster.seed(installed('helmy'));
    await seedHelmHistory(cluster.client, 'helmy');
    const json = await on(cluster, '-o', 'json');
    expect(json.code).toBe(STATUS_EXIT.allowed);
    const report = StatusReport.parse(JSON.parse(json.stdout));
    expect(Object.keys(report.extensions[0] ?? {})).toEqual([
      'name',
      'package',
      'installedBundle',
      'installedVersion',
      'channels',
      'versionRange',
      'installed',
      'progressing',
      'healthy',
      'deprecations',
      'maxOpenShiftVersion',
    ]);
    const table = await on(cluster);
    expect(table.stdout).not.toContain('OBJECT SET');
    expect(table.stdout).toContain(HELM_TABLE);
  });
});
