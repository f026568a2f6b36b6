import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import { CommandError } from './render.ts';
import { installObjects, installState, installedForSelector, parseSelectorText } from './install-objects.ts';
import { catalogManifest } from '../../pkg/olmv1/catalog/index.ts';
import { parseInstallArgs } from './install-args.ts';
import { parseUninstallArgs } from './uninstall.ts';
import { catalogChanges, jsonPatch, parseUpdateArgs } from './update.ts';

function usageError(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(CommandError);
    expect((e as CommandError).exitCode).toBe(2);
    return (e as Error).message.split('\n')[0] ?? '';
  }
  throw new Error('expected a usage error');
}

describe('olmv1 install arguments', () => {
  it('defaults the name and the namespace to the package, the ServiceAccount to NAME-installer, and waits 5 minutes', () => {
    const a = parseInstallArgs(['argocd']);
    expect(a.request).toEqual({
      name: 'argocd',
      packageName: 'argocd',
      namespace: 'argocd',
      serviceAccount: 'argocd-installer',
      channels: [],
      version: undefined,
      selector: undefined,
      upgradeConstraintPolicy: undefined,
      crdUpgradeSafety: undefined,
      watchNamespace: undefined,
      updatePolicy: undefined,
    });
    expect([a.dryRun, a.wait, a.timeoutMs, a.output]).toEqual([false, true, 300_000, undefined]);
  });

  it('--accept-community acknowledges a catalog marked Community (decision 0148); without it the install service refuses one', () => {
    expect(parseInstallArgs(['p']).acceptCommunity).toBe(false);
    expect(parseInstallArgs(['p', '--accept-community']).acceptCommunity).toBe(true);
  });

  it("--accept-namespace-labels applies the suggested-namespace template's entries that weaken Pod security; without it they are dropped", () => {
    expect(parseInstallArgs(['p']).acceptNamespaceLabels).toBe(false);
    expect(parseInstallArgs(['p', '--accept-namespace-labels']).acceptNamespaceLabels).toBe(true);
  });

  it("takes kubectl-operator's flags where they mean the same", () => {
    const a = parseInstallArgs([
      'argocd-operator',
      '--name',
      'argocd',
      '-n',
      'argo',
      '--version',
      '>=0.6.0, <1',
      '-c',
      'alpha,beta',
      '--channels',
      'stable',
      '-l',
      'env in (prod, qa),!legacy',
      '--upgrade-constraint-policy',
      'SelfCertified',
      '--crd-upgrade-safety-enforcement',
      'None',
      '--update-policy',
      'Manual',
      '--dry-run',
      '-o',
      'json',
      '--no-wait',
      '--timeout',
      '90s',
    ]);
    expect(a.request).toMatchObject({
      name: 'argocd',
      namespace: 'argo',
      serviceAccount: 'argocd-installer',
      version: '>=0.6.0, <1',
      channels: ['alpha', 'beta', 'stable'],
      selector: {
        matchExpressions: [
          { key: 'env', operator: 'In', values: ['prod', 'qa'] },
          { key: 'legacy', operator: 'DoesNotExist' },
        ],
      },
      upgradeConstraintPolicy: 'SelfCertified',
      crdUpgradeSafety: 'None',
      updatePolicy: 'Manual',
    });
    expect([a.dryRun, a.wait, a.timeoutMs, a.output]).toEqual([true, false, 90_000, 'json']);
    expect(parseInstallArgs(['p', '--catalog', 'operatorhub']).request.selector).toEqual({
      matchLabels: { 'olm.operatorframework.io/metadata.name': 'operatorhub' },
    });
  });

  it.each([
    [[], 'expected exactly one PACKAGE'],
    [['a', 'b'], 'expected exactly one PACKAGE'],
    [['p', '--upgrade-constraint-policy', 'Whatever'], '--upgrade-constraint-policy must be one of CatalogProvided, SelfCertified, got "Whatever"'],
    [['p', '--crd-upgrade-safety-enforcement', 'strict'], '--crd-upgrade-safety-enforcement must be one of None, Strict, got "strict"'],
    [['p', '--catalog', 'a', '--selector', 'x=y'], '--catalog and --selector cannot be combined'],
    [['p', '--with-dependencies', '--dry-run'], '--with-dependencies cannot be combined with --dry-run'],
    [['p', '--selector', 'x=a=b'], '--selector: invalid selector requirement "x=a=b"'],
    [['p', '-o', 'table'], '-o must be yaml or json, got "table"'],
    [['p', '--timeout', 'soon'], 'invalid --timeout: invalid duration "soon" (want e.g. 90s, 30m, 12h)'],
    [['p', '--namespace', ''], '--namespace must not be empty'],
    [['p', '--bogus'], "Unknown option '--bogus'."],
  ])('refuses %j: %s', (args, message) => {
    expect(usageError(() => parseInstallArgs(args)).startsWith(message)).toBe(true);
  });
});

