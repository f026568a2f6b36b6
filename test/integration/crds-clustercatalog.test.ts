// The ClusterCatalog CRD on a real kube-apiserver: defaults, the image reference rules, spec and
// status validation, with upstream's messages.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  dryRunCreate,
  createForReal,
  dryRunUpdate,
  causes,
  expectAccepted,
  expectRejected,
  table,
  imageSpec,
  catalog,
  type Json,
  useCrds,
} from '../support/crd-admission.ts';

useCrds();

describe('ClusterCatalog defaults', () => {
  it('sets priority 0 and availabilityMode Available', async () => {
    const res = await dryRunCreate(catalog(imageSpec({ ref: 'registry.example/catalog:latest' })));
    expectAccepted(res);
    expect(res.body).toMatchObject({ spec: { priority: 0, availabilityMode: 'Available' } });
  });
});

// The eight rules on spec.source.image.ref, in CRD order.
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
      conditions: [
        { type: 'Serving', status: 'True', reason: 'Available', message: '', lastTransitionTime: '2024-01-02T03:04:05Z', observedGeneration: 1 },
      ],
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
    expectRejected(
      await dryRunUpdate(withStatus({ urls: { base: 'file://somefilepath' } }), '/status'),
      field,
      'scheme must be either http or https',
    );
  });

  it('rejects a resolved source that is a tag', async () => {
    const resolvedSource = { type: 'Image', image: { ref: 'registry.example/catalog:latest' } };
    const res = await dryRunUpdate(withStatus({ resolvedSource }), '/status');
    expectRejected(res, 'status.resolvedSource.image.ref', 'must end with a digest');
  });
});
