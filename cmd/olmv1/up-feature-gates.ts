/**
 * `olmv1 up --feature-gates`: upstream's gate grammar (Name=bool, comma-separated or repeated),
 * split between the two components. As upstream, each binary has its own gate set and refuses a
 * name it does not know, so a gate goes only to the component that knows it; AllAlpha and AllBeta
 * (Kubernetes' featuregate adds them to every set) go to both. The gate sets and their refusals
 * are the components' own (their option parsers), so `up` never disagrees with them.
 */
import { parseCatalogdOptions } from '../catalogd/options.ts';
import { parseOperatorControllerOptions } from '../operator-controller/options.ts';

/** The `Name=value` settings each component is started with, in the order given. */
export interface ComponentGates {
  catalogd: string[];
  operatorController: string[];
}

/** What `up` needs of a component's gate set. */
export interface GateSet {
  /** Gate names it knows (besides AllAlpha and AllBeta). */
  names: readonly string[];
  /** Throws the component's own message when it would refuse these settings. */
  check(settings: readonly string[]): void;
}

/** Gates every component knows (Kubernetes' featuregate). */
const SHARED = ['AllAlpha', 'AllBeta'] as const;

/** The components' gate sets, read from their option parsers. */
function componentGateSets(): { catalogd: GateSet; operatorController: GateSet } {
  // A kubeconfig path is the one thing the parsers require; nothing is read.
  const base = ['--kubeconfig', 'unused'];
  const gateArgs = (settings: readonly string[]): string[] => (settings.length === 0 ? [] : ['--feature-gates', settings.join(',')]);
  const catalogd = (settings: readonly string[]): Record<string, boolean> => {
    const o = parseCatalogdOptions([...base, ...gateArgs(settings)], {});
    return o === 'help' ? {} : (o.featureGateStatus ?? {});
  };
  const operatorController = (settings: readonly string[]): Record<string, boolean> => {
    const o = parseOperatorControllerOptions([...base, ...gateArgs(settings)], {});
    return o === 'help' ? {} : (o.featureGateStatus ?? {});
  };
  return {
    catalogd: { names: Object.keys(catalogd([])), check: (s) => void catalogd(s) },
    operatorController: { names: Object.keys(operatorController([])), check: (s) => void operatorController(s) },
  };
}

/**
 * Splits the occurrences of `--feature-gates` between the components. Throws Error naming every
 * known gate for an unknown name, upstream's text for an entry without `=`, and the component's
 * own message for a value it refuses (e.g. BoxcutterRuntime=true) or cannot parse.
 */
export function routeFeatureGates(
  occurrences: readonly string[],
  sets: { catalogd: GateSet; operatorController: GateSet } = componentGateSets(),
): ComponentGates {
  const out: ComponentGates = { catalogd: [], operatorController: [] };
  for (const occurrence of occurrences) {
    for (const raw of occurrence.split(',')) {
      const part = raw.trim();
      if (part === '') continue;
      const eq = part.indexOf('=');
      const name = (eq < 0 ? part : part.slice(0, eq)).trim();
      if (eq < 0) throw new Error(`--feature-gates: missing bool value for ${name}`);
      const setting = `${name}=${part.slice(eq + 1).trim()}`;
      const shared = (SHARED as readonly string[]).includes(name);
      const toCatalogd = shared || sets.catalogd.names.includes(name);
      const toController = shared || sets.operatorController.names.includes(name);
      if (!toCatalogd && !toController) throw new Error(`--feature-gates: unknown gate ${JSON.stringify(name)}; ${knownGates(sets)}`);
      if (toCatalogd) out.catalogd.push(setting);
      if (toController) out.operatorController.push(setting);
    }
  }
  // The components' own verdicts on the values (a bool Go parses, a value not refused).
  for (const [component, set, settings] of [
    ['catalogd', sets.catalogd, out.catalogd],
    ['operator-controller', sets.operatorController, out.operatorController],
  ] as const) {
    try {
      set.check(settings);
    } catch (err) {
      throw new Error(`${component}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }
  return out;
}

/** `known gates: catalogd A, B; operator-controller C, D; both AllAlpha, AllBeta`. */
function knownGates(sets: { catalogd: GateSet; operatorController: GateSet }): string {
  const list = (names: readonly string[]): string => [...names].sort().join(', ');
  return `known gates: catalogd ${list(sets.catalogd.names)}; operator-controller ${list(sets.operatorController.names)}; both ${SHARED.join(', ')}`;
}

/**
 * One `--feature-gates=NAME=VALUE` argument per setting, as upstream's manifests write them:
 * upstream's e2e hooks read a Deployment's gates one argument at a time (only the first of a
 * comma-separated list).
 */
export function featureGatesArgs(settings: readonly string[]): string[] {
  return settings.map((s) => `--feature-gates=${s}`);
}

/** Whether operator-controller runs with the BoxcutterRuntime under `gates` (its own parser decides: AllAlpha turns it on too). */
export function boxcutterRuntimeOn(gates: ComponentGates): boolean {
  return operatorControllerGate(gates, 'BoxcutterRuntime');
}

/** Whether operator-controller runs the tenant controller under `gates` (TenantExtensions; AllAlpha too). */
export function tenantExtensionsOn(gates: ComponentGates): boolean {
  return operatorControllerGate(gates, 'TenantExtensions');
}

function operatorControllerGate(gates: ComponentGates, gate: 'BoxcutterRuntime' | 'TenantExtensions'): boolean {
  const args = gates.operatorController.length === 0 ? [] : ['--feature-gates', gates.operatorController.join(',')];
  const o = parseOperatorControllerOptions(['--kubeconfig', 'unused', ...args], {});
  return o !== 'help' && o.featureGates[gate];
}
