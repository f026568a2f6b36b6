// `olmv1 resolve --dependencies` (decision 0104): the bundle a ClusterExtension would get when
// its dependencies are met, and the closure of what must be installed first, from catalog
// directories (OLM's documentation examples: pkg/operator-controller/dependencies/testdata).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadFS } from '../../pkg/shared/fbc/index.ts';
import { runResolve } from './resolve.ts';

const DOCS = fileURLToPath(new URL('../../pkg/operator-controller/dependencies/testdata/docs-examples', import.meta.url));

class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

async function cli(...args: string[]): Promise<{ code: number; json: unknown; stderr: string }> {
  const stdout = new Sink();
  const stderr = new Sink();
  const code = await runResolve(args, { stdout, stderr }, { loadCatalogDir: (dir) => loadFS(dir) });
  return { code, json: stdout.text === '' ? undefined : JSON.parse(stdout.text), stderr: stderr.text };
}

describe('olmv1 resolve --dependencies', () => {
  it("refuses a bundle that declares dependencies without the flag, with upstream's text", async () => {
    const r = await cli('--package', 'app', '--version', '1.0.5', '--catalog', `docs=${DOCS}`);
    expect(r.code).toBe(1);
    expect(r.json).toEqual({
      error: 'validating bundle "app.all": bundle "app.all" has a dependency declared via property "olm.constraint" which is currently not supported',
    });
  });

  it('resolves it with the flag and prints what must be installed first, best provider first', async () => {
    const r = await cli('--package', 'app', '--version', '1.0.5', '--catalog', `docs=${DOCS}`, '--dependencies');
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({
      bundle: { name: 'app.all', version: '1.0.5' },
      catalog: 'docs',
      dependencies: [
        {
          bundle: 'app.all',
          property: 'olm.constraint',
          requirement: 'all of (package "blue" in range ">=1.0.0"; API greens.example.com/v1 Green)',
          failureMessage: 'Package blue v1.0.0+ is needed',
          providers: [{ catalog: 'docs', packageName: 'blue', bundle: 'blue.v1.0.0', version: '1.0.0' }],
        },
      ],
    });
  });

  it('refuses a CEL rule over the cost limit without running it, naming the bundle and the limit (decision 0110)', async () => {
    const zeros = (n: number): string => `[${Array.from({ length: n }, () => '0').join(',')}]`;
    const rule = `${zeros(300)}.all(a, ${zeros(300)}.all(b, ${zeros(30)}.all(c, c == 0))) && false`;
    const dir = await mkdtemp(join(tmpdir(), 'resolve-cel-'));
    try {
      const docs = [
        { schema: 'olm.package', name: 'hostile', defaultChannel: 'stable' },
        { schema: 'olm.channel', name: 'stable', package: 'hostile', entries: [{ name: 'hostile.v1.0.0' }] },
        {
          schema: 'olm.bundle',
          name: 'hostile.v1.0.0',
          package: 'hostile',
          image: 'registry.example/hostile:v1.0.0',
          properties: [
            { type: 'olm.package', value: { packageName: 'hostile', version: '1.0.0' } },
            { type: 'olm.constraint', value: { cel: { rule } } },
          ],
        },
      ];
      await writeFile(join(dir, 'catalog.json'), docs.map((d) => JSON.stringify(d)).join('\n'));
      const started = performance.now();
      const r = await cli('--package', 'hostile', '--catalog', `c=${dir}`, '--dependencies');
      expect(performance.now() - started).toBeLessThan(5000);
      expect(r.code).toBe(0);
      expect(r.json).toMatchObject({
        bundle: { name: 'hostile.v1.0.0' },
        dependencies: [
          {
            bundle: 'hostile.v1.0.0',
            error: expect.stringMatching(
              /^bundle "hostile\.v1\.0\.0": property olm\.constraint #1: value\.cel: cel rule's estimated cost \d+ exceeds the limit of 1000000$/,
            ) as unknown,
          },
        ],
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is refused beside --cluster', async () => {
    const r = await cli('--cluster', 'x', '--dependencies');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--dependencies cannot be combined with --cluster');
  });
});
