import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Bundle, Channel, DeclarativeConfig, Deprecation, Package } from '../../pkg/shared/fbc/types.ts';
import { createCatalogClient, createCatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { runResolve, type ResolveDeps } from './resolve.ts';

const TESTDATA = fileURLToPath(new URL('../../pkg/operator-controller/resolve/testdata/', import.meta.url));
const A = join(TESTDATA, 'operators-a');
const B = join(TESTDATA, 'operators-b');
const BROKEN = join(TESTDATA, 'broken');

// Test-only loader for the fixtures, which hold one JSON document per line.
async function loadJsonLines(dir: string): Promise<DeclarativeConfig> {
  const dc: DeclarativeConfig = { packages: [], channels: [], bundles: [], deprecations: [], others: [] };
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.json')).sort()) {
    for (const line of (await readFile(join(dir, file), 'utf8')).split('\n')) {
      if (line.trim() === '') continue;
      const doc = JSON.parse(line) as { schema: string };
      if (doc.schema === 'olm.package') dc.packages.push(doc as Package);
      else if (doc.schema === 'olm.channel') dc.channels.push(doc as Channel);
      else if (doc.schema === 'olm.bundle') dc.bundles.push(doc as Bundle);
      else if (doc.schema === 'olm.deprecations') dc.deprecations.push(doc as Deprecation);
    }
  }
  return dc;
}

class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  json: unknown;
  loads: string[];
}

async function cli(...argsAndDeps: (string | Partial<ResolveDeps>)[]): Promise<Run> {
  const args = argsAndDeps.filter((a) => typeof a === 'string');
  const extra = argsAndDeps.find((a) => typeof a !== 'string') ?? {};
  const stdout = new Sink();
  const stderr = new Sink();
  const loads: string[] = [];
  const deps: ResolveDeps = {
    loadCatalogDir: async (dir) => {
      loads.push(dir);
      return loadJsonLines(dir);
    },
    ...extra,
  };
  const code = await runResolve(args, { stdout, stderr }, deps);
  const json: unknown = stdout.text.startsWith('{') ? JSON.parse(stdout.text) : undefined;
  return { code, stdout: stdout.text, stderr: stderr.text, json, loads };
}

