/**
 * Target namespaces of an install (the namespaces the operator watches): defaults and
 * validation against the bundle's supported install modes, with upstream's messages.
 */
import { goList, goSorted } from '../../gocompat/gotext/index.ts';

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
