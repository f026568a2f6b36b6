/**
 * The ports of pkg/olmv1/upgrade as the olmv1 commands and the console give them: the cluster
 * resolution of resolve-cluster.ts, bundle images pulled with the registry settings of
 * registry-access.ts, operator-controller's gate parser, and `olmv1 install`'s RBAC.
 */
import type { UpgradeDeps as ServiceDeps } from '../../pkg/olmv1/upgrade/index.ts';
import type { ImageLimits } from '../../pkg/shared/image/index.ts';
import { createOpenApiSchemas, type KubeContext } from '../../pkg/shared/kube/index.ts';
import type { CommandIO } from './io.ts';
import { INSTALLED_BY_LABEL, installedForSelector } from './install-objects.ts';
import { installRbac } from './rbac.ts';
import { loadRegistryAccess, type RegistryAccess } from './registry-access.ts';
import { loadBundle, type BundleSourceDeps } from './render.ts';
import {
  clusterDependentsHold,
  clusterResolutionHints,
  clusterResolve,
  clusterResolveInput,
  readClusterExtension,
  relevantDeprecation,
  type ResolveClusterDeps,
} from './resolve-cluster.ts';
import { controllerGates } from './upgrade-gates.ts';

/** What the upgrade commands need (composed in commands.ts). */
export interface UpgradeDeps extends ResolveClusterDeps, BundleSourceDeps {}

/** The settings of one run. */
interface UpgradeSettings {
  catalogdUrl: URL | undefined;
  registryValues: { authfile?: string; 'ca-file'?: string };
  imageLimits: ImageLimits;
}

/** The services' ports over `kube` (the user's connection); `io`: where progress, notes and install's warnings go (none: dropped). */
export function upgradeServiceDeps(kube: KubeContext, deps: UpgradeDeps, s: UpgradeSettings, io?: CommandIO): ServiceDeps {
  const { fetchBundle } = deps;
  let access: RegistryAccess | undefined;
  const quiet: CommandIO = { stdout: { write: () => undefined }, stderr: { write: () => undefined } };
  return {
    client: kube.client,
    schemas: createOpenApiSchemas(kube.transport),
    resolver: {
      extension: (name) => readClusterExtension(kube, name),
      input: (source, installed) => clusterResolveInput(kube, deps, s.catalogdUrl, source, installed),
      resolve: (extension, selector, input) => clusterResolve(kube, deps, s.catalogdUrl, extension, selector, input),
      hints: (input, selector, error) => clusterResolutionHints(kube, deps, s.catalogdUrl, input, selector, error),
      dependentsHold: (self, target) => clusterDependentsHold(kube, deps, s.catalogdUrl, self, target),
      deprecation: relevantDeprecation,
    },
    bundles:
      fetchBundle === undefined
        ? undefined
        : {
            checkSettings: async () => {
              access = await loadRegistryAccess(s.registryValues, deps.defaultAuthFile);
            },
            fetch: async (image) =>
              fetchBundle(image, { ...(access ?? (await loadRegistryAccess(s.registryValues, deps.defaultAuthFile))), limits: s.imageLimits }),
            load: (image) => loadBundle({ source: image, values: s.registryValues, imageLimits: s.imageLimits }, deps, 'catalog'),
          },
    gateParser: controllerGates,
    rbac: {
      installedBy: { label: INSTALLED_BY_LABEL, value: 'olmv1' },
      selector: installedForSelector,
      wanted: (bundle, options, serviceAccount, args) => installRbac(bundle, options, serviceAccount, args, io ?? quiet),
    },
    progress: io === undefined ? undefined : (line) => io.stderr.write(`${line}\n`),
    now: () => Date.now(),
  };
}
