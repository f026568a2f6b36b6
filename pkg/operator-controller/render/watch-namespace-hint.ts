/**
 * The hint that follows upstream's `required field "watchNamespace" is missing` refusal in
 * `olmv1`'s output and in the WatchNamespaceRequired Event (the condition keeps upstream's text
 * alone): which namespace would do and where to put it (decision 0094).
 */
import type { RegistryV1Bundle } from '../bundle/index.ts';
import { supportedInstallModes } from './csv-access.ts';
import type { RenderFailure } from './types.ts';

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
