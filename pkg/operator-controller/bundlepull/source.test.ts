import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseBundle, type RegistryV1Bundle } from '../bundle/index.ts';
import type { ImageCache, PullOptions, PullResult } from '../../shared/image/index.ts';
import { LineStore } from '../../shared/lines/index.ts';
import { BundleBudget } from './budget.ts';
import { bundleProperties, cachedBundle, fetchBundle } from './source.ts';

const ANNOTATIONS = 'annotations:\n  operators.operatorframework.io.bundle.package.v1: widgets\n';

function csv(annotation?: string): string {
  const annotations = annotation === undefined ? '' : `  annotations:\n    olm.properties: ${JSON.stringify(annotation)}\n`;
  return `apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: widgets.v1.0.0
${annotations}spec:
  installModes: [{type: AllNamespaces, supported: true}]
`;
}

function bundleFiles(annotation?: string, propertiesYaml?: string): Record<string, string> {
  return {
    'metadata/annotations.yaml': ANNOTATIONS,
    'manifests/csv.yaml': csv(annotation),
    ...(propertiesYaml === undefined ? {} : { 'metadata/properties.yaml': propertiesYaml }),
  };
}

function parsed(files: Record<string, string>): RegistryV1Bundle {
  const enc = new TextEncoder();
  const r = parseBundle(new Map(Object.entries(files).map(([k, v]) => [k, enc.encode(v)])));
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

describe('bundleProperties', () => {
  it.each([
    ['no annotation', bundleFiles(), []],
    [
      'the annotation array',
      bundleFiles('[{"type":"olm.maxOpenShiftVersion","value":"4.16"}]'),
      [{ type: 'olm.maxOpenShiftVersion', value: '4.16' }],
    ],
    [
      'the annotation merged with metadata/properties.yaml',
      bundleFiles('[{"type":"a","value":1}]', 'properties:\n  - type: b\n    value: {x: z}\n'),
      [
        { type: 'a', value: 1 },
        { type: 'b', value: { x: 'z' } },
      ],
    ],
    ['metadata/properties.yaml alone', bundleFiles(undefined, 'properties:\n  - type: b\n    value: 2\n'), [{ type: 'b', value: 2 }]],
    ['an empty properties list (Go null)', bundleFiles(undefined, 'properties: []\n'), []],
  ])('%s', (_name, files, want) => {
    expect(bundleProperties(parsed(files))).toEqual(want);
  });

  it.each([
    ['empty', ''],
    ['not JSON', '{{'],
    ['not an array', '{"type":"a"}'],
  ])('an annotation that is %s gives []', (_name, annotation) => {
    const bundle = parsed(bundleFiles());
    const withAnnotation: RegistryV1Bundle = {
      ...bundle,
      csv: { ...bundle.csv, metadata: { ...bundle.csv.metadata, annotations: { 'olm.properties': annotation } } },
    };
    expect(bundleProperties(withAnnotation)).toEqual([]);
  });
});

describe('fetchBundle', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });

  async function bundleDir(files: Record<string, string>): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'bundle-source-'));
    dirs.push(dir);
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    return dir;
  }

  function fakes(
    dir: string,
    fromCache: boolean,
  ): { images: { pull: (ref: string, o: PullOptions) => Promise<PullResult> }; cache: ImageCache; log: string[] } {
    const log: string[] = [];
    const cache = {
      garbageCollect: (owner: string, keep: string) => Promise.resolve(void log.push(`gc ${owner} keep ${keep}`)),
    } as unknown as ImageCache;
    const images = {
      pull: (ref: string, o: PullOptions) => {
        log.push(`pull ${ref} for ${o.owner}${o.cache === cache ? ' with the cache' : ''}`);
        return Promise.resolve({
          dir,
          digest: 'sha256:abc',
          digestRef: 'registry.example/widgets@sha256:abc',
          config: {},
          unpackedAt: new Date(0),
          fromCache,
        } as PullResult);
      },
    };
    return { images, cache, log };
  }

  it('pulls into the cache, parses the bundle and removes the extension other digests after a fresh pull', async () => {
    const dir = await bundleDir(bundleFiles('[{"type":"a","value":1}]'));
    const { images, cache, log } = fakes(dir, false);
    const out = await fetchBundle({ images, cache }, { owner: 'ext', ref: 'registry.example/widgets:v1' });
    expect(out).toMatchObject({ digestRef: 'registry.example/widgets@sha256:abc', fromCache: false, bundle: { packageName: 'widgets' } });
    expect(bundleProperties(out.bundle)).toEqual([{ type: 'a', value: 1 }]);
    expect(log).toEqual(['pull registry.example/widgets:v1 for ext with the cache', 'gc ext keep sha256:abc']);
  });

  it('does not collect garbage for a cached image', async () => {
    const dir = await bundleDir(bundleFiles());
    const { images, cache, log } = fakes(dir, true);
    expect((await fetchBundle({ images, cache }, { owner: 'ext', ref: 'r@sha256:abc' })).fromCache).toBe(true);
    expect(log).toEqual(['pull r@sha256:abc for ext with the cache']);
  });

  it('throws the parser message for an invalid bundle', async () => {
    const dir = await bundleDir({
      'metadata/annotations.yaml': ANNOTATIONS,
      'manifests/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n',
    });
    const { images, cache, log } = fakes(dir, false);
    await expect(fetchBundle({ images, cache }, { owner: 'ext', ref: 'r:v1' })).rejects.toThrow('no ClusterServiceVersion found in "manifests"');
    expect(log).toEqual(['pull r:v1 for ext with the cache']);
  });

  it('takes a lease of the bundle bytes from the budget before reading, and gives it back when the bundle is invalid', async () => {
    const files = bundleFiles();
    const bytes = Object.values(files).reduce((n, t) => n + Buffer.byteLength(t), 0);
    const budget = new BundleBudget(1);
    const out = await fetchBundle(
      { images: fakes(await bundleDir(files), false).images, cache: fakes('', false).cache, memory: { budget } },
      { owner: 'ext', ref: 'r:v1' },
    );
    expect(out.lease?.bytes).toBe(bytes);
    expect(budget.held).toBe(bytes);
    // The budget is full: the next bundle waits until the lease is given back.
    const bad = await bundleDir({
      'metadata/annotations.yaml': ANNOTATIONS,
      'manifests/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n',
    });
    const next = fetchBundle({ images: fakes(bad, false).images, cache: fakes('', false).cache, memory: { budget } }, { owner: 'ext', ref: 'r:v2' });
    while (budget.waiting === 0) await new Promise((r) => setImmediate(r));
    out.lease?.release();
    await expect(next).rejects.toThrow('no ClusterServiceVersion found in "manifests"');
    expect(budget.held).toBe(0);
  });

  it("keeps the other objects' lines of a bundle above the spill size in a file, of others in memory", async () => {
    const files = bundleFiles();
    const bytes = Object.values(files).reduce((n, t) => n + Buffer.byteLength(t), 0);
    const dir = await bundleDir(files);
    const spillDir = join(dir, 'spill');
    const { images, cache } = fakes(dir, true);
    for (const [aboveBytes, inFile] of [
      [bytes - 1, true],
      [bytes, false],
    ] as const) {
      const out = await fetchBundle({ images, cache, memory: { spill: { dir: spillDir, aboveBytes } } }, { owner: 'ext', ref: 'r@sha256:abc' });
      const lines = out.bundle.otherLines;
      expect(lines instanceof LineStore).toBe(inFile);
      expect(lines?.length).toBe(out.bundle.others.length);
      // The file is unlinked as soon as it is made.
      if (inFile) expect(await readdir(spillDir)).toEqual([]);
    }
  });

  describe('cachedBundle', () => {
    const DIGEST = `sha256:${'a'.repeat(64)}`;

    function cacheWith(dir: string | undefined, asked: string[]): ImageCache {
      return {
        fetch: (owner: string, digest: string) => {
          asked.push(`${owner} ${digest}`);
          return Promise.resolve(dir === undefined ? undefined : { dir, digest, config: {}, unpackedAt: new Date(0) });
        },
      } as unknown as ImageCache;
    }

    it('reads a digest reference from the extension cache entry', async () => {
      const dir = await bundleDir(bundleFiles());
      const asked: string[] = [];
      const out = await cachedBundle({ cache: cacheWith(dir, asked) }, { owner: 'ext', ref: `registry.example/widgets@${DIGEST}` });
      expect(out).toMatchObject({ digestRef: `registry.example/widgets@${DIGEST}`, fromCache: true, bundle: { packageName: 'widgets' } });
      expect(asked).toEqual([`ext ${DIGEST}`]);
      expect(out?.lease).toBeUndefined();
      const budget = new BundleBudget(1 << 20);
      const leased = await cachedBundle(
        { cache: cacheWith(dir, asked), memory: { budget } },
        { owner: 'ext', ref: `registry.example/widgets@${DIGEST}` },
      );
      expect(leased?.lease?.bytes).toBe(budget.held);
      expect(budget.held).toBeGreaterThan(0);
    });

    it.each([
      ['a digest not in the cache', `registry.example/widgets@${DIGEST}`, true],
      ['a tag reference (only the registry knows its digest)', 'registry.example/widgets:v1', false],
      ['an unparseable reference (the pull reports it)', 'Not A Reference', false],
    ])('gives undefined for %s', async (_name, ref, looked) => {
      const asked: string[] = [];
      expect(await cachedBundle({ cache: cacheWith(undefined, asked) }, { owner: 'ext', ref })).toBeUndefined();
      expect(asked.length > 0).toBe(looked);
    });
  });
});
