// The ClusterExtension CRD on a real kube-apiserver: defaults are applied, and every validation
// rule rejects what upstream rejects, with upstream's message (the version rule's table:
// test/support/version-expressions.ts). Immutability rules need a stored object and use
// dry-run updates.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RELEASE_NAME_MESSAGE } from '../../pkg/shared/api/index.ts';
import {
  dryRunCreate,
  createForReal,
  dryRunUpdate,
  expectAccepted,
  expectRejected,
  table,
  samples,
  ceBase,
  catalogSource,
  ceSpec,
  extension,
  type Json,
  send,
  type ApiResponse,
  useCrds,
} from '../support/crd-admission.ts';
import { ADMITTED_VERSION_EXPRESSIONS, REFUSED_VERSION_EXPRESSIONS } from '../support/version-expressions.ts';

useCrds();

describe('samples', () => {
  it('are accepted', async () => {
    for (const sample of samples()) expectAccepted(await dryRunCreate(sample));
  });
});

describe('ClusterExtension defaults', () => {
  it('sets upgradeConstraintPolicy CatalogProvided', async () => {
    const res = await dryRunCreate(extension(ceSpec()));
    expectAccepted(res);
    expect(res.body).toMatchObject({ spec: { source: { catalog: { upgradeConstraintPolicy: 'CatalogProvided' } } } });
  });

  it('serves spec.progressDeadlineMinutes (the Boxcutter runtime field, decision 0125) within 10 to 720', async () => {
    const res = await dryRunCreate(extension({ ...ceSpec(), progressDeadlineMinutes: 30 }));
    expectAccepted(res);
    expect(res.body.spec).toHaveProperty('progressDeadlineMinutes', 30);
    for (const [value, message] of [
      [9, 'should be greater than or equal to 10'],
      [721, 'should be less than or equal to 720'],
    ] as const)
      expectRejected(await dryRunCreate(extension({ ...ceSpec(), progressDeadlineMinutes: value })), 'spec.progressDeadlineMinutes', message);
  });
});

describe('ClusterExtension spec.source.catalog.version', () => {
  const field = 'spec.source.catalog.version';
  table([
    ...ADMITTED_VERSION_EXPRESSIONS.map((v) => ({ name: JSON.stringify(v), obj: () => extension(ceSpec({ version: v })) })),
    ...REFUSED_VERSION_EXPRESSIONS.map((v) => ({
      name: JSON.stringify(v),
      obj: () => extension(ceSpec({ version: v })),
      reject: { field, message: 'invalid version expression' },
    })),
    {
      name: 'a 65-character version',
      obj: () => extension(ceSpec({ version: `1234567890.1234567890.${'1'.repeat(43)}` })),
      reject: { field, message: 'Too long: may not be more than 64' },
    },
  ]);
});

const SUBDOMAIN =
  'must be a valid DNS1123 subdomain. It must contain only lowercase alphanumeric characters, hyphens (-) or periods (.), start and end with an alphanumeric character, and be no longer than 253 characters';

