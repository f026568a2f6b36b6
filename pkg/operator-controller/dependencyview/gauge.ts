/**
 * The `olmv1_extension_dependency_unmet` gauge (decision 0104): set by the resolve step, 1 while
 * an extension waits on an unmet dependency or has lost one (a dependency deleted), or while its
 * upgrade is held because it would break a dependent; 0 otherwise. Cleared when the extension goes.
 */
import type { Registry } from 'prom-client';
import { gaugeOn } from '../../shared/kube/index.ts';

/** `olmv1_extension_dependency_unmet{name}`. */
export class DependencyGauge {
  readonly #gauge;

  constructor(registry: Registry) {
    this.#gauge = gaugeOn(
      registry,
      'olmv1_extension_dependency_unmet',
      'Whether the ClusterExtension is blocked by a dependency: 1 when its bundle has an unmet dependency or its upgrade is held for a dependent, 0 when not.',
      ['name'],
    );
  }

  /** Sets the extension's sample. */
  set(extension: string, unmet: boolean): void {
    this.#gauge.set({ name: extension }, unmet ? 1 : 0);
  }

  /** The extension is gone. */
  forget(extension: string): void {
    this.#gauge.remove({ name: extension });
  }

  /** Leadership ended: another replica reports from now on. */
  reset(): void {
    this.#gauge.reset();
  }
}
