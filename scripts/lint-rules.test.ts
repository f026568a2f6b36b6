/**
 * The architecture rules of eslint.config.js (docs/development.md, "Module rules") fire on
 * violations at realistic paths and stay quiet on the compliant variants. The snippets are
 * linted with the project's own config file, as `npm run lint` lints the tree.
 */
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT, overrideConfigFile: join(ROOT, 'eslint.config.js') });
});

/** Rule ids (with messages, for failures) reported for `code` as the file at `path`. */
async function lint(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  if (result === undefined) throw new Error(`no lint result for ${path}`);
  return result.messages.map((m) => `${m.ruleId ?? 'fatal'}: ${m.message}`);
}

/** Each case: a file path, code that breaks the rule, and code that keeps it. */
interface Case {
  name: string;
  path: string;
  violation: string;
  compliant: string;
}

function runCases(ruleId: string, cases: Case[]): void {
  describe(ruleId, () => {
    for (const c of cases) {
      it(`fires: ${c.name}`, async () => {
        const messages = await lint(c.path, c.violation);
        expect(
          messages.some((m) => m.startsWith(`${ruleId}: `)),
          messages.join('\n'),
        ).toBe(true);
      });
      it(`passes: ${c.name}`, async () => {
        expect(await lint(c.path, c.compliant)).toEqual([]);
      });
    }
  });
}

// Rule 1: pure cores import no I/O and no infrastructure module.
runCases('olmv1/pure-core-imports', [
  {
    name: 'node:fs/promises in pkg/operator-controller/resolve',
    path: 'pkg/operator-controller/resolve/catalog-source.ts',
    violation: "import { readFile } from 'node:fs/promises';\nexport const read = readFile;\n",
    compliant: "import { parseRange } from '../../shared/semver/index.ts';\nexport const parse = parseRange;\n",
  },
  {
    name: 'bare fs in the FBC model',
    path: 'pkg/shared/fbc/model-extra.ts',
    violation: "import { readFileSync } from 'fs';\nexport const read = readFileSync;\n",
    compliant: "import { createHash } from 'node:crypto';\nexport const hash = createHash;\n",
  },
  {
    name: 'node:https re-exported from pkg/operator-controller/render',
    path: 'pkg/operator-controller/render/fetch-schema.ts',
    violation: "export { request } from 'node:https';\n",
    compliant: "export { renderBundle } from './render.ts';\n",
  },
  {
    name: 'dynamic import of node:child_process in pkg/operator-controller/bundle',
    path: 'pkg/operator-controller/bundle/unzip.ts',
    violation: "export async function run(): Promise<unknown> {\n  return import('node:child_process');\n}\n",
    compliant: "export async function run(): Promise<unknown> {\n  return import('./types.ts');\n}\n",
  },
  {
    name: 'undici in pkg/gocompat/gotext',
    path: 'pkg/gocompat/gotext/fetch.ts',
    violation: "import { request } from 'undici';\nexport const r = request;\n",
    compliant: "import { quote } from './quote.ts';\nexport const q = quote;\n",
  },
  {
    name: 'pkg/shared/kube from pkg/shared/semver',
    path: 'pkg/shared/semver/cluster-version.ts',
    violation: "import type { KubeClient } from '../kube/index.ts';\nexport type C = KubeClient;\n",
    compliant: "import type { Version } from './version.ts';\nexport type V = Version;\n",
  },
  {
    name: 'pkg/shared/image from pkg/shared/k8sname',
    path: 'pkg/shared/k8sname/image-name.ts',
    violation: "import { parseReference } from '../image/index.ts';\nexport const p = parseReference;\n",
    compliant: 'export const maxLength = 63;\n',
  },
  {
    name: 'pkg/catalogd from pkg/operator-controller/resolve',
    path: 'pkg/operator-controller/resolve/served-catalogs.ts',
    violation: "import { LocalDirStore } from '../../catalogd/storage/index.ts';\nexport const S = LocalDirStore;\n",
    compliant: "import { isZeroMeta } from '../../shared/fbc/index.ts';\nexport const z = isZeroMeta;\n",
  },
]);

describe('olmv1/pure-core-imports: the edges and tests of pure cores may do I/O', () => {
  const io = "import { readFile } from 'node:fs/promises';\nexport const read = readFile;\n";
  for (const path of [
    'pkg/shared/fbc/walk.ts',
    'pkg/operator-controller/bundle/read-bundle-dir.ts',
    'pkg/operator-controller/resolve/resolver.test.ts',
    'pkg/shared/image/cache.ts',
  ]) {
    it(path, async () => {
      expect(await lint(path, io)).toEqual([]);
    });
  }
});