describe('ClusterExtension spec validation', () => {
  const catalogField = 'spec.source.catalog';
  table([
    { name: 'a packageName with dots', obj: () => extension(ceSpec({ packageName: 'some.package' })) },
    {
      name: 'a packageName that is not a DNS1123 subdomain',
      obj: () => extension(ceSpec({ packageName: 'Bad_Package' })),
      reject: { field: `${catalogField}.packageName`, message: `packageName ${SUBDOMAIN}` },
    },
    {
      name: 'a 254-character packageName',
      obj: () => extension(ceSpec({ packageName: 'a'.repeat(254) })),
      reject: { field: `${catalogField}.packageName`, message: 'Too long: may not be more than 253' },
    },
    { name: 'valid channels', obj: () => extension(ceSpec({ channels: ['stable', 'fast-1.2'] })) },
    {
      name: 'a channel that is not a DNS1123 subdomain',
      obj: () => extension(ceSpec({ channels: ['stable', 'Bad_Channel'] })),
      reject: { field: `${catalogField}.channels[1]`, message: 'channels entries must be valid DNS1123 subdomains' },
    },
    {
      name: '257 channels',
      obj: () => extension(ceSpec({ channels: Array.from({ length: 257 }, (_, i) => `c${i}`) })),
      reject: { field: `${catalogField}.channels`, message: 'must have at most 256 items' },
    },
    {
      name: 'an unknown upgradeConstraintPolicy',
      obj: () => extension(ceSpec({ upgradeConstraintPolicy: 'Never' })),
      reject: { field: `${catalogField}.upgradeConstraintPolicy`, message: 'Unsupported value: "Never"' },
    },
    {
      name: 'a namespace that is not a DNS1123 label',
      obj: () => extension({ ...ceSpec(), namespace: 'my.namespace' }),
      reject: { field: 'spec.namespace', message: 'namespace must be a valid DNS1123 label' },
    },
    {
      name: 'a 64-character namespace',
      obj: () => extension({ ...ceSpec(), namespace: 'a'.repeat(64) }),
      reject: { field: 'spec.namespace', message: 'Too long: may not be more than 63' },
    },
    // Upstream's current YAML names no ServiceAccount (decision 0073).
    { name: 'a missing serviceAccount', obj: () => extension({ namespace: 'default', source: catalogSource({}) }) },
    {
      name: 'a serviceAccount without name',
      obj: () => extension({ ...ceSpec(), serviceAccount: {} }),
      reject: { field: 'spec.serviceAccount.name', message: 'Required value' },
    },
    {
      name: 'a serviceAccount name that is not a DNS1123 subdomain',
      obj: () => extension({ ...ceSpec(), serviceAccount: { name: 'Bad_SA' } }),
      reject: { field: 'spec.serviceAccount.name', message: `name ${SUBDOMAIN}` },
    },
    {
      name: 'sourceType Catalog without catalog',
      obj: () => extension({ ...ceBase, source: { sourceType: 'Catalog' } }),
      reject: { field: 'spec.source', message: 'catalog is required when sourceType is Catalog, and forbidden otherwise' },
    },
    {
      name: 'an unknown sourceType',
      obj: () => extension({ ...ceBase, source: { sourceType: 'Bundle' } }),
      reject: { field: 'spec.source.sourceType', message: 'Unsupported value: "Bundle"' },
    },
    {
      name: 'install without preflight',
      obj: () => extension({ ...ceSpec(), install: {} }),
      reject: { field: 'spec.install', message: 'at least one of [preflight] are required when install is specified' },
    },
    // The schema's `required` fails first, so the API server skips the CEL rule with upstream's
    // "at least one of [crdUpgradeSafety] ..." message (as upstream's does).
    {
      name: 'preflight without crdUpgradeSafety',
      obj: () => extension({ ...ceSpec(), install: { preflight: {} } }),
      reject: { field: 'spec.install.preflight.crdUpgradeSafety', message: 'Required value' },
    },
    {
      name: 'an unknown crdUpgradeSafety enforcement',
      obj: () => extension({ ...ceSpec(), install: { preflight: { crdUpgradeSafety: { enforcement: 'Lax' } } } }),
      reject: { field: 'spec.install.preflight.crdUpgradeSafety.enforcement', message: 'Unsupported value: "Lax"' },
    },
    {
      name: 'inline config with watchNamespace and deploymentConfig',
      obj: () =>
        extension({
          ...ceSpec(),
          config: { configType: 'Inline', inline: { watchNamespace: 'other', deploymentConfig: { env: [{ name: 'A', value: 'b' }] } } },
        }),
    },
    {
      name: 'configType Inline without inline',
      obj: () => extension({ ...ceSpec(), config: { configType: 'Inline' } }),
      reject: { field: 'spec.config', message: 'inline is required when configType is Inline, and forbidden otherwise' },
    },
    {
      name: 'an empty inline config',
      obj: () => extension({ ...ceSpec(), config: { configType: 'Inline', inline: {} } }),
      reject: { field: 'spec.config.inline', message: 'should have at least 1 properties' },
    },
    {
      name: 'an inline config that is not an object',
      obj: () => extension({ ...ceSpec(), config: { configType: 'Inline', inline: 'watchNamespace: x' } }),
      reject: { field: 'spec.config.inline', message: 'must be of type object' },
    },
    // Upstream quirk kept: the top-level schema does not require spec.
    { name: 'an object without spec', obj: () => extension(undefined) },
  ]);
});

