/**
 * Vitest global setup of the `integration-oldest` project: the environment of global-setup.ts
 * with kube-apiserver and kubectl at the oldest supported Kubernetes release
 * (OLDEST_KUBERNETES_VERSION, decision 0103), for the tests that hold the supported-range promise.
 * `npm test` runs this project in a vitest run of its own after the others (package.json), so it
 * starts nothing while they run and finds its kube-apiserver built by their background chain.
 */
import type { TestProject } from 'vitest/node';
import { setupWith } from './global-setup.ts';

/** Starts the environment on the oldest supported kube-apiserver and returns its teardown. */
export function setup(project: TestProject): Promise<() => Promise<void>> {
  return setupWith(project, 'oldest');
}
