import { createHash } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCatalog, type GenerateSummary } from '../../../test/fixtures/generate/catalog.ts';
import { type DeclarativeConfig, loadFS, validate } from './index.ts';

async function digest(dir: string): Promise<string> {
  const h = createHash('sha256');
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
  for (const f of files) h.update(f.slice(dir.length)).update(await readFile(f));
  return h.digest('hex');
}

// A scaled-down profile keeps the unit suite fast; the full 5,000-bundle profile is the same
// code with larger numbers (see the report/bench for its size and timing).
describe('seeded catalog generator', () => {
  let root: string;
  let summary: GenerateSummary;
  let cfg: DeclarativeConfig;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'fbc-gen-'));
    summary = await generateCatalog(join(root, 'a'), {
      seed: 7,
      bundles: 400,
      packages: 24,
      yamlShare: 0.3,
      inlineObjectShare: 0.3,
      iconBytes: [2000, 3000],
    });
    cfg = await loadFS(join(root, 'a'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('produces a catalog that passes validation', () => {
    expect(validate(cfg)).toEqual([]);
  });

  it('produces the requested shape, with the features real catalogs have', async () => {
    expect(summary).toMatchObject({ packages: 24, bundles: 400 });
    expect(cfg.packages).toHaveLength(24);
    expect(cfg.bundles).toHaveLength(400);
    expect(cfg.channels).toHaveLength(summary.channels);
    expect(cfg.deprecations).toHaveLength(summary.deprecations);
    const files = (await readdir(join(root, 'a'), { recursive: true })).map(String);
    expect(files.some((f) => f.endsWith('catalog.yaml'))).toBe(true);
    expect(files.some((f) => f.endsWith('catalog.json'))).toBe(true);
    const propTypes = new Set(cfg.bundles.flatMap((b) => b.properties.map((p) => p.type)));
    for (const t of ['olm.package', 'olm.gvk', 'olm.csv.metadata', 'olm.bundle.object']) expect(propTypes).toContain(t);
    const versions = cfg.bundles.map((b) => (b.properties.find((p) => p.type === 'olm.package')?.value as { version: string }).version);
    expect(versions.some((v) => v.includes('-'))).toBe(true); // pre-releases
    expect(cfg.channels.some((c) => c.entries.some((e) => e.skips !== undefined))).toBe(true);
    expect(cfg.channels.some((c) => c.entries.some((e) => e.skipRange !== undefined))).toBe(true);
    expect(cfg.packages.every((p) => p.icon === undefined || p.icon.base64data.length > 2000)).toBe(true);
  });

  it('is deterministic for a seed and varies across seeds', async () => {
    const opts = { bundles: 60, packages: 5, iconBytes: [500, 600] as [number, number] };
    await generateCatalog(join(root, 'b1'), { seed: 3, ...opts });
    await generateCatalog(join(root, 'b2'), { seed: 3, ...opts });
    await generateCatalog(join(root, 'b3'), { seed: 4, ...opts });
    const [d1, d2, d3] = await Promise.all(['b1', 'b2', 'b3'].map((d) => digest(join(root, d))));
    expect(d1).toBe(d2);
    expect(d1).not.toBe(d3);
  });
});
