import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIO } from '../../test/support/command-io.ts';
import { runBundlePush } from './bundle-push.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/example-operator/bundles/1.0.0', import.meta.url));
// Nothing listens here: every case below must fail before any registry traffic.
const REF = '127.0.0.1:1/acme/bundle:v1';
const deps = { insecureRegistries: ['127.0.0.1'], defaultAuthFile: undefined };

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'olmv1-bundle-push-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIO();
  const code = await runBundlePush(args, io, deps);
  return { code, out: io.out(), err: io.err() };
}

describe('olmv1 bundle push', () => {
  it('prints its usage on --help', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: olmv1 bundle push <directory> <image-reference>/);
    expect(r.out).toContain('operators.operatorframework.io.bundle.mediatype.v1=registry+v1');
  });

  it.each([
    [[], 'Error: expected a bundle directory and an image reference'],
    [[EXAMPLE], 'Error: expected a bundle directory and an image reference'],
    [[EXAMPLE, REF, 'extra'], 'Error: expected a bundle directory and an image reference'],
    [[EXAMPLE, REF, '--bogus'], "Error: Unknown option '--bogus'"],
    [['bundels/example', REF], 'Error: bundle directory "bundels/example" not found'],
    [[EXAMPLE, 'Not A Reference'], 'Error: error parsing image reference "Not A Reference": invalid reference format'],
  ])('exits 2 on usage error %j', async (args, message) => {
    const r = await run(args);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.startsWith(message)).toBe(true);
  });

  it('refuses an invalid bundle with the parser message, before pushing', async () => {
    const dir = join(tmp, 'invalid');
    await cp(EXAMPLE, dir, { recursive: true });
    await rm(join(dir, 'metadata', 'annotations.yaml'));
    const r = await run([dir, REF]);
    expect(r).toEqual({
      code: 1,
      out: '',
      err: `validating bundle ${dir}\nopen metadata/annotations.yaml: file does not exist\nnot pushed: the bundle is invalid\n`,
    });
  });

  it('refuses a bundle whose annotations name no package', async () => {
    const dir = join(tmp, 'no-package');
    await cp(EXAMPLE, dir, { recursive: true });
    await writeFile(join(dir, 'metadata', 'annotations.yaml'), 'annotations:\n  operators.operatorframework.io.bundle.channels.v1: stable\n');
    const r = await run([dir, REF]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('metadata/annotations.yaml: annotation operators.operatorframework.io.bundle.package.v1 (the package name) is not set\n');
  });
});
