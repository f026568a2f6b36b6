import { describe, expect, it } from 'vitest';
import { MAX_CONDITION_MESSAGE_BYTES, TRUNCATION_SUFFIX, truncateConditionMessage } from '../../shared/controller/index.ts';
import { isTerminal } from '../../shared/errors/index.ts';
import { ApiError, type KubeClient, type KubeObject, type RequestOptions } from '../../shared/kube/index.ts';
import { staticKindScopes, type PolicyRule } from '../render/index.ts';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';
import { groupMissing, ruleCovers, type Atom } from './preauthorize-atoms.ts';
import {
  CLUSTER_SCOPE_REVIEW_NAMESPACE,
  PREAUTHORIZATION_FAILED,
  formatMissingPermissions,
  missingPermissionsAdvice,
  preAuthorize,
  type MissingPermission,
  type PreAuthorizeInput,
} from './preauthorize.ts';

const atom = (verb: string, resource: string, opts: Partial<Atom> = {}): Atom => ({ namespace: 'ns', verb, group: '', resource, name: '', ...opts });

describe('ruleCovers (RBAC semantics)', () => {
  const cases: [string, PolicyRule, Atom, boolean][] = [
    ['exact verb, group, resource', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, atom('get', 'pods'), true],
    ['other verb', { verbs: ['list'], apiGroups: [''], resources: ['pods'] }, atom('get', 'pods'), false],
    ['other group', { verbs: ['get'], apiGroups: ['apps'], resources: ['pods'] }, atom('get', 'pods'), false],
    [
      'held * verb, group, resource',
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      atom('delete', 'deployments', { group: 'apps', name: 'x' }),
      true,
    ],
    ['wanted * verb needs held *', { verbs: ['get', 'list', 'create'], apiGroups: [''], resources: ['pods'] }, atom('*', 'pods'), false],
    ['wanted * verb held *', { verbs: ['*'], apiGroups: [''], resources: ['pods'] }, atom('*', 'pods'), true],
    ['wanted * resource needs held *', { verbs: ['get'], apiGroups: [''], resources: ['pods', 'secrets'] }, atom('get', '*'), false],
    ['subresource exact', { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, atom('get', 'pods/log'), true],
    ['subresource via */log', { verbs: ['get'], apiGroups: [''], resources: ['*/log'] }, atom('get', 'pods/log'), true],
    ['parent does not cover subresource', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, atom('get', 'pods/log'), false],
    [
      '*/scale wanted, */scale held',
      { verbs: ['update'], apiGroups: ['apps'], resources: ['*/scale'] },
      atom('update', '*/scale', { group: 'apps' }),
      true,
    ],
    [
      'named held covers that name',
      { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a', 'b'] },
      atom('get', 'pods', { name: 'b' }),
      true,
    ],
    [
      'named held not other names',
      { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
      atom('get', 'pods', { name: 'c' }),
      false,
    ],
    ['named held not unnamed (list)', { verbs: ['list'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }, atom('list', 'pods'), false],
    ['unnamed held covers names', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, atom('get', 'pods', { name: 'z' }), true],
    ['url exact', { verbs: ['get'], nonResourceURLs: ['/metrics'] }, atom('get', '', { url: '/metrics', namespace: '' }), true],
    ['url prefix *', { verbs: ['get'], nonResourceURLs: ['/api/*'] }, atom('get', '', { url: '/api/v1/x', namespace: '' }), true],
    ['url *', { verbs: ['get'], nonResourceURLs: ['*'] }, atom('get', '', { url: '/healthz', namespace: '' }), true],
    ['url other', { verbs: ['get'], nonResourceURLs: ['/metrics'] }, atom('get', '', { url: '/metrics/x', namespace: '' }), false],
    ['wanted url * needs held prefix', { verbs: ['get'], nonResourceURLs: ['/api/v1'] }, atom('get', '', { url: '/api/*', namespace: '' }), false],
    [
      'resource rule never covers a url',
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      atom('get', '', { url: '/metrics', namespace: '' }),
      false,
    ],
    ['url rule never covers a resource', { verbs: ['*'], nonResourceURLs: ['*'] }, atom('get', 'pods'), false],
  ];
  it.each(cases)('%s', (_name, rule, want, expected) => {
    expect(ruleCovers(rule, want)).toBe(expected);
  });
});

describe('groupMissing', () => {
  it('groups by scope, group and resource; names with the same verbs together; sorted; * collapses verbs', () => {
    const missing = groupMissing([
      atom('patch', 'deployments', { group: 'apps', name: 'b' }),
      atom('get', 'deployments', { group: 'apps', name: 'b' }),
      atom('get', 'deployments', { group: 'apps', name: 'a' }),
      atom('patch', 'deployments', { group: 'apps', name: 'a' }),
      atom('delete', 'deployments', { group: 'apps', name: 'c' }),
      atom('watch', 'deployments', { group: 'apps' }),
      atom('list', 'deployments', { group: 'apps' }),
      atom('list', 'deployments', { group: 'apps' }),
      atom('get', 'configmaps'),
      atom('*', 'configmaps'),
      atom('create', 'customresourcedefinitions', { namespace: '', group: 'apiextensions.k8s.io', name: 'x.example.com' }),
      atom('get', '', { namespace: '', url: '/metrics' }),
      atom('get', '', { namespace: '', url: '/healthz' }),
      atom('post', '', { namespace: '', url: '/hook' }),
    ]);
    expect(missing).toEqual([
      { namespace: '', apiGroup: '', resource: '', resourceNames: [], verbs: ['get'], nonResourceURLs: ['/healthz', '/metrics'] },
      { namespace: '', apiGroup: '', resource: '', resourceNames: [], verbs: ['post'], nonResourceURLs: ['/hook'] },
      { namespace: '', apiGroup: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', resourceNames: ['x.example.com'], verbs: ['create'] },
      { namespace: 'ns', apiGroup: '', resource: 'configmaps', resourceNames: [], verbs: ['*'] },
      { namespace: 'ns', apiGroup: 'apps', resource: 'deployments', resourceNames: [], verbs: ['list', 'watch'] },
      { namespace: 'ns', apiGroup: 'apps', resource: 'deployments', resourceNames: ['a', 'b'], verbs: ['get', 'patch'] },
      { namespace: 'ns', apiGroup: 'apps', resource: 'deployments', resourceNames: ['c'], verbs: ['delete'] },
    ]);
  });
});

const fix = { bundleImage: 'quay.io/acme/widgets-bundle:v1.2.0', installNamespace: 'acme-system', serviceAccountName: 'installer' };

describe('formatMissingPermissions', () => {
  it("is upstream's text exactly: its line, then one sorted line per entry; the olmv1 rbac command and the warning are the advice", () => {
    const missing: MissingPermission[] = [
      { namespace: '', apiGroup: '', resource: 'services', resourceNames: [], verbs: ['list', 'watch'] },
      {
        namespace: '',
        apiGroup: 'apiextensions.k8s.io',
        resource: 'customresourcedefinitions',
        resourceNames: ['a.example.com', 'b.example.com'],
        verbs: ['create', 'get', 'patch'],
      },
      { namespace: '', apiGroup: '', resource: '', resourceNames: [], verbs: ['get'], nonResourceURLs: ['/metrics'] },
      { namespace: 'test-namespace', apiGroup: '*', resource: 'certificates', resourceNames: [], verbs: ['create'] },
    ];
    const text = formatMissingPermissions([...missing].reverse());
    expect(text).toBe(
      [
        'pre-authorization failed: service account requires the following permissions to manage cluster extension:',
        '  Namespace:"" APIGroups:[] Resources:[services] Verbs:[list,watch]',
        '  Namespace:"" APIGroups:[apiextensions.k8s.io] Resources:[customresourcedefinitions] ResourceNames:[a.example.com,b.example.com] Verbs:[create,get,patch]',
        '  Namespace:"" Verbs:[get] NonResourceURLs:[/metrics]',
        '  Namespace:"test-namespace" APIGroups:[*] Resources:[certificates] Verbs:[create]',
      ].join('\n'),
    );
    expect(text.startsWith(PREAUTHORIZATION_FAILED)).toBe(true);
    expect(missingPermissionsAdvice(missing, { ...fix, watchNamespace: 'acme-watched' })).toBe(
      [
        'grant them with the RBAC printed by: olmv1 rbac quay.io/acme/widgets-bundle:v1.2.0 --install-namespace acme-system --watch-namespace acme-watched --service-account installer',
        'warning: 1 of these grants amounts to privilege escalation (*/certificates in "test-namespace": "*" in apiGroups); review them before granting',
      ].join('\n'),
    );
  });

  it('advice: ends with one sentence counting the grants that amount to privilege escalation, the first three named', () => {
    const rbac = 'rbac.authorization.k8s.io';
    const missing: MissingPermission[] = [
      { namespace: '', apiGroup: '*', resource: '*', resourceNames: [], verbs: ['*'] },
      { namespace: '', apiGroup: rbac, resource: 'clusterrolebindings', resourceNames: ['acme-admin', 'acme-own'], verbs: ['create', 'get'] },
      { namespace: '', apiGroup: rbac, resource: 'clusterroles', resourceNames: ['acme-own', 'system:basic-user'], verbs: ['create', 'get'] },
      { namespace: '', apiGroup: '', resource: 'users', resourceNames: [], verbs: ['impersonate'] },
      { namespace: 'acme-watched', apiGroup: 'apps', resource: 'deployments', resourceNames: [], verbs: ['list', 'watch'] },
      { namespace: 'acme-system', apiGroup: '', resource: 'configmaps', resourceNames: ['c'], verbs: ['get'] },
    ];
    const objects: KubeObject[] = [
      { apiVersion: `${rbac}/v1`, kind: 'ClusterRole', metadata: { name: 'acme-own' } },
      { apiVersion: `${rbac}/v1`, kind: 'ClusterRole', metadata: { name: 'system:basic-user' } },
      { apiVersion: `${rbac}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'acme-own' }, roleRef: { kind: 'ClusterRole', name: 'acme-own' } },
      {
        apiVersion: `${rbac}/v1`,
        kind: 'ClusterRoleBinding',
        metadata: { name: 'acme-admin' },
        roleRef: { kind: 'ClusterRole', name: 'cluster-admin' },
      },
    ];
    const base = missingPermissionsAdvice(missing, { ...fix, watchNamespace: 'acme-watched' }).split('\n');
    const text = missingPermissionsAdvice(missing, { ...fix, watchNamespace: 'acme-watched', objects }).split('\n');
    // The command comes first, unchanged; the sentence is one more line.
    expect(text.slice(0, -1)).toEqual(base.slice(0, -1));
    expect(text.at(-2)).toBe(
      'grant them with the RBAC printed by: olmv1 rbac quay.io/acme/widgets-bundle:v1.2.0 --install-namespace acme-system --watch-namespace acme-watched --service-account installer',
    );
    expect(text.at(-1)).toBe(
      'warning: 4 of these grants amount to privilege escalation (*/*: "*" in verbs, apiGroups, resources; rbac.authorization.k8s.io/clusterrolebindings: binds ClusterRole "cluster-admin"; rbac.authorization.k8s.io/clusterroles: name ["system:basic-user"], and 1 more); review them before granting',
    );
    // Without the objects, a binding of a role the bundle does not ship cannot be told.
    expect(base.at(-1)).toBe(
      'warning: 3 of these grants amount to privilege escalation (*/*: "*" in verbs, apiGroups, resources; rbac.authorization.k8s.io/clusterroles: name ["system:basic-user"]; users: verb impersonate); review them before granting',
    );
    // Nothing dangerous, no sentence: the watch namespace and named rights are expected.
    expect(
      missingPermissionsAdvice(missing.slice(4), { ...fix, watchNamespace: 'acme-watched', objects })
        .split('\n')
        .at(-1),
    ).toMatch(/^grant them with the RBAC printed by: /);
  });

  it('is empty when nothing is missing; omits --watch-namespace when not given', () => {
    expect(formatMissingPermissions([])).toBe('');
    const text = missingPermissionsAdvice([{ namespace: 'n', apiGroup: '', resource: 'pods', resourceNames: [], verbs: ['get'] }], fix);
    expect(text).toBe(
      'grant them with the RBAC printed by: olmv1 rbac quay.io/acme/widgets-bundle:v1.2.0 --install-namespace acme-system --service-account installer',
    );
  });

  it('stays readable for 50 missing atoms: about one line per resource and verb set', () => {
    const atoms: Atom[] = [];
    for (let i = 0; i < 10; i++) for (const verb of ['create', 'delete', 'get', 'patch']) atoms.push(atom(verb, 'configmaps', { name: `cm-${i}` }));
    for (const verb of ['list', 'watch'])
      for (const resource of ['configmaps', 'services', 'secrets', 'serviceaccounts', 'deployments']) atoms.push(atom(verb, resource));
    expect(atoms).toHaveLength(50);
    const lines = formatMissingPermissions(groupMissing(atoms)).split('\n');
    expect(lines).toHaveLength(1 + 6);
    // Sorted as upstream sorts them: ResourceNames before Verbs.
    expect(lines[1]).toBe(
      `  Namespace:"ns" APIGroups:[] Resources:[configmaps] ResourceNames:[${Array.from({ length: 10 }, (_, i) => `cm-${i}`).join(',')}] Verbs:[create,delete,get,patch]`,
    );
    expect(lines[2]).toBe('  Namespace:"ns" APIGroups:[] Resources:[configmaps] Verbs:[list,watch]');
  });

  it('lists every name and every line, as upstream does; the condition truncates it as upstream does', () => {
    const many: MissingPermission[] = [];
    for (let i = 0; i < 400; i++) {
      const names = Array.from({ length: 30 }, (_, j) => `${'n'.repeat(200)}-${i}-${j}`);
      many.push({ namespace: `ns-${String(i).padStart(4, '0')}`, apiGroup: 'example.com', resource: 'things', resourceNames: names, verbs: ['get'] });
    }
    const lines = formatMissingPermissions(many).split('\n');
    expect(lines).toHaveLength(1 + 400);
    expect(lines[1]?.split(',')).toHaveLength(30);
    const condition = truncateConditionMessage(lines.join('\n'));
    expect(Buffer.byteLength(condition)).toBe(MAX_CONDITION_MESSAGE_BYTES);
    expect(condition.endsWith(TRUNCATION_SUFFIX)).toBe(true);
  });

  it('advice stays short with the escalation sentence: entries capped in number and length', () => {
    const many: MissingPermission[] = [];
    for (let i = 0; i < 400; i++) {
      const names = Array.from({ length: 30 }, (_, j) => `system:${'n'.repeat(200)}-${i}-${j}`);
      many.push({ namespace: `ns-${String(i).padStart(4, '0')}`, apiGroup: '*', resource: 'things', resourceNames: names, verbs: ['*'] });
    }
    const last = missingPermissionsAdvice(many, fix).split('\n').at(-1) ?? '';
    expect(last).toMatch(
      /^warning: 400 of these grants amount to privilege escalation \(\*\/things in "ns-0000": .*, and 397 more\); review them before granting$/,
    );
    expect(Buffer.byteLength(last)).toBeLessThan(1024);
  });
});

// ---- preAuthorize against a fake of the transport (the requests and their fallbacks) ------

interface Call {
  path: string;
  spec: Record<string, unknown>;
}

type Responder = (call: Call) => unknown;

/** A client whose transport answers reviews with `respond`; records every request. */
function fakeClient(respond: Responder): { client: KubeClient; calls: Call[] } {
  const calls: Call[] = [];
  const request = async <T>(method: string, path: string, options?: RequestOptions): Promise<T> => {
    expect(method).toBe('POST');
    const call = { path, spec: (options?.body as { spec: Record<string, unknown> }).spec };
    calls.push(call);
    return respond(call) as T;
  };
  return { client: fakeCluster({ request }).client, calls };
}

const obj = (apiVersion: string, kind: string, name: string, namespace?: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion,
  kind,
  metadata: namespace === undefined ? { name } : { name, namespace },
  ...extra,
});

const input: PreAuthorizeInput = {
  objects: [
    obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'things.example.com'),
    obj('v1', 'ConfigMap', 'settings', 'inst'),
    obj('rbac.authorization.k8s.io/v1', 'ClusterRole', 'reader', undefined, {
      rules: [
        { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
        { nonResourceURLs: ['/metrics'], verbs: ['get'] },
      ],
    }),
  ],
  dropped: [obj('v1', 'Service', 'old-svc', 'inst')],
  installNamespace: 'inst',
  serviceAccountName: 'installer',
  bundleName: 'things.v1',
  mapper: staticKindScopes([]),
};

const rulesReview = (resourceRules: PolicyRule[], incomplete = false): unknown => ({
  status: {
    resourceRules: resourceRules.filter((r) => r.nonResourceURLs === undefined),
    nonResourceRules: resourceRules.filter((r) => r.nonResourceURLs !== undefined),
    incomplete,
  },
});

describe('preAuthorize (request pattern)', () => {
  it('asks one rules review per namespace plus one cluster-wide, and evaluates coverage locally', async () => {
    const { client, calls } = fakeClient((c) => {
      if (c.spec['namespace'] === 'inst') return rulesReview([{ verbs: ['*'], apiGroups: [''], resources: ['configmaps', 'services'] }]);
      // Cluster-wide: everything but the ClusterRole's pods/log rule and patch on the CRD.
      return rulesReview([
        {
          verbs: ['create', 'get'],
          apiGroups: ['apiextensions.k8s.io'],
          resources: ['customresourcedefinitions'],
          resourceNames: ['things.example.com'],
        },
        { verbs: ['list', 'watch'], apiGroups: ['apiextensions.k8s.io', 'rbac.authorization.k8s.io'], resources: ['*'] },
        { verbs: ['*'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], resourceNames: ['reader'] },
        { verbs: ['get'], nonResourceURLs: ['/metrics'] },
      ]);
    });
    const missing = await preAuthorize(client, input);
    expect(calls.map((c) => c.spec['namespace']).sort()).toEqual(['inst', CLUSTER_SCOPE_REVIEW_NAMESPACE]);
    expect(calls.every((c) => c.path === '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews')).toBe(true);
    expect(missing).toEqual([
      { namespace: '', apiGroup: '', resource: 'pods/log', resourceNames: [], verbs: ['get'] },
      {
        namespace: '',
        apiGroup: 'apiextensions.k8s.io',
        resource: 'customresourcedefinitions',
        resourceNames: ['things.example.com'],
        verbs: ['patch'],
      },
    ]);
  });

  it('reports delete on dropped objects (never on CRDs) and everything when nothing is held', async () => {
    const { client } = fakeClient(() => rulesReview([]));
    const missing = await preAuthorize(client, {
      ...input,
      dropped: [...(input.dropped ?? []), obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'old.example.com')],
    });
    expect(missing).toContainEqual({ namespace: 'inst', apiGroup: '', resource: 'services', resourceNames: ['old-svc'], verbs: ['delete'] });
    expect(missing.filter((m) => m.resourceNames.includes('old.example.com'))).toEqual([]);
    expect(missing).toContainEqual({ namespace: '', apiGroup: '', resource: '', resourceNames: [], verbs: ['get'], nonResourceURLs: ['/metrics'] });
    expect(missing).toContainEqual({
      namespace: 'inst',
      apiGroup: '',
      resource: 'configmaps',
      resourceNames: ['settings'],
      verbs: ['create', 'delete', 'get', 'patch'],
    });
  });

  it('asks access reviews only for what an incomplete rules review does not cover', async () => {
    const { client, calls } = fakeClient((c) => {
      if (c.path.endsWith('selfsubjectaccessreviews')) {
        const attrs = c.spec['resourceAttributes'] as Record<string, string> | undefined;
        return { status: { allowed: attrs?.['subresource'] === 'log' } };
      }
      if (c.spec['namespace'] === 'inst') return rulesReview([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
      return rulesReview([{ verbs: ['*'], apiGroups: ['apiextensions.k8s.io', 'rbac.authorization.k8s.io'], resources: ['*'] }], true);
    });
    const missing = await preAuthorize(client, input);
    const asked = calls.filter((c) => c.path.endsWith('selfsubjectaccessreviews')).map((c) => c.spec);
    expect(asked).toHaveLength(2);
    expect(asked).toContainEqual({ resourceAttributes: { verb: 'get', group: '', resource: 'pods', subresource: 'log' } });
    expect(asked).toContainEqual({ nonResourceAttributes: { path: '/metrics', verb: 'get' } });
    expect(missing).toEqual([{ namespace: '', apiGroup: '', resource: '', resourceNames: [], verbs: ['get'], nonResourceURLs: ['/metrics'] }]);
  });

  it('falls back to access reviews for cluster-wide permissions when the cluster-wide rules review is refused', async () => {
    const { client, calls } = fakeClient((c) => {
      if (c.path.endsWith('selfsubjectaccessreviews')) return { status: { allowed: true } };
      if (c.spec['namespace'] !== 'inst') throw new ApiError(400, 'BadRequest', 'bad namespace');
      return rulesReview([]);
    });
    const missing = await preAuthorize(client, input);
    const asked = calls
      .filter((c) => c.path.endsWith('selfsubjectaccessreviews'))
      .map((c) => c.spec['resourceAttributes'] as Record<string, string> | undefined);
    expect(asked.every((a) => a === undefined || a['namespace'] === undefined)).toBe(true);
    expect(asked).toContainEqual({
      verb: 'create',
      group: 'apiextensions.k8s.io',
      resource: 'customresourcedefinitions',
      name: 'things.example.com',
    });
    expect(missing.every((m) => m.namespace === 'inst')).toBe(true);
    expect(missing.length).toBeGreaterThan(0);
  });

  it('throws infrastructure errors as they are, and a TerminalError for kinds it cannot map', async () => {
    const { client } = fakeClient(() => {
      throw new ApiError(403, 'Forbidden', 'selfsubjectrulesreviews is forbidden');
    });
    await expect(preAuthorize(client, input)).rejects.toSatisfy((e: unknown) => e instanceof ApiError && e.status === 403);
    const unknown = preAuthorize(client, { ...input, dropped: [obj('example.com/v1', 'Gadget', 'g', 'inst')] });
    await expect(unknown).rejects.toSatisfy(isTerminal);
  });
});
