/**
 * The install service's dependencies (`olmv1 install --with-dependencies`): one unmet requirement at a time (checked as the controller
 * checks them, decision 0104), installs the provider the selected catalogs prefer as its own
 * ClusterExtension (its own requirements first), then checks again. A requirement no selected
 * catalog provides is refused; when that is the first one, nothing was written. A dry run lists
 * instead what would be installed first (planDependencies).
 */
import type { Bundle } from '../../shared/fbc/index.ts';
import { unmetProviders, type CatalogSource } from '../../operator-controller/dependencyview/index.ts';
import type { Provider } from '../../operator-controller/dependencies/index.ts';
import type { LabelSelector, ResolveInput } from '../../operator-controller/resolve/index.ts';
import type { InstallCatalogs, InstallEvent, PlannedDependency } from './ports.ts';
import { InstallRefused } from './refused.ts';

/** How many dependencies one install installs at most (a cycle or a runaway closure stops here). */
const MAX_DEPENDENCIES = 20;

/** What installing the dependencies of extension `self`'s bundle needs. */
interface DependencyInstall {
  catalogs: Pick<InstallCatalogs, 'dependencyCheck'>;
  source: CatalogSource;
  selector: LabelSelector | undefined;
  /** The extension being installed (excluded from what meets requirements) and its resolved bundle. */
  self: string;
  bundle: Bundle;
  inputs: ResolveInput['catalogs'];
  /** Packages already being installed further up (a requirement they provide is not installed again). */
  installing: ReadonlySet<string>;
  /** Installs `provider`'s package as its own ClusterExtension, its own dependencies first, and waits until it is Installed. */
  installOne(provider: Provider, installing: ReadonlySet<string>): Promise<void>;
  onEvent?: ((event: InstallEvent) => void) | undefined;
}

/**
 * Installs the dependencies of `d.bundle` the cluster does not meet yet; returns how many.
 * @throws InstallRefused for a requirement no selected catalog provides, or one that
 * still is not met after its provider was installed.
 */
export async function installDependencies(d: DependencyInstall): Promise<number> {
  const installing = new Set(d.installing);
  let count = 0;
  for (;;) {
    const { check, unread, items } = await d.catalogs.dependencyCheck(d.source, d.self, d.inputs);
    if (items === undefined) throw new InstallRefused(`cannot install dependencies: cannot read ${unread.join(' or ')}`);
    const text = check?.check(d.bundle);
    if (text === undefined) return count;
    const unmet = check?.unmet.get(text);
    if (unmet === undefined) throw new InstallRefused(text);
    const providers = await unmetProviders(d.source, d.selector, unmet);
    const provider = providers.find((p) => !installing.has(p.packageName));
    const done = count === 0 ? 'nothing installed' : `${count} dependenc${count === 1 ? 'y' : 'ies'} installed, the rest not`;
    if (provider === undefined) {
      const why = providers.length === 0 ? 'no selected catalog provides it' : 'its providers are already being installed and do not meet it';
      throw new InstallRefused(`${done}: ${text}; ${why}`);
    }
    if (count >= MAX_DEPENDENCIES) throw new InstallRefused(`${done}: more than ${MAX_DEPENDENCIES} dependencies`);
    count++;
    installing.add(provider.packageName);
    d.onEvent?.({ type: 'dependency', extension: d.self, index: count, provider, requirement: unmet.description });
    await d.installOne(provider, installing);
  }
}

/**
 * What `installDependencies` would install first, writing nothing: each unmet requirement of
 * `d.bundle`, in the order the controller checks them, with the provider the selected catalogs
 * prefer (a provider's own dependencies are found when it is installed).
 * @throws InstallRefused as installDependencies refuses.
 */
export async function planDependencies(d: Omit<DependencyInstall, 'installOne' | 'onEvent'>): Promise<PlannedDependency[]> {
  const { check, unread, items } = await d.catalogs.dependencyCheck(d.source, d.self, d.inputs);
  if (items === undefined) throw new InstallRefused(`cannot install dependencies: cannot read ${unread.join(' or ')}`);
  const planned: PlannedDependency[] = [];
  const chosen = new Set(d.installing);
  let bundle = d.bundle;
  for (;;) {
    const text = check?.check(bundle);
    if (text === undefined) return planned;
    const unmet = check?.unmet.get(text);
    if (unmet === undefined) throw new InstallRefused(text);
    const providers = await unmetProviders(d.source, d.selector, unmet);
    // A package already planned that provides it meets this one too; otherwise its preferred provider is installed.
    if (!providers.some((p) => planned.some((x) => x.provider.packageName === p.packageName))) {
      const provider = providers.find((p) => !chosen.has(p.packageName));
      if (provider === undefined) {
        const why = providers.length === 0 ? 'no selected catalog provides it' : 'its providers are already being installed and do not meet it';
        throw new InstallRefused(`nothing installed: ${text}; ${why}`);
      }
      if (planned.length >= MAX_DEPENDENCIES) throw new InstallRefused(`nothing installed: more than ${MAX_DEPENDENCIES} dependencies`);
      planned.push({ requirement: unmet.description, provider });
      chosen.add(provider.packageName);
    }
    // The next requirement: this one counted as met (a new object, so the checker parses it afresh; indexes kept for its messages).
    const met = unmet.requirement.index;
    bundle = { ...bundle, properties: bundle.properties.map((p, i) => (i === met ? { type: 'olmv1.planned', value: null } : p)) };
  }
}
