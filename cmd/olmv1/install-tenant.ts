/**
 * `olmv1 install PACKAGE -n NAMESPACE --tenant` (decision 0138): as a namespace's admin, the
 * request for PACKAGE in NAMESPACE (an Extension) through pkg/olmv1/tenant's service, printed
 * as the command prints it. A ClusterCatalog marked Community that may serve the package asks for
 * `--accept-community`, as a cluster-wide install does (decision 0148).
 */
import { catalogsServing, installsAsTenant, requestTenantInstall, type TenantInstallEvent } from '../../pkg/olmv1/tenant/index.ts';
import { describeObject } from '../../pkg/olmv1/install/index.ts';
import type { KubeContext } from '../../pkg/shared/kube/index.ts';
import { type CommandIO, EXIT, type Clock } from './io.ts';
import type { InstallArgs } from './install-args.ts';
import { CommandError, formatObjects } from './render.ts';
import type { ResolveClusterDeps } from './resolve-cluster.ts';

/**
 * Whether `olmv1 install` without `--tenant` requests the install as a tenant: when the caller
 * may not create ClusterExtensions but may create Extensions in the namespace, and gave no flag a
 * request cannot carry. Says so on stderr.
 */
export async function requestsAsTenant(a: InstallArgs, kube: KubeContext, io: CommandIO): Promise<boolean> {
  const req = a.request;
  if (a.tenant) return true;
  if (req.updatePolicy !== undefined || req.crdUpgradeSafety !== undefined || a.certProvider !== undefined || a.withDependencies) return false;
  if (!(await installsAsTenant(kube.client, req.namespace))) return false;
  io.stderr.write(
    `you may not create ClusterExtensions but may request installs in namespace ${req.namespace}: requesting ${req.packageName} as a tenant (an Extension an ExtensionPolicy must allow; docs/tenants.md)\n`,
  );
  return true;
}

/** Runs the install as a tenant (pkg/olmv1/tenant's service) with `a` as the caller, printing as it goes. */
export async function installTenant(a: InstallArgs, kube: KubeContext, io: CommandIO, deps: ResolveClusterDeps & Clock): Promise<void> {
  const onEvent = (e: TenantInstallEvent): void => {
    if (e.type === 'waiting') io.stderr.write(`${e.what}: ${e.progress}\n`);
    else {
      io.stderr.write(`created ${describeObject(e.object)}\n`);
      if (a.output !== undefined) io.stdout.write(formatObjects([e.object], a.output));
    }
  };
  const r = await requestTenantInstall(
    { client: kube.client, clock: deps, onEvent, servedBy: (req) => catalogsServing(kube, catalogReads(deps, a.catalogdUrl), req) },
    {
      request: a.request,
      existingServiceAccount: a.existingServiceAccount,
      dryRun: a.dryRun,
      wait: a.wait,
      timeoutMs: a.timeoutMs,
      acceptCommunity: a.acceptCommunity,
    },
  );
  if (!r.ok) throw new CommandError(r.error, EXIT.failed);
  if (r.community !== undefined && !a.acceptCommunity) io.stderr.write(`warning: ${r.community}\n`);
  if (r.dryRun) {
    io.stdout.write(formatObjects([r.object], a.output ?? 'yaml'));
    io.stderr.write('dry run: nothing written (1 object)\n');
    return;
  }
  if (r.installed !== undefined && a.output === undefined) {
    io.stdout.write(`installed ${r.installed.bundle} (${r.installed.version}) for Extension ${a.request.namespace}/${a.request.name}\n`);
  }
}

/** How the caller reads catalogd's content: through the content cache, at `catalogdUrl`'s origin when given. */
function catalogReads(deps: ResolveClusterDeps, catalogdUrl: URL | undefined) {
  return {
    content: deps.catalogContent,
    ...(catalogdUrl === undefined
      ? {}
      : { baseURL: (_name: string, base: string) => `${catalogdUrl.origin}${new URL(base).pathname}`.replace(/\/+$/, '') }),
  };
}
