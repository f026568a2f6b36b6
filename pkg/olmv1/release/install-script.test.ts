import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderInstallScript } from './install-script.ts';

const exec = promisify(execFile);
const sha = 'c'.repeat(64);
const imageRef = `registry.example.com/olmv1/olmv1@sha256:${'d'.repeat(64)}`;
const crdCheck = { crds: [], lines: [] };

describe('renderInstallScript', () => {
  const script = renderInstallScript({ version: 'v1.2.3', manifestName: 'olmv1.yaml', manifestSha256: sha, imageRef, crdCheck });

  it('checks the manifest SHA-256 and cert-manager before it applies anything', () => {
    const check = script.indexOf(`manifest_sha256='${sha}'`);
    const certManager = script.indexOf('crd certificates.cert-manager.io');
    const apply = script.indexOf('kubectl apply --server-side --force-conflicts -f "${manifest}"');
    expect(check).toBeGreaterThan(0);
    expect(certManager).toBeGreaterThan(check);
    expect(apply).toBeGreaterThan(certManager);
  });

  it('waits for the CRDs and both rollouts in olmv1-system, and adds a catalog only when asked', () => {
    expect(script).toContain("namespace='olmv1-system'");
    expect(script).toContain('deployment/catalogd-controller-manager');
    expect(script).toContain('deployment/operator-controller-controller-manager');
    expect(script).toContain('crd/clusterextensions.olm.operatorframework.io');
    expect(script).toMatch(/if \[\[ -n "\$\{catalog_image\}" \]\]; then[\s\S]*kind: ClusterCatalog[\s\S]*condition=Serving/);
    expect(script.startsWith('#!/usr/bin/env bash\n')).toBe(true);
    expect(script).toContain('set -euo pipefail');
  });

  it('refuses values that would leave their shell quotes, and an image not pinned by digest', () => {
    expect(() => renderInstallScript({ version: "v1'; rm -rf /", manifestName: 'olmv1.yaml', manifestSha256: sha, imageRef, crdCheck })).toThrow(
      /version/,
    );
    expect(() => renderInstallScript({ version: 'v1.2.3', manifestName: 'olmv1.yaml', manifestSha256: 'nope', imageRef, crdCheck })).toThrow(
      /SHA-256/,
    );
    expect(() =>
      renderInstallScript({ version: 'v1.2.3', manifestName: 'olmv1.yaml', manifestSha256: sha, imageRef: 'r.example/o:v1', crdCheck }),
    ).toThrow(/digest/);
  });
});

// The script itself, run by bash with stand-ins for kubectl and cosign that record their
// arguments: with OLMV1_VERIFY_KEY, cosign verifies the pinned image before kubectl applies
// anything, and a failed verification applies nothing.
describe('install.sh with OLMV1_VERIFY_KEY', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'olmv1-install-script-'));
    const manifest = 'kind: Namespace\n';
    await writeFile(join(dir, 'olmv1.yaml'), manifest);
    const manifestSha256 = createHash('sha256').update(manifest).digest('hex');
    await writeFile(
      join(dir, 'install.sh'),
      renderInstallScript({ version: 'v1.2.3', manifestName: 'olmv1.yaml', manifestSha256, imageRef, crdCheck }),
      {
        mode: 0o755,
      },
    );
    await writeFile(join(dir, 'cosign.pub'), 'a public key\n');
    for (const tool of ['kubectl', 'cosign'])
      await writeFile(join(dir, tool), `#!/bin/sh\necho "${tool} $*" >>"$CALLS"\n[ "${tool}" != cosign ] || exit "$COSIGN_EXIT"\n`, { mode: 0o755 });
  });
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  const run = async (env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string; calls: string[] }> => {
    const calls = join(dir, `calls-${Math.random().toString(36).slice(2)}`);
    await writeFile(calls, '');
    const result = await exec(join(dir, 'install.sh'), [], { env: { PATH: `${dir}:/usr/bin:/bin`, CALLS: calls, ...env } }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
    );
    return { ...result, calls: (await readFile(calls, 'utf8')).trim().split('\n') };
  };

  it('verifies the pinned image with the key before anything is applied', async () => {
    const r = await run({ OLMV1_VERIFY_KEY: join(dir, 'cosign.pub'), COSIGN_EXIT: '0', OLMV1_VERIFY_PLAIN_HTTP: 'true' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.calls[0]).toBe(
      `cosign verify --key ${join(dir, 'cosign.pub')} --insecure-ignore-tlog=true --allow-http-registry --allow-insecure-registry ${imageRef}`,
    );
    expect(r.calls.slice(1).some((c) => c.startsWith('kubectl apply --server-side --force-conflicts -f '))).toBe(true);
    expect(r.stdout).toContain(`The signature of ${imageRef} verifies with ${join(dir, 'cosign.pub')}`);
  });

  it('refuses, applying nothing and asking nothing of the cluster, when the signature does not verify', async () => {
    const r = await run({ OLMV1_VERIFY_KEY: join(dir, 'cosign.pub'), COSIGN_EXIT: '1' });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`install.sh: ${imageRef} has no signature that verifies with ${join(dir, 'cosign.pub')}: nothing was applied\n`);
    expect(r.calls).toEqual([`cosign verify --key ${join(dir, 'cosign.pub')} --insecure-ignore-tlog=true ${imageRef}`]);
  });

  it('refuses without the key file; without OLMV1_VERIFY_KEY it does not verify', async () => {
    const noKey = await run({ OLMV1_VERIFY_KEY: join(dir, 'missing.pub'), COSIGN_EXIT: '0' });
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain(`no public key at ${join(dir, 'missing.pub')}`);
    const unverified = await run({ COSIGN_EXIT: '1' });
    expect(unverified.code).toBe(0);
    expect(unverified.calls.some((c) => c.startsWith('cosign'))).toBe(false);
  });
  it('writes OLMV1_INSECURE_REGISTRIES into the mounted ConfigMap before the manifest is applied, and verifies such an image over plain HTTP', async () => {
    const r = await run({
      OLMV1_VERIFY_KEY: join(dir, 'cosign.pub'),
      COSIGN_EXIT: '0',
      OLMV1_INSECURE_REGISTRIES: 'registry.example.com,10.0.0.1:5000',
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.calls[0]).toContain('--allow-http-registry --allow-insecure-registry');
    const text = r.calls.join('\n');
    const configMap = text.indexOf('kubectl create configmap olmv1-registries-conf --namespace=olmv1-system');
    expect(configMap).toBeGreaterThan(0);
    expect(text.indexOf('kubectl apply --server-side --force-conflicts -f ')).toBeGreaterThan(configMap);
    expect(text).toContain(
      '--from-literal=50-insecure-registries.conf=# Written by install.sh from OLMV1_INSECURE_REGISTRIES.\n\n' +
        '[[registry]]\nlocation = "registry.example.com"\ninsecure = true\n\n[[registry]]\nlocation = "10.0.0.1:5000"\ninsecure = true\n',
    );
    expect(r.stdout).toContain('Writing registry.example.com,10.0.0.1:5000 as plain-HTTP registries into ConfigMap olmv1-registries-conf');
  });

  it('refuses an OLMV1_INSECURE_REGISTRIES entry that is not HOST[:PORT], asking nothing of the cluster', async () => {
    const r = await run({ COSIGN_EXIT: '0', OLMV1_INSECURE_REGISTRIES: 'ok.example,bad"\ninsecure = false' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('install.sh: OLMV1_INSECURE_REGISTRIES: \'bad"');
    expect(r.calls).toEqual(['']);
  });
});