describe('olmv1 resolve: success', () => {
  it('prints the bundle, its catalog and the deprecation object', async () => {
    const r = await cli('--package', 'foo', '--catalog', A);
    expect(r.code).toBe(0);
    expect(r.stdout.endsWith('}\n')).toBe(true);
    expect(r.stdout.trimEnd().includes('\n')).toBe(false);
    expect(r.json).toEqual({
      bundle: { name: 'foo.v2.1.0-rc.1', version: '2.1.0-rc.1', image: 'registry.example/foo:2.1.0-rc.1' },
      catalog: 'operators-a',
      // foo.v1.0.0's entry is about another bundle than the resolved one.
      deprecation: { schema: 'olm.deprecations', package: 'foo', entries: [] },
    });
  });

  it('keeps only the deprecation entries about the package, the selected channels and the resolved bundle', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'olmv1-resolve-'));
    try {
      const entries = [
        { reference: { schema: 'olm.package' }, message: 'package' },
        { reference: { schema: 'olm.channel', name: 'stable' }, message: 'stable' },
        { reference: { schema: 'olm.channel', name: 'fast' }, message: 'fast' },
        { reference: { schema: 'olm.bundle', name: 'foo.v1.0.0' }, message: 'v1' },
      ];
      const docs = (await readFile(join(A, (await readdir(A)).find((f) => f.endsWith('.json')) ?? ''), 'utf8'))
        .split('\n')
        .filter((l) => l.trim() !== '' && !l.includes('"olm.deprecations"'));
      await writeFile(join(dir, 'catalog.json'), [...docs, JSON.stringify({ schema: 'olm.deprecations', package: 'foo', entries })].join('\n'));
      const messages = async (...flags: string[]) =>
        (
          (await cli('--package', 'foo', '--catalog', dir, ...flags)).json as { deprecation: { entries: { message: string }[] } }
        ).deprecation.entries.map((e) => e.message);
      expect(await messages('--channel', 'stable')).toEqual(['package', 'stable']);
      expect(await messages('--version', '1.0.0')).toEqual(['package', 'stable', 'fast', 'v1']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads a catalogd URL', async () => {
    const body = (await readFile(join(A, (await readdir(A)).find((f) => f.endsWith('.json')) ?? ''), 'utf8')).trim();
    const server = createServer((req, res) => {
      if (req.url === '/catalogs/served/api/v1/all') res.writeHead(200).end(`${body}\n`);
      else res.writeHead(404).end('404 page not found');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = createCatalogClient();
    const cache = createCatalogContentCache({ client });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/catalogs/served`;
      const r = await cli('--package', 'foo', '--channel', 'stable', '--catalog', url, {
        loadCatalogPackage: (u, pkg) => cache.getPackage({ name: u, baseURL: u, digestRef: u }, pkg),
      });
      expect(r.json).toMatchObject({ bundle: { name: 'foo.v2.0.0' }, catalog: 'served' });
      const missing = await cli('--package', 'foo', '--catalog', `x=${url}-gone`, {
        loadCatalogPackage: (u, pkg) => cache.getPackage({ name: u, baseURL: u, digestRef: u }, pkg),
      });
      expect(missing.code).toBe(1);
      expect(missing.json).toEqual({
        error: `error walking catalogs: error getting package "foo" from catalog "x": error reading catalog URL "${url}-gone": error: received unexpected response status code 404`,
      });
    } finally {
      client.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it.each<[string, string[], string, string]>([
    ['a channel', ['--channel', 'stable'], 'foo.v2.0.0', '2.0.0'],
    ['several channels', ['--channel', 'stable', '--channel', 'fast'], 'foo.v2.1.0-rc.1', '2.1.0-rc.1'],
    ['a version range (release reported in build metadata)', ['--version', '1.1.x'], 'foo.v1.1.0', '1.1.0+2'],
    ['an installed bundle (highest successor)', ['--installed', 'foo.v1.0.0@1.0.0'], 'foo.v2.0.0', '2.0.0'],
    [
      'a SelfCertified downgrade',
      ['--installed', 'foo.v2.0.0@2.0.0', '--version', '<2.0.0', '--upgrade-constraint-policy', 'SelfCertified'],
      'foo.v1.1.0',
      '1.1.0+2',
    ],
  ])('honours %s', async (_, flags, name, version) => {
    const r = await cli('--package', 'foo', '--catalog', A, ...flags);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ bundle: { name, version }, catalog: 'operators-a' });
  });

  it('gives only the requested package to the resolver', async () => {
    const r = await cli('--package', 'bar', '--catalog', A);
    expect(r.json).toEqual({
      bundle: { name: 'bar.v9.0.0', version: '9.0.0', image: 'registry.example/bar:9.0.0' },
      catalog: 'operators-a',
      deprecation: null,
    });
  });

  it('applies catalog names and priorities', async () => {
    const high = await cli('--package', 'foo', '--catalog', `a=${A}`, '--catalog', `b:1=${B}`);
    expect(high.json).toMatchObject({ bundle: { name: 'foo.v3.0.0', image: 'registry.example/foo-b:3.0.0' }, catalog: 'b', deprecation: null });
    const negative = await cli('--package', 'foo', '--catalog', `a=${A}`, '--catalog', `b:-5=${B}`);
    expect(negative.json).toMatchObject({ bundle: { name: 'foo.v2.1.0-rc.1' }, catalog: 'a' });
  });
});

describe('olmv1 resolve: no resolution (exit 1)', () => {
  it.each<[string, string[], string]>([
    ['an unknown package', ['--package', 'nope', '--catalog', A], 'no bundles found for package "nope"'],
    [
      'an equal-priority tie',
      ['--package', 'foo', '--catalog', `a=${A}`, '--catalog', `b=${B}`],
      'found bundles for package "foo" in multiple catalogs with the same priority [a b]',
    ],
    [
      'no successor in range',
      ['--package', 'foo', '--catalog', A, '--installed', 'foo.v1.0.0@1.0.0', '--version', '3.0.0'],
      'error upgrading from currently installed version "1.0.0": no bundles found for package "foo" matching version "3.0.0"',
    ],
    [
      'a bad installed version',
      ['--package', 'foo', '--catalog', A, '--installed', 'foo.v1.0.0@1.0'],
      'error walking catalogs: error finding upgrade edges: failed to get version and release of installed bundle: No Major.Minor.Patch elements found',
    ],
  ])('reports %s', async (_, args, message) => {
    const r = await cli(...args);
    expect(r.code).toBe(1);
    expect(r.json).toEqual({ error: message });
    expect(r.stderr).toBe('');
  });

  it('reports a bad range before loading any catalog', async () => {
    const r = await cli('--package', 'foo', '--version', 'foobar', '--catalog', A);
    expect(r.code).toBe(1);
    expect(r.json).toEqual({ error: 'desired version range "foobar" is invalid: improper constraint: "foobar"' });
    expect(r.loads).toEqual([]);
  });

  it('names a catalog directory that does not load, and stops loading there', async () => {
    const r = await cli('--package', 'foo', '--catalog', A, '--catalog', BROKEN, '--catalog', B);
    expect(r.loads).toEqual([A, BROKEN]);
    expect(r.code).toBe(1);
    const error = (r.json as { error: string }).error;
    expect(
      error.startsWith(
        `error walking catalogs: error getting package "foo" from catalog "broken": error loading catalog directory ${JSON.stringify(BROKEN)}: `,
      ),
    ).toBe(true);
  });
});

describe('olmv1 resolve: usage (exit 2)', () => {
  it.each<[string, string[], string]>([
    ['a missing --package', ['--catalog', A], '--package is required'],
    ['a missing --catalog', ['--package', 'foo'], 'at least one --catalog is required'],
    ['an unknown flag', ['--package', 'foo', '--catalog', A, '--frobnicate'], "Unknown option '--frobnicate'"],
    ['a positional argument', ['--package', 'foo', '--catalog', A, 'extra'], "Unexpected argument 'extra'"],
    ['a repeated --package', ['--package', 'foo', '--package', 'bar', '--catalog', A], '--package may be given only once'],
    ['a bad policy', ['--package', 'foo', '--catalog', A, '--upgrade-constraint-policy', 'Any'], 'invalid --upgrade-constraint-policy "Any"'],
    ['a bad --installed', ['--package', 'foo', '--catalog', A, '--installed', 'foo.v1'], 'invalid --installed "foo.v1": want BUNDLE@VERSION'],
    ['a bad priority', ['--package', 'foo', '--catalog', `a:high=${A}`], 'PRIORITY must be an integer'],
    ['a priority out of int32 range', ['--package', 'foo', '--catalog', `a:2147483648=${A}`], 'PRIORITY must be an integer'],
    ['an empty NAME', ['--package', 'foo', '--catalog', `=${A}`], 'NAME is empty'],
    ['duplicate catalog names', ['--package', 'foo', '--catalog', A, '--catalog', A], 'catalog name "operators-a" is used twice'],
    ['--cluster with --package', ['--cluster', 'ext', '--package', 'foo'], '--package cannot be combined with --cluster'],
    ['--cluster with --catalog', ['--cluster', 'ext', '--catalog', A], '--catalog cannot be combined with --cluster'],
    ['an empty --cluster', ['--cluster', ''], '--cluster must not be empty'],
    ['a bad --catalogd-url', ['--cluster', 'ext', '--catalogd-url', 'ftp://x'], 'invalid --catalogd-url "ftp://x"'],
    ['--kubeconfig without --cluster', ['--package', 'foo', '--catalog', A, '--kubeconfig', 'k'], '--kubeconfig needs --cluster'],
  ])('rejects %s', async (_, args, problem) => {
    const r = await cli(...args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(problem);
    expect(r.stderr).toContain('Usage: olmv1 resolve');
    expect(r.loads).toEqual([]);
  });

  it('prints help on stdout for --help', async () => {
    const r = await cli('--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--catalog [NAME[:PRIORITY]=]DIR');
  });
});
