// The CRDs in config/crd on a real kube-apiserver: defaults are applied, and every validation
// rule rejects what upstream rejects with upstream's message (api-and-controllers.md §1-2,
// resolver.md §2.4.6). Most cases are server-side dry-run creates; immutability and status
// rules need a stored object and use dry-run updates of it.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLUSTER_CATALOG, CLUSTER_EXTENSION, GROUP, VERSION } from '../../pkg/api/index.ts';
import { kubeRequest, type ControlPlaneInfo } from '../envtest/index.ts';

type Json = Record<string, unknown>;

// The API server's answer: status code and parsed JSON body.
interface ApiResponse {
  status: number;
  body: Json;
}

let cp: ControlPlaneInfo;

async function send(method: string, path: string, body?: unknown): Promise<ApiResponse> {
  const res = await kubeRequest(cp, { method, path, body, auth: { token: cp.adminToken } });
  return { status: res.status, body: res.body === '' ? {} : res.json<Json>() };
}

const root = (path: string): string => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const run = `crds-${randomBytes(3).toString('hex')}`;
let seq = 0;
const uniqueName = (): string => `${run}-${++seq}`;

const created: string[] = [];

beforeAll(async () => {
  cp = inject('envtestControlPlane');
  const exec = promisify(execFile);
  const base = ['--kubeconfig', cp.kubeconfigPath];
  await exec(cp.kubectl, [...base, 'apply', '--server-side', '--force-conflicts', '-f', root('config/crd')]);
  const crds = [CLUSTER_EXTENSION.crdName, CLUSTER_CATALOG.crdName].map((n) => `crd/${n}`);
  await exec(cp.kubectl, [...base, 'wait', '--for=condition=Established', '--timeout=60s', ...crds]);
});

afterAll(async () => {
  for (const path of created) await send('DELETE', path);
});

const collection = (plural: string): string => `/apis/${GROUP}/${VERSION}/${plural}`;
const ceBase = { namespace: 'default', serviceAccount: { name: 'installer' } };
const catalogSource = (catalog: Json): Json => ({ sourceType: 'Catalog', catalog: { packageName: 'pkg', ...catalog } });
const ceSpec = (catalog: Json = {}): Json => ({ ...ceBase, source: catalogSource(catalog) });
const imageSpec = (image: Json): Json => ({ source: { type: 'Image', image } });

function object(kind: string, spec: Json | undefined): Json {
  const metadata = { name: uniqueName() };
  return { apiVersion: `${GROUP}/${VERSION}`, kind, metadata, ...(spec === undefined ? {} : { spec }) };
}
const extension = (spec: Json | undefined): Json => object(CLUSTER_EXTENSION.kind, spec);
const catalog = (spec: Json | undefined): Json => object(CLUSTER_CATALOG.kind, spec);

function pluralOf(obj: Json): string {
  return obj.kind === CLUSTER_EXTENSION.kind ? CLUSTER_EXTENSION.plural : CLUSTER_CATALOG.plural;
}

function dryRunCreate(obj: Json): Promise<ApiResponse> {
  return send('POST', `${collection(pluralOf(obj))}?dryRun=All`, obj);
}

async function createForReal(obj: Json): Promise<Json> {
  const path = collection(pluralOf(obj));
  const res = await send('POST', path, obj);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  created.push(`${path}/${(obj.metadata as Json).name as string}`);
  return res.body;
}

function dryRunUpdate(obj: Json, subresource = ''): Promise<ApiResponse> {
  const name = (obj.metadata as Json).name as string;
  return send('PUT', `${collection(pluralOf(obj))}/${name}${subresource}?dryRun=All`, obj);
}

// The API server's Invalid status lists one cause per failed rule: `field` and a message that
// ends with the rule's own message.
interface Cause {
  field?: string;
  message?: string;
}

function causes(res: ApiResponse): Cause[] {
  return ((res.body.details as Json | undefined)?.causes as Cause[] | undefined) ?? [];
}

function expectAccepted(res: ApiResponse): void {
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
}

function expectRejected(res: ApiResponse, field: string, message: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  const matching = causes(res).filter((c) => c.field === field && c.message?.includes(message));
  expect(matching, JSON.stringify(causes(res))).not.toHaveLength(0);
  // What kubectl prints to the user contains the rule's message too.
  expect(res.body.message).toContain(message);
}