describe('ClusterExtension immutable fields', () => {
  let stored: Json;
  beforeAll(async () => {
    stored = await createForReal(extension(ceSpec({ version: '1.0.0' })));
  });

  const update = (change: (spec: Json) => Json): Json => ({ ...stored, spec: change(stored.spec as Json) });
  const withCatalog = (spec: Json, patch: Json): Json => {
    const source = spec.source as Json;
    return { ...spec, source: { ...source, catalog: { ...(source.catalog as Json), ...patch } } };
  };

  it('allows changing version and channels', async () => {
    expectAccepted(await dryRunUpdate(update((s) => withCatalog(s, { version: '>=1.0.0', channels: ['fast'] }))));
  });

  it('rejects changing packageName', async () => {
    const res = await dryRunUpdate(update((s) => withCatalog(s, { packageName: 'other' })));
    expectRejected(res, 'spec.source.catalog.packageName', 'packageName is immutable');
  });

  it('rejects changing namespace', async () => {
    const res = await dryRunUpdate(update((s) => ({ ...s, namespace: 'kube-system' })));
    expectRejected(res, 'spec.namespace', 'namespace is immutable');
  });

  it('rejects changing serviceAccount.name', async () => {
    const res = await dryRunUpdate(update((s) => ({ ...s, serviceAccount: { name: 'other' } })));
    expectRejected(res, 'spec.serviceAccount.name', 'name is immutable');
  });

  it('accepts the status operator-controller writes and rejects malformed bundle identities', async () => {
    const condition = {
      type: 'Installed',
      status: 'True',
      reason: 'Succeeded',
      message: 'm',
      lastTransitionTime: '2024-01-02T03:04:05Z',
      observedGeneration: 1,
    };
    const withStatus = (bundle: Json): Json => ({ ...stored, status: { conditions: [condition], install: { bundle } } });
    expectAccepted(await dryRunUpdate(withStatus({ name: 'pkg.v1.0.0', version: '1.0.0+2', release: '2' }), '/status'));
    const bundleField = 'status.install.bundle';
    expectRejected(
      await dryRunUpdate(withStatus({ name: 'Bad_Name', version: '1.0.0' }), '/status'),
      `${bundleField}.name`,
      `packageName ${SUBDOMAIN}`,
    );
    expectRejected(
      await dryRunUpdate(withStatus({ name: 'b', version: 'v1' }), '/status'),
      `${bundleField}.version`,
      'version must be well-formed semver',
    );
    expectRejected(
      await dryRunUpdate(withStatus({ name: 'b', version: '1.0.0', release: '01' }), '/status'),
      `${bundleField}.release`,
      'release must be empty or consist of dot-separated identifiers (numeric without leading zeros, or alphanumeric)',
    );
  });
});

// metadata.name is the Helm release name (decision 0072): names Helm refuses (over 53
// characters, not a DNS-1123 subdomain) are refused at creation with the rule's message. The API
// server's own name check (a DNS-1123 subdomain of up to 253 characters) also refuses the last
// two, with its own message next to the rule's; it admits 54 to 253 characters.
describe('ClusterExtension metadata.name', () => {
  const named = (name: string): Json => ({ ...extension(ceSpec()), metadata: { name } });
  const reject = { field: 'metadata.name', message: RELEASE_NAME_MESSAGE };
  table([
    { name: 'a 53-character name', obj: () => named('a'.repeat(53)) },
    { name: 'a dotted name', obj: () => named('argocd.v2') },
    { name: 'a 54-character name', obj: () => named('a'.repeat(54)), reject },
    { name: 'a 253-character name', obj: () => named(`${'a'.repeat(63)}.`.repeat(3) + 'a'.repeat(61)), reject },
    { name: 'a name with an uppercase letter', obj: () => named('Argocd'), reject },
    { name: 'a name with an underscore', obj: () => named('argo_cd'), reject },
  ]);

  it('says, as kubectl prints it, that the name is the release name and its limit is 53', async () => {
    const res = await dryRunCreate(named('a'.repeat(54)));
    // Kubernetes 1.33 prints the rule's value placeholder (`Invalid value: "object": ...`),
    // 1.36 leaves it out; the message after it is the CRD's on both.
    const literal = RELEASE_NAME_MESSAGE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(res.body.message).toMatch(new RegExp(`is invalid: metadata\\.name: Invalid value: (?:"object": )?${literal}$`));
    expect(RELEASE_NAME_MESSAGE).toMatch(/^name becomes the Helm release name, so it must be no longer than 53 characters/);
  });
});

