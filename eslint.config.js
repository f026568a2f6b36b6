// ESLint: typescript-eslint's recommended rules (syntax only, no type information, so the whole
// tree lints in seconds) and the architecture of docs/development.md ("Module rules") as rules.
// scripts/lint-rules.test.ts shows that each architecture rule fires on a violation.
import { registerHooks } from 'node:module';
import js from '@eslint/js';
import { architecturePlugin } from './scripts/eslint-architecture.js';

// typescript-eslint parses with the TypeScript compiler's JavaScript API, which TypeScript 7
// (the native `tsc` this project type-checks with) no longer ships. Its parser gets TypeScript
// 6 instead, installed under the alias `typescript6`: every `typescript` that a package in
// node_modules asks for resolves there. Only this process is affected; `tsc` stays 7.
const hooked = Symbol.for('olmv1.eslint.typescript6');
if (!globalThis[hooked]) {
  globalThis[hooked] = true;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      if (/^typescript(\/|$)/.test(specifier) && context.parentURL?.includes('/node_modules/')) {
        return nextResolve(specifier.replace(/^typescript/, 'typescript6'), context);
      }
      return nextResolve(specifier, context);
    },
  });
}
const { default: tseslint } = await import('typescript-eslint');

/** Pure cores: data in, data out (docs/development.md). Their tests may read fixtures. */
const PURE_CORES = [
  'pkg/operator-controller/resolve/**',
  'pkg/operator-controller/render/**',
  'pkg/operator-controller/bundle/**',
  'pkg/shared/semver/**',
  'pkg/gocompat/gotext/**',
  'pkg/shared/k8sname/**',
  'pkg/shared/fbc/**',
  'pkg/gocompat/goyaml/**',
  'pkg/operator-controller/gating/**',
  'pkg/shared/unstructured/**',
  'pkg/operator-controller/crdupgrade/**',
  'pkg/operator-controller/dependencies/**',
  'pkg/shared/tlsprofile/**',
  'pkg/shared/jsonbounds/**',
];
/** The I/O edges inside pure-core directories: they read the files and pass the data in. */
const PURE_CORE_EDGES = ['pkg/shared/fbc/walk.ts', 'pkg/operator-controller/bundle/read-bundle-dir.ts'];
const TESTS = ['**/*.test.ts'];

/** Imports that do I/O (Node built-ins with or without `node:`, and network clients). */
const IO_IMPORTS = [
  'node:fs',
  'node:net',
  'node:http',
  'node:https',
  'node:http2',
  'node:child_process',
  'node:dgram',
  'node:tls',
  'node:dns',
  'node:cluster',
  'node:worker_threads',
  'node:readline',
  'node:inspector',
  'undici',
  '@kubernetes/client-node',
];
/** Modules that talk to the outside world; pure cores import none of them. */
const INFRASTRUCTURE_MODULES = [
  'pkg/shared/kube',
  'pkg/shared/image',
  'pkg/catalogd',
  'pkg/operator-controller/catalogclient',
  'pkg/shared/nodehttp',
  'pkg/shared/controller',
  'pkg/operator-controller/applier',
];

/** `process.env` and `process.argv` are read only by the composition roots (cmd/). */
const NO_PROCESS_ENV_ARGV = [
  { object: 'process', property: 'env', message: 'Configuration is read in cmd/ and passed in.' },
  { object: 'process', property: 'argv', message: 'Arguments are read in cmd/ and passed in.' },
];
const NO_PROCESS_IMPORT_ENV_ARGV = {
  selector: 'ImportDeclaration[source.value=/^(node:)?process$/] > ImportSpecifier[imported.name=/^(env|argv)$/]',
  message: 'Configuration and arguments are read in cmd/ and passed in.',
};
/** Rule 4: a module's index.ts names its public surface; `export *` would hide it. */
const NO_EXPORT_ALL = {
  selector: 'ExportAllDeclaration',
  message: 'Name the exports (`export { a, type B } from ...`): an index lists its public surface.',
};

