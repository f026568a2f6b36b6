/**
 * Target namespaces of an install (the namespaces the operator watches): defaults and
 * validation against the bundle's supported install modes, with upstream's messages; and the
 * hint that follows upstream's `required field "watchNamespace" is missing` in `olmv1`'s output
 * and the WatchNamespaceRequired Event (the condition keeps upstream's text alone): which
 * namespace would do and where to put it (decision 0094).
 */
import { goList, goSorted } from '../../gocompat/gotext/index.ts';
import type { RegistryV1Bundle } from '../bundle/index.ts';
import { supportedInstallModes } from './csv-access.ts';
import type { RenderFailure } from './types.ts';

/** `[""]` (all namespaces) when AllNamespaces is supported, otherwise none. */
export function defaultTargetNamespaces(modes: ReadonlySet<string>): string[] {
  return modes.has('AllNamespaces') ? [''] : [];
}

/**
 * Validates `targets` for an install into `installNamespace`. Returns undefined when valid,
 * otherwise the full upstream message
 * `invalid option(s): invalid target namespaces [<targets>]: <reason>`.
 */
export function validateTargetNamespaces(modes: ReadonlySet<string>, installNamespace: string, targets: readonly string[]): string | undefined {
  const reason = targetNamespacesProblem(modes, installNamespace, targets);
  if (reason === undefined) return undefined;
  return `invalid option(s): invalid target namespaces ${goList(targets)}: ${reason}`;
}

function targetNamespacesProblem(modes: ReadonlySet<string>, installNamespace: string, targets: readonly string[]): string | undefined {
  const supported = goList(goSorted(modes));
  const set = new Set(targets);
  if (set.size === 0) {
    return modes.has('MultiNamespace') ? 'at least one target namespace must be specified' : 'exactly one target namespace must be specified';
  }
  if (set.size === 1 && set.has('')) {
    return modes.has('AllNamespaces') ? undefined : `supported install modes ${supported} do not support targeting all namespaces`;
  }
  if (set.size === 1) {
    if (targets[0] === installNamespace) {
      return modes.has('OwnNamespace') ? undefined : `supported install modes ${supported} do not support targeting own namespace`;
    }
    if (modes.has('SingleNamespace')) return undefined;
  } else {
    if (!modes.has('OwnNamespace') && set.has(installNamespace)) {
      return `supported install modes ${supported} do not support targeting own namespace`;
    }
    if (modes.has('MultiNamespace') && !set.has('')) return undefined;
  }
  return `supported install modes ${supported} do not support target namespaces ${goList(targets)}`;
}

/** Who reads the hint: the `olmv1` command line or a ClusterExtension's WatchNamespaceRequired Event. */
type WatchNamespaceAudience = 'cli' | 'cluster-extension';

const MISSING_WATCH_NAMESPACE = 'required field "watchNamespace" is missing';

/**
 * How to pass a watch namespace, when `failure` is the missing-watchNamespace refusal of a
 * bundle without AllNamespaces support; undefined for every other failure. The text is a
 * parenthesised sentence, to follow upstream's message.
 */
export function watchNamespaceHint(
  failure: RenderFailure,
  bundle: RegistryV1Bundle,
  installNamespace: string,
  audience: WatchNamespaceAudience,
): string | undefined {
  if (!failure.terminal || !failure.message.includes(MISSING_WATCH_NAMESPACE)) return undefined;
  const modes = supportedInstallModes(bundle.csv);
  const own = modes.has('OwnNamespace');
  const single = modes.has('SingleNamespace');
  if (modes.has('AllNamespaces') || (!own && !single)) return undefined;
  const set = (value: string) => (audience === 'cli' ? `--watch-namespace ${value}` : `spec.config.inline.watchNamespace: ${value}`);
  const verb = audience === 'cli' ? 'pass' : 'set';
  const ns = installNamespace === '' ? 'NS' : installNamespace;
  if (own && !single) {
    return `(the bundle supports only the OwnNamespace install mode: ${verb} ${set(ns)}, the install namespace)`;
  }
  if (single && !own) {
    return `(the bundle supports only the SingleNamespace install mode: ${verb} ${set('NS')}, NS being the namespace its operator watches, other than ${ns})`;
  }
  return `(the bundle supports only the OwnNamespace and SingleNamespace install modes: ${verb} ${set(ns)} to watch the install namespace, or ${set('NS')} to watch another one)`;
}
