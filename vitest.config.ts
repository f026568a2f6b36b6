import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { DeferredToolsSequencer, usesNode } from './test/envtest/sequencer.ts';
import { TimingReporter } from './test/envtest/timing-reporter.ts';

const INTEGRATION_DIRS = ['test/integration', 'test/e2e'];
/** Builds the image the `on-node` files deploy: first in their process, so they find it built. */
const PROJECT_IMAGE_TEST = 'test/integration/project-image.test.ts';

/** The test files that run the product on the local node (test/envtest/sequencer.ts usesNode), and the image build. */
async function onNodeFiles(root: string): Promise<string[]> {
  const read = (path: string): Promise<string> => readFile(path, 'utf8').catch(() => '');
  const files: string[] = [PROJECT_IMAGE_TEST];
  for (const dir of INTEGRATION_DIRS) {
    for (const name of (await readdir(join(root, dir))).filter((n) => n.endsWith('.test.ts')).sort()) {
      if (await usesNode(join(root, dir, name), join(root, 'test'), read)) files.push(`${dir}/${name}`);
    }
  }
  return files;
}

const onNode = await onNodeFiles(import.meta.dirname);

// Four suites: `unit` (module tests next to their code, no processes), `integration`
// (cross-module suites in test/ against a real kube-apiserver, etcd and OCI registry that
// test/envtest/global-setup.ts starts once per run), `on-node` (the suites of test/ that run the
// product on the local node, which is machine-wide, and the image build they deploy) and
// `integration-oldest` (a few of those suites again on the oldest supported kube-apiserver,
// test/envtest/global-setup-oldest.ts).
//
// `npm test` runs them in two lanes, two vitest processes side by side (test/envtest/lanes.ts):
// `on-node` in one, mostly waiting on the node's Pods; `integration` and `unit`, then
// `integration-oldest`, in the other. vitest runs every selected project's global setup before
// any test, so `integration-oldest` is a vitest run of its own after the others':
// the first run's setup builds only what the shared control plane needs and the other test tools
// in the background (the oldest kube-apiserver last), while the `integration` files that need none
// of them run (the sequencer puts those that do last, test/envtest/sequencer.ts). The groups
// run in `sequence.groupOrder`: `integration` (one file at a time, mostly waiting on I/O, beside
// the background Go builds), then `unit` (CPU-bound, after the builds), then `integration-oldest`
// when a single run selects it too. The timing reporter prints the setup's phases and the
// slowest files at the end of every run.
export default defineConfig({
  test: {
    reporters: ['default', new TimingReporter()],
    sequence: { sequencer: DeferredToolsSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'pkg/**/*.test.ts',
            'cmd/**/*.test.ts',
            'bench/**/*.test.ts',
            'test/envtest/**/*.test.ts',
            'test/unit/**/*.test.ts',
            'scripts/**/*.test.ts',
          ],
          testTimeout: 20_000,
          sequence: { groupOrder: 2 },
        },
      },
      {
        test: {
          name: 'integration',
          include: INTEGRATION_DIRS.map((dir) => `${dir}/**/*.test.ts`),
          exclude: onNode,
          globalSetup: ['test/envtest/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 600_000,
          // Suites share one control plane; run files one at a time so timing-sensitive
          // tests (leader election, apiserver restarts) are not starved on a 2-core machine.
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        // One file at a time: the node is the machine's (its lock), and each file deploys its own product.
        test: {
          name: 'on-node',
          include: onNode,
          globalSetup: ['test/envtest/global-setup-on-node.ts'],
          testTimeout: 120_000,
          hookTimeout: 600_000,
          fileParallelism: false,
          sequence: { groupOrder: 4 },
        },
      },
      {
        // The supported-range promise (decision 0103): the catalog name label, config/ applied
        // and run with its RBAC, and an install flow, on the oldest supported kube-apiserver
        // (pkg/olmv1/localstack OLDEST_KUBERNETES_VERSION). In a vitest run of its own after the
        // others' (`npm test`), so its control plane never competes with theirs for the cores and
        // its kube-apiserver is built by then; last too when one run selects every project.
        test: {
          name: 'integration-oldest',
          include: [
            'test/integration/catalog-name-label.test.ts',
            'test/integration/config-manifests.test.ts',
            'test/integration/crds-clustercatalog.test.ts',
            'test/integration/crds-clusterextension.test.ts',
            'test/integration/prune-unknown-fields.test.ts',
            'test/integration/kube-client.test.ts',
            'test/integration/kube-scoped-client.test.ts',
            'test/integration/kube-watch-budget.test.ts',
            'test/integration/controller-runtime.test.ts',
            'test/integration/preauthorize.test.ts',
            'test/integration/render-apply.test.ts',
            'test/integration/upstream-docs-examples.test.ts',
          ],
          globalSetup: ['test/envtest/global-setup-oldest.ts'],
          testTimeout: 120_000,
          hookTimeout: 600_000,
          fileParallelism: false,
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