/**
 * Imports of another module's files other than its index.ts that are allowed, and why.
 * `from` is the importing file or a directory prefix ending in '/'; '' is every file.
 */
const MODULE_INDEX_EXCEPTIONS = [
  {
    from: 'pkg/catalogd/storage/ingest-layers.ts',
    to: 'pkg/shared/image/layer-entries.ts',
    reason:
      "The ingest process loads the layer reader alone: pkg/shared/image's index loads the registry client and its HTTP stack, memory the ingest process does not need (decisions 0086, 0087).",
  },
  {
    from: 'pkg/catalogd/storage/ingest-layers.ts',
    to: 'pkg/shared/image/path-filter.ts',
    reason: "As above: the ingest process does not load pkg/shared/image's index (decisions 0086, 0087).",
  },
  {
    from: 'pkg/catalogd/storage/ingest-child.ts',
    to: 'pkg/shared/image/decompress.ts',
    reason: "As above: the ingest process does not load pkg/shared/image's index (decisions 0086, 0087).",
  },
  ...['ingest-layers.ts', 'ingest-child.ts', 'ingest.ts', 'catalog-layers.ts'].map((file) => ({
    from: `pkg/catalogd/storage/${file}`,
    to: 'pkg/shared/image/limits.ts',
    reason: "The image caps, enforced in the ingest process (decision 0052), which does not load pkg/shared/image's index (decisions 0086, 0087).",
  })),
  {
    from: 'pkg/catalogd/graphql/schema.ts',
    to: 'pkg/shared/fbc/canonical-json.ts',
    reason:
      "The GraphQL query worker thread loads Go's JSON encoding alone: pkg/shared/fbc's index loads the whole FBC loader, most of a new worker's start-up (decision 0111).",
  },
  {
    from: '',
    to: 'pkg/shared/fbc/types.ts',
    typeOnly: true,
    reason: "The FBC data model, imported for types only: erased at run time, and every name is also exported by pkg/shared/fbc's index.ts.",
  },
  // Start-up (decision 0097): what an entry loads before catalogd serves its stored content or
  // operator-controller's informers list; each module's index would load the controllers, the
  // registry and cluster clients or the zod schemas first.
  ...[
    ['cmd/catalogd/options.ts', 'pkg/catalogd/clustercatalog/ingest-bounds.ts'],
    ['cmd/catalogd/options.ts', 'pkg/shared/image/limits.ts'],
    ['cmd/catalogd/run.ts', 'pkg/shared/controller/certificates.ts'],
    ['cmd/operator-controller/options.ts', 'pkg/shared/image/limits.ts'],
    ['cmd/operator-controller/options.ts', 'pkg/operator-controller/clusterextension/installer.ts'],
    ['cmd/operator-controller/options.ts', 'pkg/operator-controller/gating/version.ts'],
    ['cmd/operator-controller/run.ts', 'pkg/shared/api/v1/constants.ts'],
    ['pkg/catalogd/webhook/label-defaulter.ts', 'pkg/shared/api/v1/constants.ts'],
    ['cmd/shared/limits.ts', 'pkg/shared/fbc/limits.ts'],
    ['cmd/shared/logging.ts', 'pkg/shared/controller/log-error.ts'],
    ['cmd/shared/main.ts', 'pkg/shared/controller/shutdown.ts'],
    ['cmd/shared/component-options.ts', 'pkg/shared/kube/kubeconfig.ts'],
    ['cmd/shared/component-options.ts', 'pkg/shared/kube/leader-election.ts'],
    ['cmd/shared/first-answer.ts', 'pkg/shared/kube/backoff.ts'],
  ].map(([from, to]) => ({
    from,
    to,
    reason: "Start-up: loaded before a component serves or lists, where the module's index would load far more (decision 0097).",
  })),
  {
    from: 'bench/children/ingest.ts',
    to: 'pkg/catalogd/clustercatalog/catalog-content.ts',
    reason:
      "The benchmark runs catalogd's ingest step (storeCatalogImage) without the reconciler and kube client that the controller index loads, which would distort its memory figures.",
  },
  {
    from: 'bench/children/ingest.ts',
    to: 'pkg/catalogd/storage/ingest-directory.ts',
    reason: 'The in-process mode preloads the decoder module exactly as catalogd loads it on first use.',
  },
  {
    from: 'bench/children/bare-metas-server.ts',
    to: 'pkg/catalogd/server/answer-buffers.ts',
    reason:
      "A comparison server on bare node:http over catalogd's own answer buffers, to measure what the HTTP framework costs (decision 0087); not part of the server's public surface.",
  },
  {
    from: 'bench/children/bare-metas-server.ts',
    to: 'pkg/catalogd/server/handlers.ts',
    reason: 'As above: the comparison server answers with the same size limit as catalogd.',
  },
];