// Rule 1, the way around imports: Node's I/O modules through process.getBuiltinModule.
runCases('no-restricted-properties', [
  {
    name: 'process.getBuiltinModule in a pure core',
    path: 'pkg/operator-controller/render/load-schema.ts',
    violation: "export const fs = process.getBuiltinModule('node:fs');\n",
    compliant: 'export const limit = 10;\n',
  },
]);

// Rule 2: only pkg/shared/kube imports @kubernetes/client-node.
runCases('olmv1/kube-client-node', [
  {
    name: 'in a catalogd controller file',
    path: 'pkg/catalogd/clustercatalog/watch-catalogs.ts',
    violation: "import { KubeConfig } from '@kubernetes/client-node';\nexport const K = KubeConfig;\n",
    compliant: "import { connect } from '../../shared/kube/index.ts';\nexport const c = connect;\n",
  },
  {
    name: 'type-only, in the CLI',
    path: 'cmd/olmv1/cluster.ts',
    violation: "import type { V1Pod } from '@kubernetes/client-node';\nexport type P = V1Pod;\n",
    compliant: "import type { KubeClient } from '../../pkg/shared/kube/index.ts';\nexport type C = KubeClient;\n",
  },
  {
    name: 'dynamic import, in a test helper',
    path: 'test/support/kube-helper.ts',
    violation: "export async function load(): Promise<unknown> {\n  return import('@kubernetes/client-node');\n}\n",
    compliant: "export async function load(): Promise<unknown> {\n  return import('../../pkg/shared/kube/index.ts');\n}\n",
  },
]);

describe('olmv1/kube-client-node: pkg/shared/kube itself may', () => {
  it('pkg/shared/kube/watch-extra.ts', async () => {
    const code = "import { KubeConfig } from '@kubernetes/client-node';\nexport const K = KubeConfig;\n";
    expect(await lint('pkg/shared/kube/watch-extra.ts', code)).toEqual([]);
  });
});

// Rule 3: no process.env / process.argv outside cmd/, test/, bench/, scripts/.
runCases('no-restricted-properties', [
  {
    name: 'process.env in pkg/shared/image',
    path: 'pkg/shared/image/proxy.ts',
    violation: 'export const proxy = process.env.HTTPS_PROXY;\n',
    compliant: 'export function proxyFrom(env: Record<string, string | undefined>): string | undefined {\n  return env.HTTPS_PROXY;\n}\n',
  },
  {
    name: 'process.argv in pkg/shared/controller',
    path: 'pkg/shared/controller/flags.ts',
    violation: 'export const args = process.argv.slice(2);\n',
    compliant: 'export const pid = process.pid;\n',
  },
  {
    name: 'destructured from process in pkg/catalogd',
    path: 'pkg/catalogd/server/config.ts',
    violation: 'const { env } = process;\nexport const port = env.PORT;\n',
    compliant: 'const { pid } = process;\nexport const id = pid;\n',
  },
  {
    name: 'process.env in the ingest child, whose argv is allowed',
    path: 'pkg/catalogd/storage/ingest-child.ts',
    violation: 'export const idle = process.env.IDLE_MS;\n',
    compliant: 'export const idle = process.argv[2];\n',
  },
]);

runCases('no-restricted-syntax', [
  {
    name: "env imported from 'node:process' in pkg/shared/kube",
    path: 'pkg/shared/kube/in-cluster.ts',
    violation: "import { env } from 'node:process';\nexport const host = env.KUBERNETES_SERVICE_HOST;\n",
    compliant: "import { pid } from 'node:process';\nexport const id = pid;\n",
  },
  {
    name: 'export * in a module index',
    path: 'pkg/shared/kube/index.ts',
    violation: "export * from '../unstructured/index.ts';\n",
    compliant: "export { objectKey, type KubeObject } from '../unstructured/index.ts';\n",
  },
]);

describe('no-restricted-properties: composition roots and tooling may read env and argv', () => {
  const code = 'export const env = process.env.KUBECONFIG;\nexport const argv = process.argv.slice(2);\n';
  for (const path of ['cmd/catalogd/main.ts', 'test/support/registry.ts', 'bench/lib/settings.ts', 'scripts/tool.ts']) {
    it(path, async () => {
      expect(await lint(path, code)).toEqual([]);
    });
  }
});