// The rule runs at creation only (optionalOldSelf): an extension stored before the rule
// existed, under a name it refuses, must still take status writes, spec changes and the removal
// of its finalizers, or it could never be reported on nor deleted. Shown on a copy of the CRD in
// a group of its own, created without the rule and then updated to the real one.
describe('ClusterExtension stored before the name rule existed', () => {
  const group = `names-${randomBytes(3).toString('hex')}.test.example`;
  const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/clusterextensions.${group}`;
  const objects = `/apis/${group}/v1/clusterextensions`;
  const oldName = `old-${'a'.repeat(56)}`; // 60 characters
  const finalizer = 'test.example/hold';

  function crdCopy(withNameRule: boolean): Json {
    const url = new URL('../../config/crd/olm.operatorframework.io_clusterextensions.yaml', import.meta.url);
    const crd = load(readFileSync(url, 'utf8')) as Json;
    const spec = crd.spec as { group: string; versions: { schema: { openAPIV3Schema: Json } }[] };
    spec.group = group;
    const root = spec.versions[0]?.schema.openAPIV3Schema;
    expect(root?.['x-kubernetes-validations']).toBeDefined();
    if (!withNameRule && root !== undefined) delete root['x-kubernetes-validations'];
    return { ...crd, metadata: { name: `clusterextensions.${group}` } };
  }

  const body = (name: string, extra: Json = {}): Json => ({
    apiVersion: `${group}/v1`,
    kind: 'ClusterExtension',
    metadata: { name, ...extra },
    spec: ceSpec(),
  });

  // Polls `check` (an error counts as false: a group not served yet answers 404 in plain text).
  async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
    await vi.waitFor(
      async () => {
        if (!(await check().catch(() => false))) throw new Error(`timed out waiting until ${what}`);
      },
      { timeout: 30_000, interval: 100 },
    );
  }

  const expectOk = (res: ApiResponse): void => expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  let stored: Json;

  beforeAll(async () => {
    expectOk(await send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crdCopy(false)));
    await eventually('the copy serves objects', async () => (await send('GET', objects)).status === 200);
    const created = await send('POST', objects, body(oldName, { finalizers: [finalizer] }));
    expectOk(created);
    const current = (await send('GET', crdPath)).body;
    const withRule = crdCopy(true);
    expectOk(await send('PUT', crdPath, { ...withRule, metadata: current.metadata }));
    await eventually(
      'the name rule is enforced',
      async () => (await send('POST', `${objects}?dryRun=All`, body(`new-${'a'.repeat(56)}`))).status === 422,
    );
    stored = (await send('GET', `${objects}/${oldName}`)).body;
  });

  // The object's finalizer would hold the copy's deletion if a test failed before removing it.
  afterAll(async () => {
    const left = await send('GET', `${objects}/${oldName}`).catch(() => undefined);
    if (left?.status === 200) {
      await send('PUT', `${objects}/${oldName}`, { ...left.body, metadata: { ...(left.body.metadata as Json), finalizers: [] } });
    }
    await send('DELETE', crdPath);
  });

  it('refuses a new object with the same kind of name', async () => {
    const res = await send('POST', `${objects}?dryRun=All`, body(`new-${'a'.repeat(56)}`));
    expect(res.status).toBe(422);
    expect(res.body.message).toContain(RELEASE_NAME_MESSAGE);
  });

  it('accepts status writes and spec changes of the stored object', async () => {
    const status = {
      conditions: [
        { type: 'Progressing', status: 'False', reason: 'Blocked', message: 'm', lastTransitionTime: '2024-01-02T03:04:05Z', observedGeneration: 1 },
      ],
    };
    expectOk(await send('PUT', `${objects}/${oldName}/status?dryRun=All`, { ...stored, status }));
    expectOk(await send('PUT', `${objects}/${oldName}?dryRun=All`, { ...stored, spec: ceSpec({ version: '1.0.0' }) }));
  });

  it('lets the stored object be deleted once its finalizer is removed', async () => {
    expectOk(await send('DELETE', `${objects}/${oldName}`));
    const deleting = (await send('GET', `${objects}/${oldName}`)).body;
    const metadata = { ...(deleting.metadata as Json), finalizers: [] };
    expectOk(await send('PUT', `${objects}/${oldName}`, { ...deleting, metadata }));
    expect((await send('GET', `${objects}/${oldName}`)).status).toBe(404);
  });
});
