import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseNormalized } from './reference.ts';
import { MAX_CONFIG_BYTES, loadPolicy, loadRegistriesD, lookasideSignatures, type SignaturePolicyPaths } from './signature-load.ts';

let dir: string;
let paths: SignaturePolicyPaths;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sigpolicy-load-'));
  paths = {
    userPolicy: join(dir, 'home/policy.json'),
    systemPolicy: join(dir, 'etc/policy.json'),
    userRegistriesDir: join(dir, 'home/registries.d'),
    systemRegistriesDir: join(dir, 'etc/registries.d'),
  };
  await mkdir(join(dir, 'home'));
  await mkdir(join(dir, 'etc'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const REJECT = '{"default": [{"type": "reject"}]}';
const ACCEPT = '{"default": [{"type": "insecureAcceptAnything"}]}';

describe('loadPolicy', () => {
  it('none: undefined (the caller accepts anything, as upstream)', async () => {
    expect(await loadPolicy(paths)).toBeUndefined();
  });

  it('the per-user file wins while it exists, else the system file', async () => {
    await writeFile(paths.systemPolicy, REJECT);
    expect((await loadPolicy(paths))?.file).toBe(paths.systemPolicy);
    await writeFile(paths.userPolicy ?? '', ACCEPT);
    expect(await loadPolicy(paths)).toMatchObject({ file: paths.userPolicy, policy: { default: [{ type: 'insecureAcceptAnything' }] } });
  });

  it('a malformed, oversized or unreadable file is an error naming it, never a fallback', async () => {
    await writeFile(paths.systemPolicy, '{"default": [{"type": "accept"}]}');
    await expect(loadPolicy(paths)).rejects.toThrow(`invalid policy in "${paths.systemPolicy}": Unknown policy requirement type "accept"`);
    await writeFile(paths.systemPolicy, `{"default": [{"type": "reject"}], "x": "${'a'.repeat(MAX_CONFIG_BYTES)}"}`);
    await expect(loadPolicy(paths)).rejects.toThrow(`invalid policy in "${paths.systemPolicy}": file is larger than ${MAX_CONFIG_BYTES} bytes`);
    await rm(paths.systemPolicy);
    await mkdir(paths.systemPolicy);
    await expect(loadPolicy(paths)).rejects.toThrow(`invalid policy in "${paths.systemPolicy}": EISDIR`);
  });
});

describe('registries.d and lookaside signatures', () => {
  it('reads *.yaml of the per-user directory when it exists, else the system one', async () => {
    await mkdir(paths.systemRegistriesDir);
    await writeFile(join(paths.systemRegistriesDir, 'a.yaml'), 'default-docker:\n  lookaside: file:///system\n');
    await writeFile(join(paths.systemRegistriesDir, 'ignored.yml'), 'not: [valid\n');
    expect((await loadRegistriesD(paths)).defaultDocker?.lookaside).toBe('file:///system');
    await mkdir(paths.userRegistriesDir ?? '');
    expect((await loadRegistriesD(paths)).defaultDocker).toBeUndefined();
  });

  it('reads signature-1.. until the first missing one, from file://', async () => {
    const ref = parseNormalized('quay.io/ns/app:v1');
    const digest = `sha256:${'e'.repeat(64)}`;
    const sigDir = join(dir, 'sigs/ns', `app@sha256=${'e'.repeat(64)}`);
    await mkdir(sigDir, { recursive: true });
    await writeFile(join(sigDir, 'signature-1'), 'one');
    await writeFile(join(sigDir, 'signature-2'), 'two');
    await writeFile(join(sigDir, 'signature-4'), 'after a gap');
    const config = { defaultDocker: { lookaside: `file://${join(dir, 'sigs')}` }, docker: new Map() };
    const sigs = await lookasideSignatures(config, { ref, digest });
    expect(sigs.map((s) => Buffer.from(s).toString())).toEqual(['one', 'two']);
    expect(await lookasideSignatures({ docker: new Map() }, { ref, digest })).toEqual([]);
  });

  it('reads http(s) lookasides until a 404; another status or an oversized signature is an error', async () => {
    const ref = parseNormalized('quay.io/ns/app:v1');
    const digest = `sha256:${'f'.repeat(64)}`;
    const served: string[] = [];
    let mode: 'ok' | 'error' | 'huge' = 'ok';
    const server = createServer((req, res) => {
      served.push(req.url ?? '');
      if (mode === 'error') return res.writeHead(500, 'Boom').end();
      if (mode === 'huge' && req.url?.endsWith('signature-1') === true) return res.end(Buffer.alloc((4 << 20) + 1));
      if (req.url?.endsWith('signature-1') === true) return res.end('first');
      return res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sigs`;
      const config = { docker: new Map([['quay.io/ns', { lookaside: base }]]) };
      const sigs = await lookasideSignatures(config, { ref, digest });
      expect(sigs.map((x) => Buffer.from(x).toString())).toEqual(['first']);
      expect(served).toEqual([`/sigs/ns/app@sha256=${'f'.repeat(64)}/signature-1`, `/sigs/ns/app@sha256=${'f'.repeat(64)}/signature-2`]);
      mode = 'error';
      await expect(lookasideSignatures(config, { ref, digest })).rejects.toThrow(
        `reading signature from ${base}/ns/app@sha256=${'f'.repeat(64)}/signature-1: status 500 (Boom)`,
      );
      mode = 'huge';
      await expect(lookasideSignatures(config, { ref, digest })).rejects.toThrow(/exceeds 4194304 bytes/);
    } finally {
      server.close();
    }
  });
});
