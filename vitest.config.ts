import { defineConfig } from 'vitest/config';

// Two suites: `unit` (module tests next to their code, no processes) and `integration`
// (cross-module suites in test/ against a real kube-apiserver, etcd and OCI registry that
// test/envtest/global-setup.ts starts once per run).
export default defineConfig({
  test: {
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
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          globalSetup: ['test/envtest/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 600_000,
          // Suites share one control plane; run files one at a time so timing-sensitive
          // tests (leader election, apiserver restarts) are not starved on a 2-core machine.
          fileParallelism: false,
        },
      },
    ],
  },
});
