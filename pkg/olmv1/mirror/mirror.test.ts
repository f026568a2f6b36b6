import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { parse } from 'smol-toml';
import type { Bundle } from '../../shared/fbc/index.ts';
import { clusterCatalog, imageDigestMirrorSet, mappingText, registriesConf } from './config.ts';
import { mirrorCatalog } from './mirror.ts';
import { mirrorPlan, parseMirrorPrefix } from './plan.ts';

const D = `sha256:${'a'.repeat(64)}`;
const bundle = (name: string, image: string, related: string[] = []): Bundle => ({
  schema: 'olm.bundle',
  name,
  package: 'p',
  image,
  properties: [],
  relatedImages: related.map((image) => ({ name: '', image })),
});

describe('parseMirrorPrefix', () => {
  it.each([
    ['mirror.example:5000/olm/', 'mirror.example:5000/olm'],
    ['localhost/x', 'localhost/x'],
    ['127.0.0.1:5000', '127.0.0.1:5000'],
  ])('accepts %s', (text, prefix) => expect(parseMirrorPrefix(text)).toEqual({ ok: true, prefix }));
  it.each([
    ['https://mirror.example', 'without a scheme'],
    ['mirror/olm', 'must be a registry host'],
    ['mirror.example/olm:v1', 'without a tag or digest'],
    ['mirror.example/olm@sha256:x', 'without a tag or digest'],
    ['mirror.example/UPPER', 'mirror "mirror.example/UPPER"'],
  ])('refuses %s', (text, why) => {
    const r = parseMirrorPrefix(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain(why);
  });
});

describe('mirrorPlan', () => {
  it('keeps each repository path under the mirror, lists shared images once, keeps tags', () => {
    const plan = mirrorPlan(
      'quay.io/acme/catalog:v4',
      {
        bundles: [
          bundle('a.v1', `quay.io/acme/a-bundle@${D}`, ['quay.io/acme/a:v1', 'docker.io/library/busybox:1.36']),
          bundle('b.v1', 'registry.example/b/bundle:1', ['quay.io/acme/a:v1']),
        ],
      },
      'mirror.example:5000/olm',
    );
    expect(plan.problems).toEqual([]);
    expect(plan.images.map((i) => [i.role, i.ref, i.target, i.tag, i.bundles])).toEqual([
      ['catalog', 'quay.io/acme/catalog:v4', 'mirror.example:5000/olm/acme/catalog', 'v4', []],
      ['bundle', `quay.io/acme/a-bundle@${D}`, 'mirror.example:5000/olm/acme/a-bundle', undefined, ['a.v1']],
      ['related', 'quay.io/acme/a:v1', 'mirror.example:5000/olm/acme/a', 'v1', ['a.v1', 'b.v1']],
      ['related', 'docker.io/library/busybox:1.36', 'mirror.example:5000/olm/library/busybox', '1.36', ['a.v1']],
      ['bundle', 'registry.example/b/bundle:1', 'mirror.example:5000/olm/b/bundle', '1', ['b.v1']],
    ]);
  });

  it('reports hostile references and two registries landing in one repository, and leaves them out', () => {
    const plan = mirrorPlan(
      'quay.io/acme/catalog:v4',
      {
        bundles: [
          bundle('x', 'quay.io/acme/op:v1\n[[registry]]'),
          bundle('y', 'quay.io/acme/op:v1'),
          bundle('z', 'other.example/acme/op:v1'),
          bundle('w', ''),
        ],
      },
      'm.example',
    );
    expect(plan.images.map((i) => i.ref)).toEqual(['quay.io/acme/catalog:v4', 'quay.io/acme/op:v1']);
    expect(plan.problems).toHaveLength(2);
    expect(plan.problems[0]).toContain('bundle "x": image "quay.io/acme/op:v1\\n[[registry]]"');
    expect(plan.problems[1]).toBe(
      'image "other.example/acme/op:v1": other.example/acme/op and quay.io/acme/op would both be mirrored to m.example/acme/op; left out',
    );
  });
});

describe('the mirror configuration', () => {
  const pairs = [
    { source: 'quay.io/acme/op', target: '127.0.0.1:5000/m/acme/op' },
    { source: 'quay.io/acme/op', target: '127.0.0.1:5000/m/acme/op' },
    { source: 'docker.io/library/busybox', target: '127.0.0.1:5000/m/library/busybox' },
  ];

  it('registries.conf keeps each original name and puts its mirror first (e2e: registries-mirrors.test.ts pulls through it)', () => {
    const conf = parse(registriesConf(pairs, (t) => t.startsWith('127.')));
    expect(conf).toEqual({
      registry: [
        {
          prefix: 'docker.io/library/busybox',
          location: 'docker.io/library/busybox',
          mirror: [{ location: '127.0.0.1:5000/m/library/busybox', insecure: true }],
        },
        { prefix: 'quay.io/acme/op', location: 'quay.io/acme/op', mirror: [{ location: '127.0.0.1:5000/m/acme/op', insecure: true }] },
        // The mirror by its own name, as clustercatalog.yaml names the catalog.
        { location: '127.0.0.1:5000', insecure: true },
      ],
    });
  });

  it('a hostile name cannot add a key or a table', () => {
    const text = registriesConf([{ source: 'quay.io/a"\n[[registry]]\nprefix = "x', target: 'm.example/a' }], () => false);
    expect(text.match(/^\[\[registry\]\]$/gm)).toHaveLength(1);
  });

  it('ImageDigestMirrorSet, ClusterCatalog and mapping.txt', () => {
    expect(load(imageDigestMirrorSet('ops', pairs))).toEqual({
      apiVersion: 'config.openshift.io/v1',
      kind: 'ImageDigestMirrorSet',
      metadata: { name: 'ops' },
      spec: {
        imageDigestMirrors: [
          { source: 'docker.io/library/busybox', mirrors: ['127.0.0.1:5000/m/library/busybox'] },
          { source: 'quay.io/acme/op', mirrors: ['127.0.0.1:5000/m/acme/op'] },
        ],
      },
    });
    expect(load(clusterCatalog('ops', `m.example/acme/catalog@${D}`))).toMatchObject({
      kind: 'ClusterCatalog',
      spec: { source: { type: 'Image', image: { ref: `m.example/acme/catalog@${D}` } } },
    });
    expect(mappingText([{ ...pairs[0]!, ref: 'quay.io/acme/op:v1', digest: D }])).toBe(`quay.io/acme/op@${D}=127.0.0.1:5000/m/acme/op@${D}\n`);
  });
});

describe('mirrorCatalog', () => {
  it('copies the catalog as read (by digest) and every image, reports each failure and goes on', async () => {
    const copies: string[] = [];
    const report = await mirrorCatalog(
      {
        loadCatalog: () =>
          Promise.resolve({
            digestRef: `quay.io/acme/catalog@${D}`,
            content: { bundles: [bundle('a.v1', 'quay.io/acme/a-bundle:1', ['quay.io/acme/gone:1'])] },
          }),
        copy: (source, target, { tag }) => {
          copies.push(`${source} -> ${target} ${tag ?? '-'}`);
          if (source.includes('gone')) return Promise.reject(new Error('manifest unknown'));
          return Promise.resolve({
            digest: D,
            manifests: 1,
            blobsCopied: 2,
            blobsPresent: 0,
            bytes: 10,
            targetRef: `${target}@${D}`,
            signature: source.includes('bundle'),
          });
        },
      },
      { catalog: 'quay.io/acme/catalog:v4', prefix: 'm.example', concurrency: 1 },
    );
    expect(copies).toEqual([
      `quay.io/acme/catalog@${D} -> m.example/acme/catalog v4`,
      'quay.io/acme/a-bundle:1 -> m.example/acme/a-bundle 1',
      'quay.io/acme/gone:1 -> m.example/acme/gone 1',
    ]);
    expect(report.copied.map((c) => [c.role, c.signature])).toEqual([
      ['catalog', false],
      ['bundle', true],
    ]);
    expect(report.failed.map((f) => [f.image.ref, f.error])).toEqual([['quay.io/acme/gone:1', 'manifest unknown']]);
  });
});
