// install.sh's CRD check (pkg/olmv1/release/crd-check.ts) with the real kubectl against a real
// kube-apiserver (a private one: its project CRDs are changed): over the CRDs the release ships it
// passes; over a newer ClusterExtension CRD that stores v2 it refuses, and its message is
// crdReplacementVerdict's on the CRD as the API server returns it, word for word. The
// ClusterObjectSet CRD of config/boxcutter is checked too, and a release whose schemas no longer
// keep unknown fields or map entries is refused (the template prints `*` and `{}` as the TypeScript reads them).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { crdReplacementVerdict, crdRequirements, manifestCrdProvisions, renderInstallScript } from '../../pkg/olmv1/release/index.ts';
import { connect, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { startControlPlane, type ControlPlane } from '../envtest/index.ts';

const exec = promisify(execFile);
const CE = 'clusterextensions.olm.operatorframework.io';
const crdFile = (name: string): string => readFileSync(new URL(`../../config/crd/olm.operatorframework.io_${name}.yaml`, import.meta.url), 'utf8');
const MANIFEST = `${crdFile('clustercatalogs')}\n---\n${crdFile('clusterextensions')}`;
const OVERLAY_CRDS = readFileSync(new URL('../../config/crd/experimental/olm.operatorframework.io_clusterobjectsets.yaml', import.meta.url), 'utf8');
const COS = 'clusterobjectsets.olm.operatorframework.io';
const imageRef = `registry.example.com/olmv1/olmv1@sha256:${'d'.repeat(64)}`;

type Version = {
  name: string;
  served: boolean;
  storage: boolean;
  schema: { openAPIV3Schema: { properties: Record<string, { properties?: Record<string, unknown> }> } };
};
type Crd = KubeObject & {
  spec: { versions: Version[] };
  status?: { storedVersions?: string[]; conditions?: Array<{ type: string; status: string }> };
};

let cp: ControlPlane;
let kube: KubeContext;
let dir: string;
beforeAll(async () => {
  const binaries = inject('envtestBinaries');
  cp = await startControlPlane({ binaries });
  kube = await connect({ kind: 'file', path: cp.info.kubeconfigPath });
  dir = await mkdtemp(join(tmpdir(), 'release-crd-check-'));
  await writeFile(join(dir, 'olmv1.yaml'), MANIFEST);
  const manifestSha256 = createHash('sha256').update(MANIFEST).digest('hex');
  const script = (crdCheck: { crds: string[]; lines: string[] }) =>
    renderInstallScript({ version: 'v1.0.0', manifestName: 'olmv1.yaml', manifestSha256, imageRef, crdCheck });
  const provisions = manifestCrdProvisions(MANIFEST, OVERLAY_CRDS);
  await writeFile(join(dir, 'install.sh'), script(provisions), { mode: 0o755 });
  // A release whose schemas keep no unknown fields and no map entries: the shipped lines without `*` and `{}`.
  const narrower = { crds: provisions.crds, lines: provisions.lines.filter((l) => !/\.(\*|\{\})(\.|$)/.test(l)) };
  await writeFile(join(dir, 'narrower.sh'), script(narrower), { mode: 0o755 });
  await symlink(binaries.kubectl, join(dir, 'kubectl'));
  for (const text of [crdFile('clustercatalogs'), crdFile('clusterextensions'), OVERLAY_CRDS])
    await kube.client.apply(load(text) as KubeObject, { fieldManager: 'test', force: true });
});
afterAll(async () => {
  kube?.close();
  await cp?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

const checkOnly = (script = 'install.sh') =>
  exec(join(dir, script), [], {
    env: { PATH: `${dir}:/usr/bin:/bin`, HOME: dir, KUBECONFIG: cp.info.kubeconfigPath, OLMV1_CHECK_CRDS_ONLY: 'true' },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );
const live = (name: string) => kube.client.get<Crd>({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name });

describe("install.sh's CRD check on a real API server", () => {
  it('passes over the CRDs the release ships', async () => {
    const r = await checkOnly();
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("The CRDs of olmv1 v1.0.0 keep what the cluster's CRDs hold");
    const required = [...crdRequirements(await live(CE)), ...crdRequirements(await live('clustercatalogs.olm.operatorframework.io'))];
    expect(crdReplacementVerdict(required, manifestCrdProvisions(MANIFEST).lines, 'v1.0.0')).toEqual({ safe: true });
  });

  it('refuses a release whose schemas keep no unknown fields or map entries, naming them as the verdict does, the ClusterObjectSet CRD included', async () => {
    const r = await checkOnly('narrower.sh');
    expect(r.code).toBe(1);
    const required = [...crdRequirements(await live(CE)), ...crdRequirements(await live(COS))];
    const provided = manifestCrdProvisions(MANIFEST, OVERLAY_CRDS).lines.filter((l) => !/\.(\*|\{\})(\.|$)/.test(l));
    const verdict = crdReplacementVerdict(required, provided, 'v1.0.0');
    expect(verdict.safe).toBe(false);
    if (verdict.safe) return;
    expect(r.stderr).toBe(`install.sh: ${verdict.message}\n`);
    expect(verdict.missing).toContain(`field ${CE} v1 spec.config.inline.*`);
    expect(verdict.missing).toContain(`field ${CE} v1 spec.source.catalog.selector.matchLabels.{}`);
    expect(verdict.missing.some((l) => l.startsWith(`field ${COS} `))).toBe(true);
  });

  it('refuses to go back over a ClusterExtension CRD that stores v2, in the verdict’s words', async () => {
    const newer = structuredClone(await live(CE));
    const v1 = newer.spec.versions[0] as Version;
    v1.storage = false;
    const v2 = structuredClone({ ...v1, name: 'v2', storage: true });
    (v2.schema.openAPIV3Schema.properties.spec?.properties as Record<string, unknown>).paused = { type: 'boolean' };
    newer.spec.versions.push(v2);
    delete newer.metadata.managedFields;
    delete newer.status;
    await kube.client.update(newer);
    await expect.poll(async () => (await live(CE)).status?.storedVersions, { timeout: 30_000 }).toEqual(['v1', 'v2']);

    const r = await checkOnly();
    expect(r.code).toBe(1);
    const verdict = crdReplacementVerdict(
      [...crdRequirements(await live(CE)), ...crdRequirements(await live('clustercatalogs.olm.operatorframework.io'))],
      manifestCrdProvisions(MANIFEST).lines,
      'v1.0.0',
    );
    expect(verdict.safe).toBe(false);
    if (!verdict.safe) {
      expect(r.stderr).toBe(`install.sh: ${verdict.message}\n`);
      expect(verdict.missing).toContain(`stored ${CE} v2`);
      expect(verdict.missing).toEqual([`served ${CE} v2`, `stored ${CE} v2`]);
    }
  });
});
