/**
 * Vitest global setup of the `on-node` project (the files that run the product on the local
 * node, vitest.config.ts): the environment of global-setup.ts, and of its background builds
 * only the node's binaries, at normal priority (every file here waits for them first). `npm test`
 * runs this project in a vitest process of its own beside the `integration` one
 * (test/envtest/lanes.ts), whose background chain builds helm, cert-manager and cosign (and finds
 * the node's binaries built, or waits for this build through their lock); a file waits for a tool
 * through its getter, which builds it itself when no one has (deferred-tools.ts).
 */
import type { TestProject } from 'vitest/node';
import { setupWith } from './global-setup.ts';

/** Starts the environment and returns its teardown. */
export function setup(project: TestProject): Promise<() => Promise<void>> {
  return setupWith(project, 'current', { background: 'node binaries' });
}