interface Case {
  name: string;
  obj: () => Json;
  reject?: { field: string; message: string };
}

function table(cases: Case[]): void {
  for (const c of cases) {
    it(c.reject === undefined ? `accepts ${c.name}` : `rejects ${c.name}`, async () => {
      const res = await dryRunCreate(c.obj());
      if (c.reject === undefined) expectAccepted(res);
      else expectRejected(res, c.reject.field, c.reject.message);
    });
  }
}

function samples(): Json[] {
  return ['olm_v1_clustercatalog.yaml', 'olm_v1_clusterextension.yaml'].map(
    (f) => load(readFileSync(root(`config/samples/${f}`), 'utf8')) as Json,
  );
}

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

  it('prunes the Boxcutter-only spec.progressDeadlineMinutes (not served, decision 0070)', async () => {
    const res = await dryRunCreate(extension({ ...ceSpec(), progressDeadlineMinutes: 30 }));
    expectAccepted(res);
    expect(res.body.spec).not.toHaveProperty('progressDeadlineMinutes');
  });
});

// resolver.md §2.4.6 / api-and-controllers.md §1.1, with the regex's quirks.
const VERSIONS_ACCEPTED = [
  '1.2.3', '1.2.3-alpha.1+metadata', '1.2.3-alpha-beta', '>=1.2.3', '=>1.2.3', '>= 1.2.3', '>=v1.2.3', '>= v1.2.3',
  '<=1.2.3', '=<1.2.3', '=1.2.3', '!=1.2.3', '<1.2.3', '>1.2.3', '~1.2.2', '~>1.2.3', '^1.2.3', 'v1.2.3',
  '1.x', '1.X', '1.*', '1.2.x', '1.2.X', '1.2.*', '>=1.2.3 <2.3.4', '>=1.2.3,<2.3.4', '>=1.2.3, <2.3.4',
  '<1.2.3||>2.3.4', '<1.2.3|| >2.3.4', '<1.2.3 ||>2.3.4', '<1.2.3 || >2.3.4', '>1.0.0,<1.2.3 || >2.1.0',
  '<1.2.3-abc >2.3.4-def', '<1.2.3-abc+def >2.3.4-ghi+jkl', '1.x.x', '*', 'x', '>=1.0.0 <2.*', '|',
];
const VERSIONS_REJECTED = [
  'invalid-semver', '1.2.3.4', '1.2.3-beta!', '1.2.3.alpha', '1..2.3', '1.2.3-pre+bad_metadata', '1.2.-3', '.1.2.3',
  '<<1.2.3', '>>1.2.3', '>~1.2.3', '==1.2.3', '=!1.2.3', '!1.2.3', '1.Y', '>1.2.3 && <2.3.4', '>1.2.3;<2.3.4',
  '01.2.3', '1.02.3', '1.2.03', '1.2.3 - 2.3.4', '1.*.*', '>=1.0.0 <2.0.*', '>=1.0.0 <*',
];