// Rule 4: another module is imported through its index.ts, except the allow-list.
runCases('olmv1/module-index-imports', [
  {
    name: "pkg/shared/image's puller from a catalogd controller",
    path: 'pkg/catalogd/clustercatalog/pull-step.ts',
    violation: "import { createPuller } from '../../shared/image/puller.ts';\nexport const p = createPuller;\n",
    compliant: "import { createImageClient } from '../../shared/image/index.ts';\nexport const p = createImageClient;\n",
  },
  {
    name: 'a sibling submodule of pkg/catalogd',
    path: 'pkg/catalogd/server/store-view.ts',
    violation: "import { LocalDirStore } from '../storage/local-dir-store.ts';\nexport const S = LocalDirStore;\n",
    compliant: "import { LocalDirStore } from '../storage/index.ts';\nexport const S = LocalDirStore;\n",
  },
  {
    name: 'a pkg file from the CLI',
    path: 'cmd/olmv1/render-extra.ts',
    violation: "export { renderBundle } from '../../pkg/operator-controller/render/render.ts';\n",
    compliant: "export { renderBundle } from '../../pkg/operator-controller/render/index.ts';\n",
  },
  {
    name: 'a dynamic import from a test',
    path: 'test/integration/extra.test.ts',
    violation: "export async function load(): Promise<unknown> {\n  return import('../../pkg/shared/fbc/load.ts');\n}\n",
    compliant: "export async function load(): Promise<unknown> {\n  return import('../../pkg/shared/fbc/index.ts');\n}\n",
  },
  {
    name: 'pkg/shared/fbc/types.ts is allowed for types only',
    path: 'pkg/operator-controller/resolve/catalog-view.ts',
    violation: "import { type Bundle, isZeroMeta } from '../../shared/fbc/types.ts';\nexport type B = Bundle;\nexport const z = isZeroMeta;\n",
    compliant: "import type { Bundle } from '../../shared/fbc/types.ts';\nexport type B = Bundle;\n",
  },
  {
    name: 'the ingest exception names its file: another storage file may not',
    path: 'pkg/catalogd/storage/ingest-extra.ts',
    violation: "import { readLayerEntries } from '../../shared/image/layer-entries.ts';\nexport const r = readLayerEntries;\n",
    compliant: "import { readLayerEntries } from './ingest-layers.ts';\nexport const r = readLayerEntries;\n",
  },
]);

describe('olmv1/module-index-imports: allowed', () => {
  it("the ingest process loads pkg/shared/image's layer reader alone (decisions 0086, 0087)", async () => {
    const code = "import { readLayerEntries } from '../../shared/image/layer-entries.ts';\nexport const r = readLayerEntries;\n";
    expect(await lint('pkg/catalogd/storage/ingest-layers.ts', code)).toEqual([]);
  });
  it("a module's own files, through any path", async () => {
    const code = "import { walkMetas } from './walk.ts';\nexport const w = walkMetas;\n";
    expect(await lint('pkg/shared/fbc/load-extra.ts', code)).toEqual([]);
  });
  it('files outside pkg/ (cmd/, test/) are not modules', async () => {
    const code = "import { parseCatalogdOptions } from '../../cmd/catalogd/options.ts';\nexport const p = parseCatalogdOptions;\n";
    expect(await lint('test/support/catalogd-extra.ts', code)).toEqual([]);
  });
});

