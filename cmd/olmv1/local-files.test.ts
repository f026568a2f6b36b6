// Every command that reads a local catalog or bundle directory refuses what is not a regular
// file or directory inside it, naming the path, and never prints a file from outside.
import { execFileSync } from 'node:child_process';
import { cp, mkdir, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FIXTURE_BUNDLES_DIR } from '../../test/fixtures/bundles/golden-cases.ts';
import { captureIO } from '../../test/support/command-io.ts';
import { testTempDir } from '../../test/support/temp-dir.ts';
import { runCatalogPush } from './catalog-push.ts';
import { runCatalogServe } from './catalog-serve.ts';
import { runCatalogValidate } from './catalog-validate.ts';
import { runRbac } from './rbac.ts';
import { runRenderBundle } from './render.ts';

const VALID_CATALOG = fileURLToPath(new URL('../../pkg/shared/fbc/testdata/valid', import.meta.url));
const SECRET = 'secret-token-value-0123';

const capture = captureIO;

type Hostile = 'fifo' | 'device link' | 'link outside' | 'directory link';

/** Adds the hostile entry `name` inside `dir` (a secret file sits next to the tree for 'link outside'). */
async function addHostile(base: string, dir: string, kind: Hostile, name: string): Promise<string> {
  const path = join(dir, name);
  if (kind === 'fifo') execFileSync('mkfifo', [path]);
  if (kind === 'device link') await symlink('/dev/zero', path);
  if (kind === 'directory link') {
    await mkdir(join(dir, 'subdir'), { recursive: true });
    await symlink('subdir', path);
  }
  if (kind === 'link outside') {
    await writeFile(join(base, 'token'), `${SECRET}\n`);
    await symlink(join(base, 'token'), path);
  }
  return path;
}

const KINDS: Hostile[] = ['fifo', 'device link', 'link outside', 'directory link'];
const WHY: Record<Hostile, string> = {
  fifo: 'a FIFO, not a regular file or directory',
  'device link': 'a symbolic link leading outside',
  'link outside': 'a symbolic link leading outside',
  'directory link': 'is a directory',
};

async function hostileCatalog(kind: Hostile): Promise<{ dir: string; path: string }> {
  const base = await testTempDir('olmv1-hostile-');
  const dir = join(base, 'catalog');
  await cp(VALID_CATALOG, dir, { recursive: true });
  return { dir, path: await addHostile(base, dir, kind, 'zz-entry') };
}

async function hostileBundle(kind: Hostile): Promise<{ dir: string; path: string }> {
  const base = await testTempDir('olmv1-hostile-');
  const dir = join(base, 'bundle');
  await cp(join(FIXTURE_BUNDLES_DIR, 'minimal'), dir, { recursive: true });
  return { dir, path: await addHostile(base, join(dir, 'manifests'), kind, 'zz-entry.yaml') };
}

function expectRefused(output: string, path: string, kind: Hostile): void {
  expect(output).toContain(JSON.stringify(path));
  expect(output).toContain(WHY[kind]);
  expect(output).not.toContain(SECRET);
}

describe.each(KINDS)('a catalog directory holding a %s', (kind) => {
  it('fails catalog validate with the path', async () => {
    const { dir, path } = await hostileCatalog(kind);
    const io = capture();
    expect(await runCatalogValidate([dir], io)).toBe(1);
    expectRefused(io.all(), path, kind);
  });

  it('fails catalog push before anything is built or pushed', async () => {
    const { dir, path } = await hostileCatalog(kind);
    const io = capture();
    const deps = { insecureRegistries: ['localhost'], defaultAuthFile: undefined };
    expect(await runCatalogPush([dir, 'localhost:1/never/pushed:v1'], io, deps)).toBe(1);
    expectRefused(io.all(), path, kind);
    expect(io.all()).not.toContain('pushing');
  });

  it('fails catalog serve before serving', async () => {
    const { dir, path } = await hostileCatalog(kind);
    const io = capture();
    expect(await runCatalogServe([`hostile=${dir}`, '--listen', '127.0.0.1:0'], io, { signal: new AbortController().signal, tmpDir: tmpdir() })).toBe(
      1,
    );
    expectRefused(io.all(), path, kind);
    expect(io.all()).not.toContain('serving');
  });
});

// A link to a directory inside a bundle is followed (pkg/operator-controller/bundle), so it is no refusal there.
describe.each(KINDS.filter((k) => k !== 'directory link'))('a bundle directory holding a %s', (kind) => {
  it('fails render bundle with the path', async () => {
    const { dir, path } = await hostileBundle(kind);
    const io = capture();
    expect(await runRenderBundle([dir, '--install-namespace', 'ns'], io, {})).toBe(1);
    expectRefused(io.all(), path, kind);
  });

  it('fails rbac with the path', async () => {
    const { dir, path } = await hostileBundle(kind);
    const io = capture();
    expect(await runRbac([dir, '--install-namespace', 'ns', '--service-account', 'sa'], io, {})).toBe(1);
    expectRefused(io.all(), path, kind);
  });
});

describe('files named by flags', () => {
  it('render --config refuses a FIFO and names a directory it cannot read', async () => {
    const base = await testTempDir('olmv1-config-');
    execFileSync('mkfifo', [join(base, 'fifo')]);
    const bundle = join(FIXTURE_BUNDLES_DIR, 'minimal');
    const io = capture();
    expect(await runRenderBundle([bundle, '--install-namespace', 'ns', '--config', join(base, 'fifo')], io, {})).toBe(1);
    expect(io.all()).toBe(`reading --config: refusing ${JSON.stringify(join(base, 'fifo'))}: a FIFO, not a regular file\n`);
    const dirIo = capture();
    expect(await runRenderBundle([bundle, '--install-namespace', 'ns', '--config', base], dirIo, {})).toBe(1);
    expect(dirIo.all()).toBe(`reading --config: read ${JSON.stringify(base)}: is a directory\n`);
  });
});
