/**
 * `olmv1 install PACKAGE` (USAGE in install-args.ts): parses the flags, runs the install service
 * (pkg/olmv1/install: resolve, pull, installer RBAC, the labelled objects written after a
 * server-side dry run, the wait for Installed) as the kubeconfig's user and prints its progress
 * and outcome; `--tenant`, or a caller who may request installs in the namespace but not create
 * ClusterExtensions, requests the install instead (install-tenant.ts).
 */
import { BUNDLE_IMAGE_LIMITS } from '../../pkg/shared/image/index.ts';
import type { KubeContext } from '../../pkg/shared/kube/index.ts';
import {
  installExtension,
  SUGGESTED_NAMESPACE_TEMPLATE_ANNOTATION,
  type InstallEvent,
  type InstallPorts,
  type InstallResult,
} from '../../pkg/olmv1/install/index.ts';
import { imageLimitOptions } from '../shared/limits.ts';
import { withCluster } from './cluster-access.ts';
import { type CommandIO, EXIT, type Clock } from './io.ts';
import { parseInstallArgs } from './install-args.ts';
import { installTenant, requestsAsTenant } from './install-tenant.ts';
import { printRbacWarnings } from './rbac.ts';
import { CommandError, formatObjects, loadBundle, runCommand, type BundleSourceDeps } from './render.ts';
import {
  clusterCatalogSource,
  clusterDependencyCheck,
  clusterResolutionHints,
  clusterResolve,
  clusterResolveInput,
  type ResolveClusterDeps,
} from './resolve-cluster.ts';

/** What `install` needs (composed in commands.ts). */
export interface InstallDeps extends ResolveClusterDeps, BundleSourceDeps, Clock {}

/** Runs `olmv1 install`; `args` are the arguments after `install`. */
export async function runInstall(args: readonly string[], io: CommandIO, deps: InstallDeps): Promise<number> {
  return runCommand(io, async () => {
    const a = parseInstallArgs(args);
    await withCluster(deps.connectCluster(a.cluster), async (kube) => {
      if (await requestsAsTenant(a, kube, io)) return installTenant(a, kube, io, deps);
      const imageLimits = imageLimitOptions(a.values, BUNDLE_IMAGE_LIMITS);
      const ports: InstallPorts = {
        ...installPorts(kube, deps, a.catalogdUrl),
        loadBundle: (image) => loadBundle({ source: image, values: a.values, imageLimits }, deps, 'catalog'),
        onEvent: (e) => {
          // With -o, the objects are printed once written, before the wait.
          if (e.type === 'written' && e.extension === a.request.name && a.output !== undefined) io.stdout.write(formatObjects(e.objects, a.output));
          else printEvent(e, io);
        },
      };
      const request = { ...a, extension: a.request };
      const result = await installExtension(ports, request);
      if (!result.ok) throw new CommandError(result.error, EXIT.failed);
      const r = result.value;
      if (r.community !== undefined && !a.acceptCommunity) io.stderr.write(`warning: ${r.community}\n`);
      // What of the CSV's suggested-namespace template was not applied (the RBAC's warnings were printed as they came).
      for (const w of r.warnings) if (w.startsWith(SUGGESTED_NAMESPACE_TEMPLATE_ANNOTATION)) io.stderr.write(`warning: ${w}\n`);
      if (r.dryRun) {
        io.stdout.write(formatObjects(r.objects, a.output ?? 'yaml'));
        io.stderr.write(`dry run: nothing written (${r.objects.length} objects)\n`);
      } else if (a.output === undefined) {
        io.stdout.write(r.installed ? `installed ${what(r)}\n` : `created ClusterExtension ${what(r)}\n`);
      }
    });
  });
}

/** The install service's ports of the cluster (`kube`) and catalogd (at `catalogdUrl` when given), as the cluster's user; the console uses them too. */
export function installPorts(
  kube: KubeContext,
  deps: ResolveClusterDeps & Clock,
  catalogdUrl: URL | undefined,
): Pick<InstallPorts, 'client' | 'catalogs' | 'clock'> {
  const rd = deps;
  return {
    client: kube.client,
    catalogs: {
      input: (src) => clusterResolveInput(kube, rd, catalogdUrl, src as Parameters<typeof clusterResolveInput>[3], null),
      resolve: (name, selector, input) => clusterResolve(kube, rd, catalogdUrl, name, selector as Selector, input),
      hints: (input, selector, error) => clusterResolutionHints(kube, rd, catalogdUrl, input, selector as Selector, error),
      source: () => clusterCatalogSource(kube, rd, catalogdUrl),
      dependencyCheck: (source, self, inputs) => clusterDependencyCheck(kube, source, self, inputs),
    },
    clock: { now: () => deps.now(), sleep: (ms) => deps.sleep(ms) },
  };
}

/** The selector type of the cluster resolution (a ClusterExtension's). */
type Selector = Parameters<typeof clusterResolve>[4];

/** `NAME: BUNDLE (VERSION) of package P from catalog C, in namespace NS as ServiceAccount SA`. */
function what(r: InstallResult): string {
  const { bundle } = r;
  return `${r.extension}: ${bundle.name} (${bundle.version}) of package ${r.packageName} from catalog ${bundle.catalog}, in namespace ${r.namespace} as ServiceAccount ${r.serviceAccount}`;
}

/** An install's progress as the command prints it (stderr; a dependency installed on stdout). */
function printEvent(e: InstallEvent, io: CommandIO): void {
  const err = (line: string) => void io.stderr.write(`${line}\n`);
  switch (e.type) {
    case 'resolving':
      return err(`resolving package ${e.packageName} against the cluster's catalogs`);
    case 'dependency': {
      const p = e.provider;
      return err(
        `dependency ${e.index} of ${e.extension}: installing package ${p.packageName} (${p.bundle} from catalog ${p.catalog}) for: ${e.requirement}`,
      );
    }
    case 'dependency-installed':
      return void io.stdout.write(`installed ${what(e.result)}\n`);
    case 'dependencies':
      return err(`${e.count} dependenc${e.count === 1 ? 'y' : 'ies'} of ${e.extension} installed`);
    case 'resolved':
      return err(`resolved ${e.bundle.name} (${e.bundle.version}) from catalog ${e.bundle.catalog}; pulling bundle image ${e.bundle.image}`);
    case 'rbac':
      return printRbacWarnings(e, io);
    case 'object': {
      const earlier = e.action === 'reused' || e.action === 'updated' ? ` (created for ${e.extension} by an earlier "olmv1 install")` : '';
      return err(`${e.action} ${e.object}${e.action === 'removed' ? ' again' : earlier}`);
    }
    case 'remove-failed':
      return err(`could not remove ${e.object}: ${e.error}`);
    case 'written':
      return;
    case 'waiting':
      return err(`waiting for ClusterExtension ${e.extension}: ${e.progress}`);
  }
}