/** The owner groups of pkg/ and cmd/ and what each may not import (rule 5). */
function ownerBoundaryBlocks() {
  const CATALOGD = ['pkg/catalogd', 'cmd/catalogd'];
  const OPERATOR_CONTROLLER = ['pkg/operator-controller', 'cmd/operator-controller'];
  const OLMV1 = ['pkg/olmv1', 'cmd/olmv1'];
  const groups = [
    { owner: 'catalogd', files: CATALOGD, forbidden: [...OPERATOR_CONTROLLER, ...OLMV1] },
    { owner: 'operator-controller', files: OPERATOR_CONTROLLER, forbidden: [...CATALOGD, ...OLMV1] },
    { owner: 'shared', files: ['pkg/shared', 'pkg/gocompat', 'cmd/shared'], forbidden: [...CATALOGD, ...OPERATOR_CONTROLLER, ...OLMV1] },
  ];
  // The applier's core imports neither runtime folder and neither runtime imports the other
  // (issue 70); index.ts and same-content.ts stand above both and may. These blocks come after
  // operator-controller's, so they repeat its forbidden trees.
  const APPLIER = 'pkg/operator-controller/applier';
  const [HELM, BOXCUTTER] = [`${APPLIER}/helm`, `${APPLIER}/boxcutter`];
  const instead = `the applier's core (${APPLIER}/*.ts), or wire it in the composition root`;
  const applier = [
    {
      owner: "the applier's core",
      files: [`${APPLIER}/*.ts`],
      ignores: [`${APPLIER}/index.ts`, `${APPLIER}/same-content.ts`],
      forbidden: [HELM, BOXCUTTER],
    },
    { owner: 'the Helm runtime', files: [`${HELM}/**`], ignores: [], forbidden: [BOXCUTTER] },
    { owner: 'the BoxcutterRuntime', files: [`${BOXCUTTER}/**`], ignores: [], forbidden: [HELM] },
  ].map(({ owner, files, ignores, forbidden }) => ({
    files,
    ignores: [...TESTS, ...ignores],
    rules: { 'olmv1/owner-boundaries': ['error', { owner, forbidden: [...forbidden, ...CATALOGD, ...OLMV1], instead }] },
  }));
  return groups
    .flatMap(({ owner, files, forbidden }) => [
      {
        files: files.map((dir) => `${dir}/**`),
        ignores: TESTS,
        rules: { 'olmv1/owner-boundaries': ['error', { owner, forbidden }] },
      },
      {
        files: files.map((dir) => `${dir}/**/*.test.ts`),
        rules: { 'olmv1/owner-boundaries': ['error', { owner, forbidden: forbidden.filter((dir) => dir !== 'pkg/olmv1') }] },
      },
    ])
    .concat(applier);
}

