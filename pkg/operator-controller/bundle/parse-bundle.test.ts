import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseBundle, readBundleDir, type BundleFiles } from './index.ts';

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/bundles/', import.meta.url));
const enc = new TextEncoder();

const ANNOTATIONS = 'annotations:\n  operators.operatorframework.io.bundle.package.v1: pkg\n';
const CSV = (name: string) => `apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: ${name}
spec:
  installModes: [{type: AllNamespaces, supported: true}]
`;

function files(entries: Record<string, string | Uint8Array>): BundleFiles {
  return new Map(Object.entries(entries).map(([k, v]) => [k, typeof v === 'string' ? enc.encode(v) : v]));
}

function parseError(entries: Record<string, string | Uint8Array>): string {
  const r = parseBundle(files(entries));
  if (r.ok) throw new Error('expected a parse error');
  return r.error;
}

describe('parseBundle on fixture bundles', () => {
  it('reads package, CSV, CRDs and other objects in lexical file order', async () => {
    const r = parseBundle(await readBundleDir(join(FIXTURES, 'multi-crd')));
    if (!r.ok) throw new Error(r.error);
    expect(r.value.packageName).toBe('acme-widgets');
    expect(r.value.csv.metadata?.name).toBe('acme-widgets.v1.2.0');
    expect(r.value.crds.map((c) => c.metadata.name)).toEqual([
      'gadgets.widgets.acme.example.com',
      'gizmos.widgets.acme.example.com',
      'widgets.widgets.acme.example.com',
    ]);
    expect(r.value.others.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual([
      'ClusterRole/acme-widgets-metrics-reader',
      'Service/acme-widgets-metrics',
      'ConfigMap/acme-widgets-settings',
    ]);
  });

  it('resolves anchors, aliases and merge keys; reads JSON streams and flattens lists', async () => {
    const r = parseBundle(await readBundleDir(join(FIXTURES, 'anchors')));
    if (!r.ok) throw new Error(r.error);
    const csv = r.value.csv;
    expect(csv.spec?.installModes).toEqual([
      { type: 'OwnNamespace', supported: false },
      { type: 'SingleNamespace', supported: false },
      { type: 'MultiNamespace', supported: false },
      { type: 'AllNamespaces', supported: true },
    ]);
    const containers = csv.spec?.install?.spec?.deployments?.[0]?.spec?.template?.spec?.containers ?? [];
    expect(containers.map((c) => [c.name, c['image']])).toEqual([
      ['manager', 'registry.example.com/acme/anchors:v0.1.0'],
      ['helper', 'registry.example.com/acme/anchors:v0.1.0'],
    ]);
    expect(r.value.others.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual([
      'Service/acme-anchors-metrics',
      'ClusterRole/acme-anchors-viewer',
      'ConfigMap/acme-anchors-from-typed-list',
      'ConfigMap/acme-anchors-json',
      'Secret/acme-anchors-json-secret',
    ]);
    // YAML 1.1 scalars as Go reads them: `on`/`yes` are booleans (here: keys "true").
    expect(r.value.others[2]?.['data']).toEqual({ true: 'no' });
  });

  it('keeps missing optional fields absent', async () => {
    const r = parseBundle(await readBundleDir(join(FIXTURES, 'minimal')));
    if (!r.ok) throw new Error(r.error);
    expect(r.value.csv.metadata?.annotations).toBeUndefined();
    expect(r.value.crds).toEqual([]);
    expect(r.value.others).toEqual([]);
  });
});

describe('parseBundle refusals', () => {
  it.each([
    ['missing annotations.yaml', { 'manifests/csv.yaml': CSV('a') }, 'open metadata/annotations.yaml: file does not exist'],
    ['no manifests directory', { 'metadata/annotations.yaml': ANNOTATIONS }, 'open manifests: file does not exist'],
    [
      'no CSV',
      { 'metadata/annotations.yaml': ANNOTATIONS, 'manifests/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n' },
      'no ClusterServiceVersion found in "manifests"',
    ],
    [
      'a subdirectory',
      { 'metadata/annotations.yaml': ANNOTATIONS, 'manifests/a.yaml': CSV('a'), 'manifests/sub/b.yaml': CSV('b') },
      'subdirectories are not allowed within the "manifests" directory of the bundle image filesystem: found "manifests/sub"',
    ],
    [
      'an empty subdirectory',
      { 'metadata/annotations.yaml': ANNOTATIONS, 'manifests/a.yaml': CSV('a'), 'manifests/empty/': '' },
      'subdirectories are not allowed within the "manifests" directory of the bundle image filesystem: found "manifests/empty"',
    ],
  ])('%s', (_name, entries, message) => {
    expect(parseError(entries)).toBe(message);
  });

  it('reports YAML syntax errors with the file', () => {
    const msg = parseError({ 'metadata/annotations.yaml': ANNOTATIONS, 'manifests/bad.yaml': 'a: 1\nb: [\n' });
    expect(msg).toMatch(
      /^error parsing objects in "manifests\/bad.yaml": error parsing manifests\/bad.yaml: error converting YAML to JSON: yaml: line \d+: /,
    );
  });

  it('reports a YAML error in the third document of a manifest with the file line and the document', () => {
    const cm = (n: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${n}\n`;
    const msg = parseError({ 'metadata/annotations.yaml': ANNOTATIONS, 'manifests/cms.yaml': `${cm('a')}---\n${cm('b')}---\n${cm('c')}   x: : y\n` });
    expect(msg).toBe(
      'error parsing objects in "manifests/cms.yaml": error parsing manifests/cms.yaml: error converting YAML to JSON: yaml: line 15 (document 3): mapping values are not allowed in this context',
    );
  });

  it.each([
    ['kind missing', 'apiVersion: v1\nmetadata: {name: x}\n', `Object 'Kind' is missing in '{"apiVersion":"v1","metadata":{"name":"x"}}'`],
    ['apiVersion missing', 'kind: ConfigMap\n', `Object 'apiVersion' is missing in '{"kind":"ConfigMap"}'`],
    ['a scalar document', 'just text\n', 'json: cannot unmarshal string into Go value of type map[string]interface {}'],
  ])('refuses documents that are not objects: %s', (_name, doc, detail) => {
    const msg = parseError({ 'metadata/annotations.yaml': ANNOTATIONS, 'manifests/a.yaml': CSV('a'), 'manifests/b.yaml': doc });
    expect(msg).toBe(`error parsing objects in "manifests/b.yaml": unable to decode "manifests/b.yaml": ${detail}`);
  });

  it('refuses CSV fields of the wrong type, naming the path', () => {
    const bad = CSV('a').replace('supported: true', 'supported: "yes please"');
    expect(parseError({ 'metadata/annotations.yaml': ANNOTATIONS, 'manifests/a.yaml': bad })).toBe(
      'error parsing objects in "manifests/a.yaml": ClusterServiceVersion "a": spec.installModes[0].supported: Invalid input: expected boolean, received string',
    );
  });

  it('refuses apiextensions.k8s.io/v1beta1 CRDs', () => {
    const crd = 'apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata: {name: xs.example.com}\nspec: {}\n';
    expect(parseError({ 'metadata/annotations.yaml': ANNOTATIONS, 'manifests/a.yaml': CSV('a'), 'manifests/crd.yaml': crd })).toBe(
      'error parsing objects in "manifests/crd.yaml": CustomResourceDefinition "xs.example.com": apiVersion "apiextensions.k8s.io/v1beta1" is not supported; only apiextensions.k8s.io/v1 CustomResourceDefinitions can be installed',
    );
  });

  it('refuses alias bombs instead of expanding them', () => {
    let doc = 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n';
    for (let i = 1; i < 9; i++)
      doc += `a${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(', ')}]\n`;
    const msg = parseError({
      'metadata/annotations.yaml': ANNOTATIONS,
      'manifests/a.yaml': CSV('a'),
      'manifests/bomb.yaml': `apiVersion: v1\nkind: ConfigMap\n${doc}`,
    });
    expect(msg).toContain('yaml: document contains excessive aliasing');
  });

  it('refuses invalid UTF-8', () => {
    const msg = parseError({ 'metadata/annotations.yaml': ANNOTATIONS, 'manifests/a.yaml': new Uint8Array([0x6b, 0xff, 0xfe]) });
    expect(msg).toBe('error parsing objects in "manifests/a.yaml": error parsing manifests/a.yaml: invalid UTF-8 text');
  });

  it('reports a package name of the wrong type', () => {
    const msg = parseError({ 'metadata/annotations.yaml': 'annotations:\n  operators.operatorframework.io.bundle.package.v1: 5\n' });
    expect(msg).toContain(
      'cannot unmarshal number into Go struct field Annotations.annotations.operators.operatorframework.io.bundle.package.v1 of type string',
    );
  });
});

describe('parseBundle classification', () => {
  it('lets the last CSV (in lexical file order) win', () => {
    const r = parseBundle(files({ 'metadata/annotations.yaml': ANNOTATIONS, 'manifests/b.yaml': CSV('second'), 'manifests/a.yaml': CSV('first') }));
    expect(r.ok && r.value.csv.metadata?.name).toBe('second');
  });

  it('yields an empty package name when the annotation is absent (rendering refuses it later)', () => {
    const r = parseBundle(files({ 'metadata/annotations.yaml': 'annotations: {}\n', 'manifests/a.yaml': CSV('a') }));
    expect(r.ok && r.value.packageName).toBe('');
  });

  it('normalises ./ prefixes and backslashes in paths', () => {
    const r = parseBundle(files({ './metadata/annotations.yaml': ANNOTATIONS, 'manifests\\a.yaml': CSV('a') }));
    expect(r.ok && r.value.csv.metadata?.name).toBe('a');
  });

  it('consumes the files handed over, each manifest file as it is reached; leaves a map it is lent as it was', () => {
    const entries = {
      './metadata/annotations.yaml': ANNOTATIONS,
      'metadata/properties.yaml': 'properties: []\n',
      'manifests\\b.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n',
      'manifests/a.yaml': CSV('a'),
      'manifests/c.yaml': 'apiVersion: v1\nkind: Secret\nmetadata: {name: c}\n',
    };
    const lent = files(entries);
    const expected = parseBundle(lent);
    expect(lent.size).toBe(5);
    const deleted: string[] = [];
    const handed = new (class extends Map<string, Uint8Array> {
      override delete(key: string): boolean {
        // Each file goes before the next one is decoded: the objects decoded so far are one fewer.
        deleted.push(`${key} after ${this.size}`);
        return super.delete(key);
      }
    })(files(entries));
    const bytes = new Map(handed);
    const consumed = parseBundle(handed, { consume: true });
    expect(consumed).toEqual(expected);
    // The manifests' bytes were freed (their ArrayBuffers detached); the metadata's are intact, and so is all that was lent.
    expect([...bytes].map(([k, b]) => [k, b.byteLength === 0])).toEqual([
      ['./metadata/annotations.yaml', false],
      ['metadata/properties.yaml', false],
      ['manifests\\b.yaml', true],
      ['manifests/a.yaml', true],
      ['manifests/c.yaml', true],
    ]);
    expect([...lent.values()].every((b) => b.byteLength > 0)).toBe(true);
    expect(deleted).toEqual(['manifests/a.yaml after 5', 'manifests\\b.yaml after 4', 'manifests/c.yaml after 3']);
    expect([...handed.keys()]).toEqual(['./metadata/annotations.yaml', 'metadata/properties.yaml']);
  });

  it('merges metadata/properties.yaml into the olm.properties annotation', () => {
    const r = parseBundle(
      files({
        'metadata/annotations.yaml': ANNOTATIONS,
        'metadata/properties.yaml': 'properties:\n  - {type: olm.maxOpenShiftVersion, value: 4.10}\n',
        'manifests/a.yaml': CSV('a'),
      }),
    );
    expect(r.ok && r.value.csv.metadata?.annotations).toEqual({ 'olm.properties': '[{"type":"olm.maxOpenShiftVersion","value":4.1}]' });
  });

  it('reports an unparsable olm.properties annotation even without properties.yaml', () => {
    const csv = CSV('a').replace('  name: a\n', "  name: a\n  annotations:\n    olm.properties: '[{]'\n");
    expect(parseError({ 'metadata/annotations.yaml': ANNOTATIONS, 'manifests/a.yaml': csv })).toBe(
      "failed to unmarshal csv.metadata.annotations['olm.properties']: invalid character ']' looking for beginning of object key string",
    );
  });
});

describe('readBundleDir', () => {
  it('records files with /-separated relative paths and directories with a trailing /', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bundle-'));
    try {
      await mkdir(join(dir, 'manifests', 'empty'), { recursive: true });
      await mkdir(join(dir, 'metadata'));
      await writeFile(join(dir, 'metadata', 'annotations.yaml'), ANNOTATIONS);
      await writeFile(join(dir, 'manifests', 'a.yaml'), CSV('a'));
      await symlink(join(dir, 'metadata'), join(dir, 'linked'));
      const files = await readBundleDir(dir);
      expect([...files.keys()].sort()).toEqual([
        'linked/',
        'linked/annotations.yaml',
        'manifests/',
        'manifests/a.yaml',
        'manifests/empty/',
        'metadata/',
        'metadata/annotations.yaml',
      ]);
      expect(parseBundle(files)).toEqual({
        ok: false,
        error: 'subdirectories are not allowed within the "manifests" directory of the bundle image filesystem: found "manifests/empty"',
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a tree that links read over and over: links to one large file, directories linking back', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bundle-'));
    try {
      await mkdir(join(dir, 'manifests'));
      // 10 MiB stored once, read through seven links: 80 MiB, over the 64 MiB a read may take.
      await writeFile(join(dir, 'manifests', 'big.yaml'), Buffer.alloc(10 * 1024 * 1024, 0x20));
      for (let i = 0; i < 7; i++) await symlink(join(dir, 'manifests', 'big.yaml'), join(dir, `copy-${i}.yaml`));
      await expect(readBundleDir(dir)).rejects.toThrow(/reads more than 67108864 bytes \(symbolic links counted wherever they appear\)/);
      await rm(join(dir, 'manifests', 'big.yaml'));
      for (let i = 0; i < 7; i++) await rm(join(dir, `copy-${i}.yaml`));
      // Six directories, each with ten links to the next: no cycle (the depth limit does not
      // apply), 10^6 paths to visit, refused at 20,000 entries.
      for (let d = 0; d < 6; d++) await mkdir(join(dir, `d${d}`));
      await writeFile(join(dir, 'd5', 'a.yaml'), 'x');
      for (let d = 0; d < 5; d++) for (let i = 0; i < 10; i++) await symlink(join(dir, `d${d + 1}`), join(dir, `d${d}`, `to-${i}`));
      await expect(readBundleDir(dir)).rejects.toThrow(/reads more than 20000 entries/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    // 20,000 entries through links take ~4 s alone and over 20 s on two loaded cores.
  }, 90_000);

  it('fails with the directory named when it cannot be read', async () => {
    await expect(readBundleDir('/nonexistent/bundle')).rejects.toThrow('reading bundle directory "/nonexistent/bundle"');
  });
});
