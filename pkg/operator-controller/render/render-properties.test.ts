import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeDocuments, decodeUtf8, parseBundle, readBundleDir, type BundleFiles } from '../bundle/index.ts';
import { FIXTURE_BUNDLES_DIR } from '../../../test/fixtures/bundles/golden-cases.ts';
import { objectsToYaml, render, type RenderOptions } from './index.ts';

const FIXTURES = ['multi-crd', 'webhook', 'anchors', 'extra-kinds', 'own-only', 'single-only', 'minimal', 'dependencies'];
const bundles = new Map<string, BundleFiles>();
for (const name of FIXTURES) bundles.set(name, await readBundleDir(join(FIXTURE_BUNDLES_DIR, name)));

/** Parses and renders; returns the YAML, or `refused: <message>`. Throws only on a bug. */
function renderText(files: BundleFiles, options: RenderOptions): string {
  const bundle = parseBundle(files);
  if (!bundle.ok) return `refused: ${bundle.error}`;
  const result = render(bundle.value, options);
  return result.ok ? objectsToYaml(result.value) : `refused: ${result.error.message}`;
}

const optionsArb: fc.Arbitrary<RenderOptions> = fc.record(
  {
    installNamespace: fc.constantFrom('ns-a', 'operators', 'x'),
    certProvider: fc.constantFrom('cert-manager' as const, 'openshift-service-ca' as const),
    config: fc.oneof(
      fc.constant(undefined),
      fc.record({ watchNamespace: fc.constantFrom('ns-a', 'operators', 'team-b') }),
      fc.record({
        deploymentConfig: fc.record(
          { env: fc.constant([{ name: 'A', value: 'b' }]), nodeSelector: fc.constant({ os: 'linux' }) },
          { requiredKeys: [] },
        ),
      }),
    ),
    targetNamespaces: fc.constantFrom(undefined, ['team-b'], ['team-a', 'team-b']),
  },
  { requiredKeys: ['installNamespace'] },
) as fc.Arbitrary<RenderOptions>;

describe('rendering is deterministic', () => {
  it('gives byte-identical output for any file order and repeated runs', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FIXTURES), optionsArb, fc.infiniteStream(fc.nat()), (name, options, stream) => {
        const files = bundles.get(name) as BundleFiles;
        const entries = [...files.entries()];
        const shuffled = entries
          .map((e) => [stream.next().value as number, e] as const)
          .sort((a, b) => a[0] - b[0])
          .map(([, e]) => e);
        const first = renderText(files, options);
        expect(renderText(new Map(shuffled), options)).toBe(first);
        expect(renderText(files, structuredClone(options))).toBe(first);
      }),
      { numRuns: 60 },
    );
  });
});

// A CSV decoded from a fixture, to be mutated.
function csvOf(name: string): { path: string; csv: unknown } {
  const files = bundles.get(name) as BundleFiles;
  for (const [path, bytes] of files) {
    if (!path.startsWith('manifests/')) continue;
    const text = decodeUtf8(bytes);
    const docs = text.ok ? decodeDocuments(text.value) : undefined;
    const csv = docs?.ok ? docs.value.find((d) => (d as { kind?: string }).kind === 'ClusterServiceVersion') : undefined;
    if (csv !== undefined) return { path, csv };
  }
  throw new Error(`no CSV in ${name}`);
}

function paths(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(prefix);
  if (prefix.length >= 12 || typeof value !== 'object' || value === null) return out;
  for (const [k, v] of Object.entries(value)) paths(v, [...prefix, Array.isArray(value) ? Number(k) : k], out);
  return out;
}

function mutate(root: unknown, path: (string | number)[], replacement: unknown, remove: boolean): unknown {
  if (path.length === 0) return replacement;
  if (typeof root !== 'object' || root === null) return root;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let cur = copy;
  for (const seg of path.slice(0, -1)) {
    const next = cur[seg];
    if (typeof next !== 'object' || next === null) return copy; // an earlier mutation changed the shape
    cur = next as Record<string | number, unknown>;
  }
  const last = path[path.length - 1] as string | number;
  if (remove) delete cur[last];
  else cur[last] = replacement;
  return copy;
}

describe('rendering never throws', () => {
  const targets = ['multi-crd', 'webhook', 'anchors'].map((name) => ({ name, ...csvOf(name), paths: paths(csvOf(name).csv) }));
  const mutationArb = fc.record({
    index: fc.nat(),
    replacement: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(null, '', 0, -1, true, [], {}, 'AllNamespaces', [{}], [null])),
    remove: fc.boolean(),
  });

  it('on randomly mutated CSVs: every outcome is objects or a refusal message', () => {
    fc.assert(
      fc.property(fc.nat({ max: targets.length - 1 }), fc.array(mutationArb, { minLength: 1, maxLength: 4 }), optionsArb, (t, mutations, options) => {
        const target = targets[t] as (typeof targets)[number];
        let csv = target.csv;
        for (const m of mutations) csv = mutate(csv, target.paths[m.index % target.paths.length] as (string | number)[], m.replacement, m.remove);
        const files = new Map(bundles.get(target.name) as BundleFiles);
        files.set(target.path, new TextEncoder().encode(JSON.stringify(csv)));
        const out = renderText(files, options);
        expect(typeof out).toBe('string');
        if (out.startsWith('refused: ')) expect(out.length).toBeGreaterThan('refused: '.length);
      }),
      { numRuns: 300 },
    );
  });

  it('on arbitrary configuration values', () => {
    const files = bundles.get('multi-crd') as BundleFiles;
    const bundle = parseBundle(files);
    if (!bundle.ok) throw new Error(bundle.error);
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.jsonValue({ maxDepth: 4 }), (config, dc) => {
        for (const c of [config, { deploymentConfig: dc }, { watchNamespace: config }]) {
          const r = render(bundle.value, { installNamespace: 'ns', config: c });
          if (!r.ok) expect(r.error.message).not.toBe('');
        }
      }),
      { numRuns: 200 },
    );
  });
});