describe('kubectl label-selector text', () => {
  it.each([
    ['a=b,c==d', { matchLabels: { a: 'b', c: 'd' } }],
    ['a!=b', { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['b'] }] }],
    [
      'example.com/tier notin (x,y), team',
      {
        matchExpressions: [
          { key: 'example.com/tier', operator: 'NotIn', values: ['x', 'y'] },
          { key: 'team', operator: 'Exists' },
        ],
      },
    ],
    ['a=', { matchLabels: { a: '' } }],
  ])('%s', (text, want) => {
    expect(parseSelectorText(text)).toEqual(want);
  });

  it.each(['', 'a in b', '=b', 'a=b c', 'a in (b c)'])('refuses %j', (text) => {
    expect(() => parseSelectorText(text)).toThrow(/invalid selector requirement/);
  });
});

const request = {
  name: 'demo',
  packageName: 'demo-operator',
  namespace: 'demo-ns',
  serviceAccount: 'demo-installer',
  channels: ['stable'],
  version: '1.x',
  selector: undefined,
  upgradeConstraintPolicy: undefined,
  crdUpgradeSafety: 'None' as const,
  watchNamespace: 'demo-ns',
};

describe('what install writes', () => {
  const rbac: KubeObject[] = [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'demo-installer', namespace: 'demo-ns' } },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'c' }, rules: [] },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'c' } },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r', namespace: 'demo-ns', labels: { keep: 'me' } }, rules: [] },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'r', namespace: 'demo-ns' } },
  ];
  const labels = { 'olm.operatorframework.io/installed-by': 'olmv1', 'olm.operatorframework.io/installed-for': 'demo' };

  it('writes the namespace, the ServiceAccount, roles before bindings, then the ClusterExtension, all labelled for uninstall', () => {
    const objects = installObjects(request, rbac, true);
    expect(objects.map((o) => `${o.kind} ${o.metadata.name ?? ''}`)).toEqual([
      'Namespace demo-ns',
      'ServiceAccount demo-installer',
      'ClusterRole c',
      'Role r',
      'ClusterRoleBinding c',
      'RoleBinding r',
      'ClusterExtension demo',
    ]);
    for (const o of objects) expect(o.metadata.labels).toMatchObject(labels);
    expect(objects[3]?.metadata.labels).toMatchObject({ keep: 'me' });
    expect(objects.at(-1)?.spec).toEqual({
      namespace: 'demo-ns',
      serviceAccount: { name: 'demo-installer' },
      source: { sourceType: 'Catalog', catalog: { packageName: 'demo-operator', channels: ['stable'], version: '1.x' } },
      install: { preflight: { crdUpgradeSafety: { enforcement: 'None' } } },
      config: { configType: 'Inline', inline: { watchNamespace: 'demo-ns' } },
    });
    expect(objects.at(-1)?.metadata.annotations).toBeUndefined();
    expect(installObjects({ ...request, updatePolicy: 'AutomaticPatch' }, rbac, false).at(-1)?.metadata.annotations).toEqual({
      'olm.operatorframework.io/update-policy': 'AutomaticPatch',
    });
    expect(installObjects(request, rbac, false)[0]?.kind).toBe('ServiceAccount');
    expect(installedForSelector('demo')).toBe('olm.operatorframework.io/installed-by=olmv1,olm.operatorframework.io/installed-for=demo');
  });

  it('writes a ClusterCatalog carrying its name label', () => {
    expect(catalogManifest({ name: 'hub', image: 'quay.io/x/c:1', priority: -5, pollMinutes: 10, available: false })).toEqual({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterCatalog',
      metadata: { name: 'hub', labels: { 'olm.operatorframework.io/metadata.name': 'hub' } },
      spec: { source: { type: 'Image', image: { ref: 'quay.io/x/c:1', pollIntervalMinutes: 10 } }, priority: -5, availabilityMode: 'Unavailable' },
    });
  });
});

