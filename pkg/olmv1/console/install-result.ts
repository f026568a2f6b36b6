/**
 * The install service's outcome as the console answers it (pure): the objects as data (and as
 * YAML for the preview and its download), what was done with each, the resolved bundle, and the
 * installer RBAC's warnings, and for a preview with dependencies the dependencies Install installs first;
 * what the CSV's suggested-namespace template sets on a namespace Install creates (decision 0157).
 */
import { formatEscalationWarning, objectsToYaml } from '../../operator-controller/render/index.ts';
import { describeObject, type InstallResult } from '../install/index.ts';

/** The JSON of `/api/install`. */
export function installAnswer(r: InstallResult) {
  const log = [
    `resolved ${r.bundle.name} (${r.bundle.version}) from catalog ${r.bundle.catalog}; bundle image ${r.bundle.image}`,
    ...r.warnings.map((w) => `warning: ${w}`),
    ...r.escalations.map((e) => `warning: ${formatEscalationWarning(e)}`),
    ...r.written.map((w) => `${w.action} ${describeObject(w.object)}`),
  ];
  return {
    name: r.extension,
    bundle: r.bundle,
    objects: r.objects,
    written: r.written.map((w) => ({ action: w.action, object: describeObject(w.object) })),
    warnings: r.warnings,
    escalations: r.escalations,
    yaml: r.dryRun ? objectsToYaml(r.objects) : '',
    /** A preview with dependencies: what Install installs first, each as its own ClusterExtension. */
    dependencies: (r.plannedDependencies ?? []).map((d) => ({
      requirement: d.requirement,
      packageName: d.provider.packageName,
      version: d.provider.version,
      catalog: d.provider.catalog,
    })),
    /** The template's labels and annotations applied, and its entries that weaken Pod security (applied only when accepted); null when none. */
    namespaceTemplate: r.namespaceTemplate ?? null,
    log: `${log.join('\n')}\n`,
  };
}
