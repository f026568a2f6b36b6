/**
 * The setup of the many-extensions benchmark (bench/benchmarks/scale.ts): EXTENSIONS packages
 * in versions 1.0.0 and 1.0.1 and three failing ones pushed as bundle images, two catalog
 * images (the first with 1.0.0 only, served by ClusterCatalog `scale`; the update adding
 * 1.0.1), and per package a namespace with the ServiceAccount and the RBAC `olmv1 rbac` prints
 * for 1.0.0; `grantUpdate` applies what it prints for 1.0.1, as an administrator does before
 * offering the update. Only the first `crdPackages` packages own a CRD (by default all of them;
 * a real cluster serves hundreds of CRDs, not one per installed extension). At 10,000
 * extensions that is 20,003 images and 20,001 `olmv1 rbac` outputs applied, so everything runs
 * several at a time.
 */
import { join } from 'node:path';
import type { BenchContext } from './benchmark.ts';
import { type PushedBundle, benchImageClient, createCatalog, createInstaller, pushCatalog, pushGeneratedBundle } from './extension-bundles.ts';
import type { OlmStack } from './olm-stack.ts';
import { eachLimited } from './scale-runs.ts';
import type { KubeClient } from '../../pkg/shared/kube/index.ts';

export const CATALOG = 'scale';
export const SA = 'installer';
export const FAULTS = ['scale-fault-permissions', 'scale-fault-bundle', 'scale-fault-namespace'] as const;

export interface Published {
  /** Version 1.0.0 of each healthy package, and 1.0.1. */
  v1: PushedBundle[];
  v2: PushedBundle[];
  faults: PushedBundle[];
  update: { ref: string; digest: string };
  /**
   * Applies the RBAC `olmv1 rbac` prints for 1.0.1 to every installer; returns the seconds it
   * took. Not up front: every ClusterRoleBinding is one more that kube-apiserver's RBAC
   * authorizer visits for each request made as an installer (bench `rbac-floor`), and at
   * 10,000 extensions the second version's 10,000 made every install pay for a grant it did
   * not use.
   */
  grantUpdate(): Promise<number>;
}

/** Bundle pushes at a time (each renders its bundle in this process, then uploads to the loopback registry). */
const PUSHES = 8;
/** Installers (`olmv1 rbac` in this process, then its objects applied one by one) at a time. */
const APPLIES = 16;

async function namespaceWithServiceAccount(client: KubeClient, ns: string): Promise<void> {
  const o = { fieldManager: 'olmv1-bench', force: true };
  await client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, o);
  await client.apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SA, namespace: ns } }, o);
}

/** Seconds since `t0` (performance.now() ms), for the progress lines. */
const since = (t0: number): number => Math.round((performance.now() - t0) / 100) / 10;

/**
 * Pushes the bundles and catalogs and creates the installers, several at a time: at 1,000
 * extensions this is 2,003 bundle images and 2,001 `olmv1 rbac` outputs applied, which one at a
 * time took longer than everything measured after it.
 */
export async function publish(
  ctx: BenchContext,
  stack: OlmStack,
  n: number,
  crdPackages = n,
): Promise<Published & { publishS: number; installersS: number }> {
  const images = benchImageClient();
  try {
    const t0 = performance.now();
    const root = join(ctx.workDir, 'bundles');
    const withCrds = Math.min(n, crdPackages);
    ctx.log(`pushing ${n} packages (${withCrds} with a CRD) in versions 1.0.0 and 1.0.1, 3 failing ones, and two catalog images`);
    const pkgs = Array.from({ length: n }, (_, i) => `scale-${String(i).padStart(3, '0')}`);
    const pushed = new Map<string, PushedBundle>();
    const versions = pkgs.flatMap((pkg, i) => ['1.0.0', '1.0.1'].map((version) => ({ pkg, version, crds: i < withCrds ? ['widgets'] : [] })));
    await eachLimited(versions, PUSHES, async ({ pkg, version, crds }) =>
      pushed.set(`${pkg}@${version}`, await pushGeneratedBundle(images, stack.registry, root, pkg, crds, undefined, { version })),
    );
    const at = (pkg: string, version: string): PushedBundle => pushed.get(`${pkg}@${version}`) as PushedBundle;
    const v1 = pkgs.map((pkg) => at(pkg, '1.0.0'));
    const v2 = pkgs.map((pkg) => at(pkg, '1.0.1'));
    const [permissions, bundle, namespace] = FAULTS;
    const faults = [
      await pushGeneratedBundle(images, stack.registry, root, permissions, ['widgets']),
      await pushGeneratedBundle(images, stack.registry, root, bundle, ['widgets'], undefined, { invalidService: true }),
      await pushGeneratedBundle(images, stack.registry, root, namespace, ['widgets']),
    ];
    const repo = `${stack.registry}/bench-catalogs/${CATALOG}`;
    const first = await pushCatalog(images, join(ctx.workDir, 'catalog-v1'), `${repo}:v1`, [...v1, ...faults]);
    const update = { ref: `${repo}:v2`, digest: await pushCatalog(images, join(ctx.workDir, 'catalog-v2'), `${repo}:v2`, [...v1, ...v2, ...faults]) };
    await createCatalog(stack.kube.client, CATALOG, `${repo}:v1`, first);
    const publishS = since(t0);
    ctx.log(
      `pushed and served in ${publishS} s; creating ${n + 2} namespaces with a ServiceAccount and the RBAC olmv1 rbac prints (none for ${permissions})`,
    );
    const t1 = performance.now();
    await eachLimited([...v1, faults[1] as PushedBundle], APPLIES, (b) => createInstaller(stack.kube.client, b, b.pkg, SA));
    await namespaceWithServiceAccount(stack.kube.client, permissions);
    const installersS = since(t1);
    ctx.log(`installers created in ${installersS} s`);
    const grantUpdate = async (): Promise<number> => {
      const t2 = performance.now();
      await eachLimited(v2, APPLIES, (b) => createInstaller(stack.kube.client, b, b.pkg, SA));
      return since(t2);
    };
    return { v1, v2, faults, update, grantUpdate, publishS, installersS };
  } finally {
    images.close();
  }
}