export default tseslint.config(
  {
    ignores: ['node_modules/', 'dist/', 'coverage/', '.cache/', 'tmp/', '.tmp-*/', '**/testdata/'],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: 'module',
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        queueMicrotask: 'readonly',
        structuredClone: 'readonly',
        AbortController: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        fetch: 'readonly',
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { olmv1: architecturePlugin },
    rules: {
      // tsc's noUnusedLocals/noUnusedParameters conventions: a leading `_` marks a deliberately
      // unused binding (`const { dropped: _dropped, ...rest } = o`, `for (const [_, v] of m)`).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // The decoders test for ASCII with /^[\x00-\x7f]*$/ as Go's byte-level code does.
      'no-control-regex': 'off',
      // Tests match upstream's messages literally, double spaces included.
      'no-regex-spaces': 'off',
      // Flags defensive initial values (`let lost = false` before a try); tsc's definite
      // assignment analysis already catches reads before a write.
      'no-useless-assignment': 'off',
      // Rule 2: only pkg/shared/kube imports @kubernetes/client-node (turned off for pkg/shared/kube below).
      'olmv1/kube-client-node': 'error',
      // Rule 4: another module is imported through its index.ts.
      'olmv1/module-index-imports': ['error', { allow: MODULE_INDEX_EXCEPTIONS }],
    },
  },
  {
    files: TESTS,
    rules: {
      // Fakes of never-ending streams: async generators that wait for an abort and never yield.
      'require-yield': 'off',
      // Tests provoke a TypeError with a bare property read of undefined.
      '@typescript-eslint/no-unused-expressions': 'off',
    },
  },
  {
    files: ['pkg/shared/kube/**'],
    rules: { 'olmv1/kube-client-node': 'off' },
  },
  {
    // Rule 3: no process.env / process.argv outside the composition roots and tooling. Rule 4:
    // no `export *` in the modules (one no-restricted-syntax setting holds both selectors).
    files: ['**/*.ts', '**/*.js', '**/*.mjs'],
    ignores: ['cmd/**', 'test/**', 'bench/**', 'scripts/**'],
    rules: {
      'no-restricted-properties': ['error', ...NO_PROCESS_ENV_ARGV],
      'no-restricted-syntax': ['error', NO_PROCESS_IMPORT_ENV_ARGV, NO_EXPORT_ALL],
    },
  },
  {
    // The ingest child process is an entry point of its own: ingest.ts starts it with the idle
    // limit as its only argument. It reads no environment.
    files: ['pkg/catalogd/storage/ingest-child.ts'],
    rules: { 'no-restricted-properties': ['error', NO_PROCESS_ENV_ARGV[0]] },
  },
  // Rule 5: the tree is grouped by owner binary; catalogd and operator-controller code never
  // import each other, shared code imports only shared code. Tests may use the local stack's
  // servers and certificates (pkg/olmv1/localstack) as test infrastructure.
  ...ownerBoundaryBlocks(),
  {
    // Rule 6: a pipeline's steps are peers: no step imports a step.
    files: ['pkg/operator-controller/clusterextension/*.ts'],
    ignores: TESTS,
    rules: {
      'olmv1/step-peers': [
        'error',
        {
          steps: 'steps(-[a-z]+)*\\.ts|uninstall\\.ts',
          support: 'a module named after what they share (plan.ts, failures.ts, resolution.ts, phases.ts)',
        },
      ],
    },
  },
  {
    // Rule 7: tests fake the Kubernetes client with test/support/fake-cluster.ts or a typed
    // object fitting a narrowed port, never a partial object cast to the client (issue #45).
    files: [...TESTS, 'test/**/*.ts'],
    rules: {
      'olmv1/typed-kube-fakes': ['error', { types: ['KubeClient', 'KubeContext', 'Transport', 'ResourceMapper', 'Informer', 'ScopedClientFactory'] }],
    },
  },
  {
    // Rule 1: pure cores import no I/O and no infrastructure module, and do not fetch Node's
    // I/O modules through process.getBuiltinModule either.
    files: PURE_CORES,
    ignores: [...PURE_CORE_EDGES, ...TESTS],
    rules: {
      'olmv1/pure-core-imports': ['error', { forbidden: IO_IMPORTS, forbiddenModules: INFRASTRUCTURE_MODULES }],
      'no-restricted-properties': [
        'error',
        ...NO_PROCESS_ENV_ARGV,
        { object: 'process', property: 'getBuiltinModule', message: 'A pure core does no I/O.' },
      ],
    },
  },
);
