/**
 * The `olmv1_extension_dependency_unmet` gauge (decision 0104): set by the resolve step, 1 while
 * an extension waits on an unmet dependency or has lost one (a dependency deleted), or while its
 * upgrade is held because it would break a dependent; 0 otherwise. Cleared when the extension goes.
 */
import type { Registry } from 'prom-client';
import { NamedGauge } from '../../shared/kube/index.ts';

/** `olmv1_extension_dependency_unmet{name}`. */
export class DependencyGauge extends NamedGauge {
  constructor(registry: Registry) {
    super(
      registry,
      'olmv1_extension_dependency_unmet',
      'Whether the ClusterExtension is blocked by a dependency: 1 when its bundle has an unmet dependency or its upgrade is held for a dependent, 0 when not.',
    );
  }

  /** Sets the extension's sample. */
  set(extension: string, unmet: boolean): void {
    this.sample(extension, unmet ? 1 : 0);
  }
}