describe('the install state of a ClusterExtension', () => {
  const ext = (generation: number, conditions: object[], install?: object): KubeObject => ({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name: 'x', generation },
    status: { conditions, ...(install === undefined ? {} : { install }) },
  });
  const progressing = (reason: string, message: string, observedGeneration = 2) => ({
    type: 'Progressing',
    status: 'True',
    reason,
    message,
    observedGeneration,
  });

  it.each([
    ['no status yet', ext(2, []), { state: 'waiting', progress: 'waiting for operator-controller' }],
    [
      'an older generation',
      ext(2, [progressing('Succeeded', 'ok', 1), { type: 'Installed', status: 'True' }]),
      { state: 'waiting', progress: 'waiting for operator-controller' },
    ],
    ['retrying', ext(2, [progressing('Retrying', 'no bundles found')]), { state: 'waiting', progress: 'Retrying: no bundles found' }],
    ['blocked', ext(2, [progressing('Blocked', 'invalid config')]), { state: 'failed', progress: 'Blocked: invalid config' }],
    [
      'installed',
      ext(2, [progressing('Succeeded', 'done'), { type: 'Installed', status: 'True' }], { bundle: { name: 'x.v1', version: '1.0.0' } }),
      { state: 'installed', bundle: 'x.v1', version: '1.0.0' },
    ],
  ])('%s', (_what, obj, want) => {
    expect(installState(obj)).toEqual(want);
  });
});

describe('olmv1 uninstall and update arguments', () => {
  it('uninstall takes one NAME, --keep-rbac and --timeout', () => {
    expect(parseUninstallArgs(['x', '--keep-rbac', '--timeout', '2m'])).toMatchObject({ name: 'x', keepRbac: true, timeoutMs: 120_000 });
    expect(usageError(() => parseUninstallArgs([]))).toBe('expected exactly one ClusterExtension NAME');
  });

  it('update sets only the fields given; an empty value removes one', () => {
    expect(parseUpdateArgs(['x', '--version', '2.x']).fields).toEqual({ version: '2.x' });
    expect(parseUpdateArgs(['x', '--version', '', '-c', '', '--selector', '']).fields).toEqual({ version: null, channels: null, selector: null });
    expect(parseUpdateArgs(['x', '-c', 'a', '-c', 'b,c', '--upgrade-constraint-policy', 'SelfCertified']).fields).toEqual({
      channels: ['a', 'b', 'c'],
      upgradeConstraintPolicy: 'SelfCertified',
    });
    expect(usageError(() => parseUpdateArgs(['x']))).toBe(
      'nothing to update: give --version, --channels, --catalog, --selector or --upgrade-constraint-policy',
    );
  });

  it('update prints and patches only the fields that change, the selector replaced whole', () => {
    const current = { packageName: 'p', version: '1.x', selector: { matchLabels: { a: 'b' } } };
    const { lines, patch } = catalogChanges(current, { version: '1.x', channels: ['fast'], selector: { matchLabels: { c: 'd' } } });
    expect(lines).toEqual([
      'spec.source.catalog.channels: unset -> ["fast"]',
      'spec.source.catalog.selector: {"matchLabels":{"a":"b"}} -> {"matchLabels":{"c":"d"}}',
    ]);
    expect(jsonPatch('42', { ...patch, version: null })).toEqual([
      { op: 'test', path: '/metadata/resourceVersion', value: '42' },
      { op: 'add', path: '/spec/source/catalog/channels', value: ['fast'] },
      { op: 'add', path: '/spec/source/catalog/selector', value: { matchLabels: { c: 'd' } } },
      { op: 'remove', path: '/spec/source/catalog/version' },
    ]);
    expect(catalogChanges(current, { version: '1.x' }).lines).toEqual([]);
  });
});