// Rule 5: the tree is grouped by owner binary (docs/development.md, "The tree").
runCases('olmv1/owner-boundaries', [
  {
    name: 'operator-controller code from catalogd code',
    path: 'pkg/catalogd/clustercatalog/resolve-extra.ts',
    violation: "import { resolve } from '../../operator-controller/resolve/index.ts';\nexport const r = resolve;\n",
    compliant: "import { loadFS } from '../../shared/fbc/index.ts';\nexport const l = loadFS;\n",
  },
  {
    name: 'catalogd code from operator-controller code',
    path: 'pkg/operator-controller/clusterextension/catalog-extra.ts',
    violation: "import { LocalDirStore } from '../../catalogd/storage/index.ts';\nexport const S = LocalDirStore;\n",
    compliant: "import { TerminalError } from '../../shared/errors/index.ts';\nexport const T = TerminalError;\n",
  },
  {
    name: "catalogd's command from operator-controller's",
    path: 'cmd/operator-controller/extra.ts',
    violation: "export { CATALOGD_NODE_FLAGS } from '../catalogd/node-flags.ts';\n",
    compliant: "export { CATALOGD_NODE_FLAGS } from '../shared/node-flags.ts';\n",
  },
  {
    name: "operator-controller's modules from catalogd's command",
    path: 'cmd/catalogd/extra.ts',
    violation: "export async function load(): Promise<unknown> {\n  return import('../../pkg/operator-controller/release/index.ts');\n}\n",
    compliant: "export async function load(): Promise<unknown> {\n  return import('../../pkg/catalogd/storage/index.ts');\n}\n",
  },
  {
    name: "catalogd's modules from cmd/shared",
    path: 'cmd/shared/credentials.ts',
    violation: "export { CatalogReconciler } from '../../pkg/catalogd/clustercatalog/index.ts';\n",
    compliant: "export { PullSecretCredentials } from '../../pkg/shared/pullsecret/index.ts';\n",
  },
  {
    name: 'operator-controller code from a shared module',
    path: 'pkg/shared/controller/extra.ts',
    violation: "import type { Release } from '../../operator-controller/release/index.ts';\nexport type R = Release;\n",
    compliant: "import type { KubeObject } from '../kube/index.ts';\nexport type K = KubeObject;\n",
  },
  {
    name: 'the local stack from a shared module (tests may: next case)',
    path: 'pkg/shared/image/extra.ts',
    violation: "export { createSelfSignedCertificate } from '../../olmv1/localstack/index.ts';\n",
    compliant: "export { parseReference } from './reference.ts';\n",
  },
  {
    name: "the Helm runtime from the applier's core",
    path: 'pkg/operator-controller/applier/authorize-extra.ts',
    violation: "export { applyRelease } from './helm/apply.ts';\n",
    compliant: "export { objectsToDelete } from './revision.ts';\n",
  },
  {
    name: 'the BoxcutterRuntime from the Helm runtime',
    path: 'pkg/operator-controller/applier/helm/extra.ts',
    violation: "export { migrateToReleases } from '../boxcutter/unmigrate.ts';\n",
    compliant: "export { uninstallWith } from '../uninstall.ts';\n",
  },
  {
    name: 'the Helm runtime from the BoxcutterRuntime',
    path: 'pkg/operator-controller/applier/boxcutter/extra.ts',
    violation: "export { sameRecordContent } from '../helm/apply.ts';\n",
    compliant: "export { desiredRelease } from '../revision.ts';\n",
  },
  {
    name: 'the other binary from a test',
    path: 'pkg/catalogd/server/extra.test.ts',
    violation: "import { render } from '../../operator-controller/render/index.ts';\nexport const r = render;\n",
    compliant: "import { createSelfSignedCertificate } from '../../olmv1/localstack/index.ts';\nexport const c = createSelfSignedCertificate;\n",
  },
]);

// Rule 6: a pipeline's steps are peers: no step imports a step.
runCases('olmv1/step-peers', [
  {
    name: 'a step importing another step',
    path: 'pkg/operator-controller/clusterextension/steps-preflight.ts',
    violation: "import { desiredRelease } from './steps-apply.ts';\nexport const d = desiredRelease;\n",
    compliant: "import { desiredRelease } from './plan.ts';\nexport const d = desiredRelease;\n",
  },
  {
    name: 'a type from steps.ts, in the finalizers step',
    path: 'pkg/operator-controller/clusterextension/uninstall.ts',
    violation: "import type { InstalledPorts } from './steps.ts';\nexport type P = InstalledPorts;\n",
    compliant: "import type { ExtensionState } from './pipeline-state.ts';\nexport type S = ExtensionState;\n",
  },
  {
    name: 'a helper of the module importing a step',
    path: 'pkg/operator-controller/clusterextension/resolve-ahead.ts',
    violation: "import { resolveInput } from './steps.ts';\nexport const r = resolveInput;\n",
    compliant: "import { resolveInput } from './resolution.ts';\nexport const r = resolveInput;\n",
  },
]);

describe('olmv1/step-peers: index.ts and the tests import steps', () => {
  const code = "export { applyStep } from './steps-apply.ts';\n";
  for (const path of ['pkg/operator-controller/clusterextension/index.ts', 'pkg/operator-controller/clusterextension/steps-apply.test.ts']) {
    it(path, async () => {
      expect(await lint(path, code)).toEqual([]);
    });
  }
});

// Rule 7: tests fake the Kubernetes client with fakeCluster or a typed object fitting a narrowed port.
runCases('olmv1/typed-kube-fakes', [
  {
    name: 'a partial client cast to KubeClient in a unit test',
    path: 'pkg/operator-controller/applier/apply-extra.test.ts',
    violation:
      "import type { KubeClient } from '../../shared/kube/index.ts';\nexport const client = { get: () => Promise.resolve({}) } as unknown as KubeClient;\n",
    compliant:
      "import type { KubeClient } from '../../shared/kube/index.ts';\nexport const client: Pick<KubeClient, 'get'> = { get: <T>() => Promise.resolve({} as T) };\n",
  },
  {
    name: 'a Partial<KubeClient> cast in test/support',
    path: 'test/support/extra-fake.ts',
    violation:
      "import type { KubeClient } from '../../pkg/shared/kube/index.ts';\nconst partial: Partial<KubeClient> = {};\nexport const client = partial as KubeClient;\n",
    compliant: "import { fakeCluster } from './fake-cluster.ts';\nexport const client = fakeCluster().client;\n",
  },
]);