describe('ClusterExtension spec.source.catalog.version', () => {
  const field = 'spec.source.catalog.version';
  table([
    ...VERSIONS_ACCEPTED.map((v) => ({ name: JSON.stringify(v), obj: () => extension(ceSpec({ version: v })) })),
    ...VERSIONS_REJECTED.map((v) => ({
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

const SUBDOMAIN = 'must be a valid DNS1123 subdomain. It must contain only lowercase alphanumeric characters, hyphens (-) or periods (.), start and end with an alphanumeric character, and be no longer than 253 characters';

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
    {
      name: 'a missing serviceAccount',
      obj: () => extension({ namespace: 'default', source: catalogSource({}) }),
      reject: { field: 'spec.serviceAccount', message: 'Required value' },
    },
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
    const condition = { type: 'Installed', status: 'True', reason: 'Succeeded', message: 'm', lastTransitionTime: '2024-01-02T03:04:05Z', observedGeneration: 1 };
    const withStatus = (bundle: Json): Json => ({ ...stored, status: { conditions: [condition], install: { bundle } } });
    expectAccepted(await dryRunUpdate(withStatus({ name: 'pkg.v1.0.0', version: '1.0.0+2', release: '2' }), '/status'));
    const bundleField = 'status.install.bundle';
    expectRejected(await dryRunUpdate(withStatus({ name: 'Bad_Name', version: '1.0.0' }), '/status'), `${bundleField}.name`, `packageName ${SUBDOMAIN}`);
    expectRejected(await dryRunUpdate(withStatus({ name: 'b', version: 'v1' }), '/status'), `${bundleField}.version`, 'version must be well-formed semver');
    expectRejected(
      await dryRunUpdate(withStatus({ name: 'b', version: '1.0.0', release: '01' }), '/status'),
      `${bundleField}.release`,
      'release must be empty or consist of dot-separated identifiers (numeric without leading zeros, or alphanumeric)',
    );
  });
});

describe('ClusterCatalog defaults', () => {
  it('sets priority 0 and availabilityMode Available', async () => {
    const res = await dryRunCreate(catalog(imageSpec({ ref: 'registry.example/catalog:latest' })));
    expectAccepted(res);
    expect(res.body).toMatchObject({ spec: { priority: 0, availabilityMode: 'Available' } });
  });
});

// The eight rules on spec.source.image.ref (api-and-controllers.md §2.1), in CRD order.
const REF_RULES = [
  'must start with a valid domain. valid domains must be alphanumeric characters (lowercase and uppercase) separated by the "." character.',
  'a valid name is required. valid names must contain lowercase alphanumeric characters separated only by the ".", "_", "__", "-" characters.',
  'must end with a digest or a tag',
  'tag is invalid. the tag must not be more than 127 characters',
  'tag is invalid. valid tags must begin with a word character (alphanumeric + "_") followed by word characters or ".", and "-" characters',
  'digest algorithm is not valid. valid algorithms must start with an uppercase or lowercase alpha character followed by alphanumeric characters and may contain the "-", "_", "+", and "." characters.',
  'digest is not valid. the encoded string must be at least 32 characters',
  'digest is not valid. the encoded string must only contain hex characters (A-F, a-f, 0-9)',
];
const HEX32 = 'abcdef123456789abcdef123456789abc';

describe('ClusterCatalog spec.source.image.ref', () => {
  // ref -> the numbers (1-8) of the rules that must fail, exactly.
  const cases: [string, number[]][] = [
    [`docker.io/test-image@sha256:${HEX32}`, []],
    ['docker.io/foo/bar:v1.0.0', []],
    ['my-subdomain.docker.io:8080/foo/bar:latest', []],
    ['my-subdomain.docker.io:8080/foo/bar:latest-', []],
    [`-quay+docker/foo/bar@sha256:${HEX32}`, [1]],
    [`docker.io/FOO/BAR@sha256:${HEX32}`, [2]],
    ['docker.io/foo/bar', [3]],
    [`docker.io/foo/bar:${'x'.repeat(128)}`, [4]],
    ['docker.io/foo/bar:-foo_bar-', [5]],
    [`docker.io/foo/bar@99-problems:${HEX32}`, [6]],
    ['docker.io/foo/bar@sha256:abcdef123456789', [7]],
    ['docker.io/foo/bar@sha256:XYZxy123456789abcdef123456789abc', [8]],
    // Quirks: a port makes find(':.*$') start at the port's colon.
    ['docker.io:8080', [2]],
    ['host:5000/foo/bar', [5]],
  ];
  for (const [ref, failing] of cases) {
    const label = ref.length > 60 ? `${ref.slice(0, 57)}...` : ref;
    it(`${failing.length === 0 ? 'accepts' : `rejects with rule ${failing.join(',')}`} ${label}`, async () => {
      const res = await dryRunCreate(catalog(imageSpec({ ref })));
      if (failing.length === 0) return expectAccepted(res);
      expect(res.status).toBe(422);
      const reported = causes(res)
        .filter((c) => c.field === 'spec.source.image.ref')
        .map((c) => REF_RULES.findIndex((m) => c.message?.endsWith(m) === true) + 1);
      expect(reported, JSON.stringify(causes(res))).toEqual(failing);
    });
  }
});

describe('ClusterCatalog spec validation', () => {
  const tagged = 'registry.example/catalog:latest';
  const digested = `registry.example/catalog@sha256:${'a'.repeat(64)}`;
  table([
    { name: 'pollIntervalMinutes with a tag', obj: () => catalog(imageSpec({ ref: tagged, pollIntervalMinutes: 5 })) },
    { name: 'a digest without pollIntervalMinutes', obj: () => catalog(imageSpec({ ref: digested })) },
    {
      name: 'pollIntervalMinutes with a digest',
      obj: () => catalog(imageSpec({ ref: digested, pollIntervalMinutes: 5 })),
      reject: { field: 'spec.source.image', message: 'cannot specify pollIntervalMinutes while using digest-based image' },
    },
    {
      name: 'pollIntervalMinutes 0',
      obj: () => catalog(imageSpec({ ref: tagged, pollIntervalMinutes: 0 })),
      reject: { field: 'spec.source.image.pollIntervalMinutes', message: 'should be greater than or equal to 1' },
    },
    {
      name: 'a 1001-character ref',
      obj: () => catalog(imageSpec({ ref: `registry.example/${'a'.repeat(980)}:latest` })),
      reject: { field: 'spec.source.image.ref', message: 'Too long: may not be more than 1000' },
    },
    {
      name: 'source type Image without image',
      obj: () => catalog({ source: { type: 'Image' } }),
      reject: { field: 'spec.source', message: 'image is required when source type is Image, and forbidden otherwise' },
    },
    {
      name: 'an unknown source type',
      obj: () => catalog({ source: { type: 'Git' } }),
      reject: { field: 'spec.source.type', message: 'Unsupported value: "Git"' },
    },
    { name: 'priority at the int32 bounds', obj: () => catalog({ ...imageSpec({ ref: tagged }), priority: -2147483648 }) },
    { name: 'priority 2147483647', obj: () => catalog({ ...imageSpec({ ref: tagged }), priority: 2147483647 }) },
    {
      name: 'priority above int32',
      obj: () => catalog({ ...imageSpec({ ref: tagged }), priority: 2147483648 }),
      reject: { field: 'spec.priority', message: 'should be less than or equal to 2147483647' },
    },
    {
      name: 'priority below int32',
      obj: () => catalog({ ...imageSpec({ ref: tagged }), priority: -2147483649 }),
      reject: { field: 'spec.priority', message: 'should be greater than or equal to -2147483648' },
    },
    {
      name: 'an unknown availabilityMode',
      obj: () => catalog({ ...imageSpec({ ref: tagged }), availabilityMode: 'Sometimes' }),
      reject: { field: 'spec.availabilityMode', message: 'Unsupported value: "Sometimes"' },
    },
    { name: 'availabilityMode Unavailable', obj: () => catalog({ ...imageSpec({ ref: tagged }), availabilityMode: 'Unavailable' }) },
    { name: 'an object without spec', obj: () => catalog(undefined), reject: { field: 'spec', message: 'Required value' } },
  ]);
});

describe('ClusterCatalog status', () => {
  let stored: Json;
  beforeAll(async () => {
    stored = await createForReal(catalog(imageSpec({ ref: 'registry.example/catalog:latest' })));
  });

  const name = (): string => (stored.metadata as Json).name as string;
  const withStatus = (patch: Json): Json => ({
    ...stored,
    status: {
      conditions: [{ type: 'Serving', status: 'True', reason: 'Available', message: '', lastTransitionTime: '2024-01-02T03:04:05Z', observedGeneration: 1 }],
      resolvedSource: { type: 'Image', image: { ref: `registry.example/catalog@sha256:${'b'.repeat(64)}` } },
      urls: { base: `https://catalogd-service.olmv1-system.svc/catalogs/${name()}` },
      lastUnpacked: '2024-01-02T03:04:05Z',
      ...patch,
    },
  });

  it('accepts the status catalogd writes', async () => {
    expectAccepted(await dryRunUpdate(withStatus({}), '/status'));
  });

  it('rejects a base URL that is not a URL or not http(s)', async () => {
    const field = 'status.urls.base';
    expectRejected(await dryRunUpdate(withStatus({ urls: { base: 'notevenarealURL' } }), '/status'), field, 'must be a valid URL');
    expectRejected(await dryRunUpdate(withStatus({ urls: { base: 'file://somefilepath' } }), '/status'), field, 'scheme must be either http or https');
  });

  it('rejects a resolved source that is a tag', async () => {
    const resolvedSource = { type: 'Image', image: { ref: 'registry.example/catalog:latest' } };
    const res = await dryRunUpdate(withStatus({ resolvedSource }), '/status');
    expectRejected(res, 'status.resolvedSource.image.ref', 'must end with a digest');
  });
});
