// install.sh's CRD check, run by bash with a stand-in kubectl: `kubectl get crd NAME -o
// go-template=...` answers with the facts the template prints for a fixture CRD (below; the
// real template on a real API server: test/integration/release-crd-check.test.ts). Its refusal
// must be crdReplacementVerdict's message, word for word, and nothing may be applied.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crdReplacementVerdict, crdRequirements, manifestCrdProvisions } from './crd-check.ts';
import { renderInstallScript } from './install-script.ts';

const exec = promisify(execFile);
const NAME = 'clusterextensions.olm.operatorframework.io';
const CE_YAML = readFileSync(new URL('../../../config/crd/olm.operatorframework.io_clusterextensions.yaml', import.meta.url), 'utf8');
const imageRef = `registry.example.com/olmv1/olmv1@sha256:${'d'.repeat(64)}`;

interface Schema {
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}
type Crd = {
  spec: { versions: Array<{ name: string; served: boolean; storage: boolean; schema?: { openAPIV3Schema?: Schema } }> };
  status?: { storedVersions: string[] };
};

/** What CRD_FACTS_TEMPLATE prints for `crd` (kubectl's go-template ranges over map keys in order). */
function facts(crd: Crd): string {
  const out: string[] = [];
  const walk = (s: Schema): void => {
    for (const k of Object.keys(s.properties ?? {}).sort()) {
      out.push(`+${k}`);
      walk(s.properties?.[k] ?? {});
      out.push('-');
    }
    if (s.items !== undefined) {
      out.push('+[]');
      walk(s.items);
      out.push('-');
    }
    if (s.additionalProperties !== undefined && s.additionalProperties !== false) {
      out.push('+{}');
      if (s.additionalProperties !== true) walk(s.additionalProperties);
      out.push('-');
    }
    if (s['x-kubernetes-preserve-unknown-fields'] === true) out.push('+*', '-');
  };
  for (const v of crd.spec.versions) {
    out.push(`version ${v.name} ${v.served}`);
    if (v.schema?.openAPIV3Schema !== undefined) walk(v.schema.openAPIV3Schema);
  }
  for (const v of crd.status?.storedVersions ?? []) out.push(`stored ${v}`);
  return out.map((l) => `${l}\n`).join('');
}

function withV2(crd: Crd): Crd {
  const next = structuredClone(crd);
  const v1 = next.spec.versions[0];
  if (v1 === undefined) throw new Error('no v1');
  v1.storage = false;
  const v2 = structuredClone({ ...v1, name: 'v2', storage: true });
  const spec = v2.schema?.openAPIV3Schema?.properties?.spec;
  if (spec?.properties !== undefined) spec.properties.paused = {};
  next.spec.versions.push(v2);
  return next;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'olmv1-install-crds-'));
  const manifest = CE_YAML;
  await writeFile(join(dir, 'olmv1.yaml'), manifest);
  const manifestSha256 = createHash('sha256').update(manifest).digest('hex');
  const script = renderInstallScript({
    version: 'v1.0.0',
    manifestName: 'olmv1.yaml',
    manifestSha256,
    imageRef,
    crdCheck: manifestCrdProvisions(manifest),
  });
  await writeFile(join(dir, 'install.sh'), script, { mode: 0o755 });
  // kubectl: `get crd NAME ...` prints $FACTS/NAME when there is one (an absent CRD prints nothing); every call is recorded.
  await writeFile(
    join(dir, 'kubectl'),
    `#!/bin/sh\necho "kubectl $*" >>"$CALLS"\nif [ "$1 $2" = "get crd" ]; then [ ! -f "$FACTS/$3" ] || cat "$FACTS/$3"; fi\nexit 0\n`,
    { mode: 0o755 },
  );
});
afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

async function run(cluster: Crd | undefined, env: Record<string, string> = {}) {
  const id = Math.random().toString(36).slice(2);
  const factsDir = join(dir, `facts-${id}`);
  await mkdir(factsDir);
  if (cluster !== undefined) await writeFile(join(factsDir, NAME), facts(cluster));
  const calls = join(dir, `calls-${id}`);
  await writeFile(calls, '');
  const result = await exec(join(dir, 'install.sh'), [], {
    env: { PATH: `${dir}:/usr/bin:/bin`, CALLS: calls, FACTS: factsDir, OLMV1_TIMEOUT: '1s', ...env },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );
  return { ...result, calls: (await readFile(calls, 'utf8')).trim().split('\n') };
}

const shipped = (): Crd => load(CE_YAML) as Crd;
const applied = (calls: string[]): boolean => calls.some((c) => c.startsWith('kubectl apply --server-side --force-conflicts -f'));

describe("install.sh's CRD check", () => {
  it('passes over the CRD it ships (the same release again, or a safe downgrade) and over a cluster without it', async () => {
    const same = await run({ ...shipped(), status: { storedVersions: ['v1'] } }, { OLMV1_CHECK_CRDS_ONLY: 'true' });
    expect(same.stderr).toBe('');
    expect(same.code).toBe(0);
    expect(same.stdout).toContain("The CRDs of olmv1 v1.0.0 keep what the cluster's CRDs hold");
    expect(same.calls[0]).toMatch(new RegExp(`^kubectl get crd ${NAME} --ignore-not-found -o go-template=`));
    expect(applied(same.calls)).toBe(false);
    const fresh = await run(undefined);
    expect(fresh.code).toBe(0);
    expect(applied(fresh.calls)).toBe(true);
  });

  it('refuses to go back over a CRD storing a version it does not serve, with the verdict message, applying nothing', async () => {
    const cluster = { ...withV2(shipped()), status: { storedVersions: ['v1', 'v2'] } };
    const r = await run(cluster);
    expect(r.code).toBe(1);
    const verdict = crdReplacementVerdict(crdRequirements(cluster), manifestCrdProvisions(CE_YAML).lines, 'v1.0.0');
    expect(verdict.safe).toBe(false);
    if (!verdict.safe) expect(r.stderr).toBe(`install.sh: ${verdict.message}\n`);
    expect(r.stderr).toContain(`${NAME}: objects are stored at v2 (status.storedVersions), which olmv1 v1.0.0 does not serve`);
    expect(r.calls.filter((c) => c.startsWith('kubectl '))).toHaveLength(1);
    expect(applied(r.calls)).toBe(false);
  });

  it('refuses to go back over a CRD with a field its schema lacks, naming the field', async () => {
    const cluster = { ...shipped(), status: { storedVersions: ['v1'] } };
    const spec = cluster.spec.versions[0]?.schema?.openAPIV3Schema?.properties?.spec;
    if (spec?.properties !== undefined) spec.properties.paused = {};
    const r = await run(cluster);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${NAME} v1: field spec.paused is not in olmv1 v1.0.0's schema (its values would be pruned)`);
    const verdict = crdReplacementVerdict(crdRequirements(cluster), manifestCrdProvisions(CE_YAML).lines, 'v1.0.0');
    if (!verdict.safe) expect(r.stderr).toBe(`install.sh: ${verdict.message}\n`);
    expect(applied(r.calls)).toBe(false);
  });

  it('applies anyway with OLMV1_ALLOW_CRD_CHANGE=true, saying what it overrode', async () => {
    const r = await run({ ...withV2(shipped()), status: { storedVersions: ['v2'] } }, { OLMV1_ALLOW_CRD_CHANGE: 'true' });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/OLMV1_ALLOW_CRD_CHANGE=true: applying anyway/);
    expect(applied(r.calls)).toBe(true);
  });
});
