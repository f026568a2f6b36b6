import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readBundleDir } from '../../pkg/operator-controller/bundle/index.ts';
import { decodeDocuments } from '../../pkg/gocompat/goyaml/index.ts';
import { BUNDLE_IMAGE_LIMITS } from '../../pkg/shared/image/index.ts';
import { FIXTURE_BUNDLES_DIR, GOLDEN_CASES, GOLDEN_DIR } from '../../test/fixtures/bundles/golden-cases.ts';
import { loadBundle, namesRegistry, runRenderBundle } from './render.ts';
import type { CommandIO } from './io.ts';

function capture(): CommandIO & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    out: () => out,
    err: () => err,
  };
}

const bundle = (name: string) => join(FIXTURE_BUNDLES_DIR, name);
const golden = (name: string) => readFile(join(GOLDEN_DIR, `${name}.yaml`), 'utf8');

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'olmv1-render-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('olmv1 render bundle', () => {
  it.each([
    ['multi-crd-all-namespaces', ['multi-crd', '--install-namespace', 'acme-system']],
    ['multi-crd-single-namespace', ['multi-crd', '--install-namespace', 'acme-system', '--watch-namespace', 'acme-watched']],
    ['multi-crd-own-namespace', ['multi-crd', '--install-namespace=acme-system', '--watch-namespace=acme-system']],
    ['webhook-cert-manager', ['webhook', '--install-namespace', 'hooks-system', '--cert-provider', 'cert-manager']],
    ['webhook-openshift-service-ca', ['webhook', '--install-namespace', 'hooks-system', '--cert-provider', 'openshift-service-ca']],
  ])('prints the %s rendering', async (goldenName, [dir, ...flags]) => {
    const io = capture();
    expect(await runRenderBundle([bundle(dir as string), ...flags], io, {})).toBe(0);
    expect(io.err()).toBe('');
    expect(io.out()).toBe(await golden(goldenName));
  });

  it('reads --config as YAML or JSON (what spec.config.inline holds)', async () => {
    const c = GOLDEN_CASES.find((g) => g.name === 'multi-crd-deployment-config');
    if (c?.via !== 'render') throw new Error('golden case missing');
    const file = join(tmp, 'config.json');
    await writeFile(file, JSON.stringify(c.options.config));
    const io = capture();
    expect(await runRenderBundle([bundle('multi-crd'), '--install-namespace', 'acme-system', '--config', file], io, {})).toBe(0);
    expect(io.out()).toBe(await golden('multi-crd-deployment-config'));
  });

  it.each([
    [
      ['webhook', '--install-namespace', 'ns'],
      'unsupported bundle: webhookDefinitions are not supported\n(the bundle has webhooks: render it with --cert-provider cert-manager or --cert-provider openshift-service-ca)\n',
    ],
    [
      ['own-only', '--install-namespace', 'ns'],
      'invalid ClusterExtension configuration: invalid configuration: required field "watchNamespace" is missing\n(the bundle supports only the OwnNamespace install mode: pass --watch-namespace ns, the install namespace)\n',
    ],
    [
      ['single-only', '--install-namespace', 'ns'],
      'invalid ClusterExtension configuration: invalid configuration: required field "watchNamespace" is missing\n(the bundle supports only the SingleNamespace install mode: pass --watch-namespace NS, NS being the namespace its operator watches, other than ns)\n',
    ],
    [
      ['multi-only', '--install-namespace', 'ns'],
      'unsupported bundle: bundle must support at least one of [AllNamespaces SingleNamespace OwnNamespace] install modes\n',
    ],
    [
      ['unsupported-kinds', '--install-namespace', 'ns'],
      'unsupported resource "sneaky-extra-deployment" with kind "Deployment"\nunsupported resource "acme-unsupported-condition" with kind "OperatorCondition"\n',
    ],
  ])('refuses %j with upstream message and exit 1', async ([dir, ...flags], message) => {
    const io = capture();
    expect(await runRenderBundle([bundle(dir as string), ...flags], io, {})).toBe(1);
    expect(io.out()).toBe('');
    expect(io.err()).toBe(message);
  });

  it.each([
    [['--install-namespace', 'ns'], 'expected exactly one bundle directory or image'],
    [['a', 'b', '--install-namespace', 'ns'], 'expected exactly one bundle directory or image'],
    [['dir'], '--install-namespace is required'],
    [['dir', '--install-namespace', 'ns', '--bogus'], "Unknown option '--bogus'"],
    [['dir', '--install-namespace', 'ns', '--cert-provider', 'vault'], '--cert-provider must be cert-manager or openshift-service-ca, got "vault"'],
  ])('exits 2 on usage error %j', async (args, message) => {
    const io = capture();
    expect(await runRenderBundle(args, io, {})).toBe(2);
    expect(io.err()).toContain(message);
    expect(io.err()).toContain('Usage: olmv1 render bundle');
  });

  it('prints usage on --help with exit 0', async () => {
    const io = capture();
    expect(await runRenderBundle(['--help'], io, {})).toBe(0);
    expect(io.out()).toContain('Usage: olmv1 render bundle DIR|IMAGE --install-namespace NS');
    expect(io.err()).toBe('');
  });

  it('rejects a --watch-namespace that conflicts with --config', async () => {
    const file = join(tmp, 'watch.yaml');
    await writeFile(file, 'watchNamespace: a\n');
    const io = capture();
    expect(await runRenderBundle([bundle('multi-crd'), '--install-namespace', 'ns', '--config', file, '--watch-namespace', 'b'], io, {})).toBe(2);
    expect(io.err()).toBe('--watch-namespace "b" conflicts with watchNamespace "a" in --config\n');
  });

  it('reports a malformed --config file', async () => {
    const file = join(tmp, 'bad.yaml');
    await writeFile(file, '{"incomplete');
    const io = capture();
    expect(await runRenderBundle([bundle('multi-crd'), '--install-namespace', 'ns', '--config', file], io, {})).toBe(1);
    expect(io.err()).toMatch(/^invalid ClusterExtension configuration: invalid configuration: /);
  });

  it('fetches an image reference through deps.fetchBundle', async () => {
    const files = await readBundleDir(bundle('multi-crd'));
    const fetchBundle = vi.fn(async () => new Map([...files].map(([k, v]) => [k, Buffer.from(v)])));
    const io = capture();
    expect(await runRenderBundle(['quay.io/acme/widgets-bundle:v1.2.0', '--install-namespace', 'acme-system'], io, { fetchBundle })).toBe(0);
    expect(fetchBundle).toHaveBeenCalledWith('quay.io/acme/widgets-bundle:v1.2.0', { limits: BUNDLE_IMAGE_LIMITS });
    expect(io.out()).toBe(await golden('multi-crd-all-namespaces'));
  });

  it('reports fetch failures and missing image support with exit 1', async () => {
    const io = capture();
    const fetchBundle = async () => {
      throw new Error('pulling image: manifest unknown');
    };
    expect(await runRenderBundle(['example.com/x:1', '--install-namespace', 'ns'], io, { fetchBundle })).toBe(1);
    expect(io.err()).toBe('pulling image: manifest unknown\n');
    const io2 = capture();
    expect(await runRenderBundle(['example.com/x:1', '--install-namespace', 'ns'], io2, {})).toBe(1);
    expect(io2.err()).toBe('"example.com/x:1" is not a directory, and fetching bundle images is not available\n');
  });

  it.each(['bundels/widgets', './widgets', '../widgets', 'widgets', 'acme/widgets-bundle:v1'])(
    'refuses %j, neither a directory nor an image naming its registry, without pulling',
    async (arg) => {
      const fetchBundle = vi.fn(async () => new Map<string, Buffer>());
      const io = capture();
      expect(await runRenderBundle([arg, '--install-namespace', 'ns'], io, { fetchBundle })).toBe(1);
      expect(io.err()).toBe(
        `bundle directory ${JSON.stringify(arg)} not found\n(an IMAGE must name its registry, e.g. quay.io/acme/bundle:v1 or localhost:5001/acme/bundle:v1)\n`,
      );
      expect(fetchBundle).not.toHaveBeenCalled();
    },
  );

  it.each([
    ['quay.io/acme/widgets-bundle:v1', true],
    ['localhost/acme/b:1', true],
    ['localhost:5001/b@sha256:0123', true],
    ['127.0.0.1:5001/acme/b:1', true],
    ['registry:5000/b:1', true],
    ['[::1]:5001/b:1', true],
    ['acme/widgets-bundle:v1', false],
    ['widgets', false],
    ['./widgets/x', false],
    ['../widgets/x', false],
    ['/abs/dir', false],
    ['quay.io/', false],
  ])('namesRegistry(%j) is %s', (ref, want) => {
    expect(namesRegistry(ref)).toBe(want);
  });

  it('reports bundle parse errors with exit 1', async () => {
    const io = capture();
    expect(await runRenderBundle([tmp, '--install-namespace', 'ns'], io, {})).toBe(1);
    expect(io.err()).toBe('open metadata/annotations.yaml: file does not exist\n');
  });
  it('prints a manifest holding a multi-megabyte string', async () => {
    const dir = join(tmp, 'big-string');
    await cp(bundle('minimal'), dir, { recursive: true });
    const big = 'x'.repeat(4 << 20);
    await writeFile(join(dir, 'manifests', 'big.yaml'), `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  big: "${big}"\n`);
    const io = capture();
    expect(await runRenderBundle([dir, '--install-namespace', 'ns'], io, {})).toBe(0);
    expect(io.err()).toBe('');
    const docs = decodeDocuments(io.out());
    if (!docs.ok) throw new Error(docs.error);
    expect(docs.value).toContainEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big', namespace: 'ns' }, data: { big } });
  });

  it('prints one v1 List with -o json, the same objects as the YAML', async () => {
    const yamlIo = capture();
    expect(await runRenderBundle([bundle('multi-crd'), '--install-namespace', 'acme-system', '-o', 'yaml'], yamlIo, {})).toBe(0);
    expect(yamlIo.out()).toBe(await golden('multi-crd-all-namespaces'));
    const io = capture();
    expect(await runRenderBundle([bundle('multi-crd'), '--install-namespace', 'acme-system', '--output=json'], io, {})).toBe(0);
    const list = JSON.parse(io.out()) as { apiVersion: string; kind: string; items: unknown[] };
    expect([list.apiVersion, list.kind]).toEqual(['v1', 'List']);
    expect(list.items).toEqual(loadAll(yamlIo.out()));
    expect(io.out()).toMatch(/^\{\n {2}"apiVersion": "v1",\n/);
    const bad = capture();
    expect(await runRenderBundle([bundle('multi-crd'), '--install-namespace', 'ns', '-o', 'wide'], bad, {})).toBe(2);
    expect(bad.err()).toMatch(/^-o must be yaml or json, got "wide"\n/);
  });

  it('pulls with the credentials of --authfile and the CAs of --ca-file, and refuses unreadable ones before pulling', async () => {
    const files = await readBundleDir(bundle('multi-crd'));
    const fetchBundle = vi.fn(async () => new Map([...files].map(([k, v]) => [k, Buffer.from(v)])));
    const auth = join(tmp, 'auth.json');
    await writeFile(auth, JSON.stringify({ auths: { 'registry.example': { auth: Buffer.from('user:pass').toString('base64') } } }));
    const ca = join(tmp, 'ca.pem');
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    await writeFile(ca, pem);
    const ref = 'registry.example/acme/widgets-bundle:v1';
    const io = capture();
    expect(await runRenderBundle([ref, '--install-namespace', 'ns', '--authfile', auth, '--ca-file', ca], io, { fetchBundle })).toBe(0);
    const access = (fetchBundle.mock.calls[0] as unknown[] | undefined)?.[1] as { credentials?: { auths: Record<string, unknown> }; caPem?: string };
    expect(access.caPem).toBe(pem);
    expect(access.credentials?.auths['registry.example']).toEqual({ username: 'user', password: 'pass' });

    // The default auth file (from $REGISTRY_AUTH_FILE or ~/.docker) may be missing; a named one may not.
    const none = capture();
    expect(await runRenderBundle([ref, '--install-namespace', 'ns'], none, { fetchBundle, defaultAuthFile: join(tmp, 'absent.json') })).toBe(0);
    expect(fetchBundle).toHaveBeenLastCalledWith(ref, { limits: BUNDLE_IMAGE_LIMITS });
    const missing = capture();
    expect(await runRenderBundle([ref, '--install-namespace', 'ns', '--authfile', join(tmp, 'absent.json')], missing, { fetchBundle })).toBe(2);
    expect(missing.err()).toBe(`reading --authfile: open ${JSON.stringify(join(tmp, 'absent.json'))}: no such file or directory\n`);
    const notPem = capture();
    expect(await runRenderBundle([ref, '--install-namespace', 'ns', '--ca-file', auth], notPem, { fetchBundle })).toBe(2);
    expect(notPem.err()).toBe(`--ca-file ${JSON.stringify(auth)} holds no PEM certificate\n`);
    expect(fetchBundle).toHaveBeenCalledTimes(2);
  });
});

describe('a bundle image named by a catalog (hostile input)', () => {
  it('is never read as a directory of this machine, even when one exists at that path', async () => {
    const dir = join(FIXTURE_BUNDLES_DIR, GOLDEN_CASES[0]?.bundle ?? '');
    const fetchBundle = vi.fn(() => Promise.reject(new Error('not called')));
    // The same path given on the command line is a bundle directory.
    await expect(loadBundle({ source: dir, values: {}, imageLimits: BUNDLE_IMAGE_LIMITS }, { fetchBundle })).resolves.toBeDefined();
    await expect(loadBundle({ source: dir, values: {}, imageLimits: BUNDLE_IMAGE_LIMITS }, { fetchBundle }, 'catalog')).rejects.toThrow(
      `the catalog's bundle image ${JSON.stringify(dir)} does not name a registry`,
    );
    expect(fetchBundle).not.toHaveBeenCalled();
  });
});
