// The `olmv1` CLI's image pulls (`render bundle IMAGE`, `rbac IMAGE`, and the upgrade plan's
// bundle reads, all through cmd/olmv1/commands.ts fetchBundle) evaluate the containers signature
// policy as the components do: the per-user ~/.config/containers/policy.json first (then
// /etc/containers/policy.json), the per-user registries.d, and the same refusals. The real CLI
// runs as a child process with HOME pointing at a directory of this test.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildImage, createImageClient } from '../../pkg/shared/image/index.ts';
import { makeGpgKey, skopeoSignedCopy, type GpgKey } from '../support/image-signing.ts';

const BUNDLE = fileURLToPath(new URL('../fixtures/bundles/multi-crd', import.meta.url));
const CHECKOUT = fileURLToPath(new URL('../..', import.meta.url));
const registry = inject('envtestRegistries').anonymous.host;
const run = randomBytes(3).toString('hex');
const unsigned = `${registry}/cli-sig-${run}/bundle:v1`;
const signed = `${registry}/cli-sig-${run}/signed:v1`;

let work: string;
let home: string;
let key: GpgKey;

async function filesOf(dir: string): Promise<Record<string, Buffer>> {
  const out: Record<string, Buffer> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out[relative(dir, path)] = await readFile(path);
  }
  return out;
}

/** Runs the CLI with HOME=home; resolves with its exit code and output. */
function olmv1(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['cmd/olmv1/main.ts', ...args],
      { cwd: CHECKOUT, env: { ...process.env, HOME: home, REGISTRY_AUTH_FILE: '' }, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, out: stdout, err: stderr }),
    );
  });
}

async function setUserPolicy(policy: unknown): Promise<void> {
  await writeFile(join(home, '.config/containers/policy.json'), typeof policy === 'string' ? policy : JSON.stringify(policy));
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'olmv1-cli-sigpolicy-'));
  home = join(work, 'home');
  await mkdir(join(home, '.config/containers/registries.d'), { recursive: true });
  key = await makeGpgKey(work, 'cli');
  // The per-user registries.d names the lookaside skopeo writes the signature to.
  const lookaside = join(work, 'lookaside');
  await mkdir(lookaside);
  const registriesDir = join(home, '.config/containers/registries.d');
  await writeFile(join(registriesDir, 'default.yaml'), `default-docker:\n  lookaside: file://${lookaside}\n`);
  const client = createImageClient({ insecureRegistries: [registry] });
  try {
    const labels = { 'operators.operatorframework.io.bundle.package.v1': 'multi-crd' };
    await client.push(unsigned, buildImage({ files: await filesOf(BUNDLE), labels }));
  } finally {
    client.close();
  }
  await skopeoSignedCopy(unsigned, signed, key, registriesDir);
}, 60_000);

afterAll(async () => {
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe('olmv1 CLI pulls under the signature policy', () => {
  const render = (ref: string) => olmv1(['render', 'bundle', ref, '--install-namespace', 'operators']);

  it('the per-user policy refuses an image as the components do', async () => {
    await setUserPolicy({ default: [{ type: 'reject' }] });
    const res = await render(unsigned);
    expect(res.code).toBe(1);
    expect(res.err).toContain(`error copying image: Source image rejected: Running image docker://${unsigned} is rejected by policy.`);
    expect(res.out).toBe('');
  });

  it('signedBy: the signed image renders, the unsigned one is refused', async () => {
    await setUserPolicy({
      default: [{ type: 'reject' }],
      transports: { docker: { [`${registry}/cli-sig-${run}`]: [{ type: 'signedBy', keyType: 'GPGKeys', keyPath: key.publicKeyPath }] } },
    });
    const ok = await render(signed);
    expect(ok.err).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.out).toContain('kind: CustomResourceDefinition');
    const refused = await render(unsigned);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('error copying image: Source image rejected: A signature was required, but no signature exists');
  });

  it('a malformed per-user policy refuses every pull, naming the file, instead of accepting anything', async () => {
    await setUserPolicy('{"default": [{"type": "acceptEverything"}]}');
    const res = await olmv1(['rbac', unsigned, '--install-namespace', 'operators', '--service-account', 'installer']);
    expect(res.code).toBe(1);
    expect(res.err).toContain(
      `error loading policy context: invalid policy in "${join(home, '.config/containers/policy.json')}": Unknown policy requirement type "acceptEverything"`,
    );
  });
});
