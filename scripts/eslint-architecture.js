/**
 * ESLint rules for the module boundaries of docs/development.md ("Module rules"). They look at
 * every way a file names another: `import`, `export ... from` and `import()` with a literal.
 * Relative specifiers are resolved against the linted file, so the rules judge the file
 * imported, not the spelling. Which files each rule applies to is set in eslint.config.js.
 *
 * - `olmv1/pure-core-imports`: the file imports none of the `forbidden` packages (Node's I/O
 *   built-ins, with or without `node:`, network clients) and no file of the `forbiddenModules`
 *   directories.
 * - `olmv1/kube-client-node`: the file does not import `@kubernetes/client-node` (only pkg/shared/kube
 *   may, and the config does not apply the rule there).
 * - `olmv1/module-index-imports`: a file imports another module (a directory under pkg/ with an
 *   `index.ts`; the deepest one holding the file) only through that `index.ts`, unless an
 *   `allow` entry names the pair.
 * - `olmv1/owner-boundaries`: the file imports nothing under the `forbidden` directories: the
 *   tree is grouped by owner binary (pkg/catalogd, pkg/operator-controller, pkg/olmv1, shared
 *   code in pkg/shared and pkg/gocompat), and one binary's code never loads another's. Within
 *   pkg/operator-controller/applier, the same rule keeps the core and the two runtimes apart.
 * - `olmv1/step-peers`: the steps of a pipeline are peers: a step file (a file whose name
 *   matches `steps`, a regular expression, in the linted file's directory) is imported by no
 *   file of that directory but its `index.ts`. What steps share lives in a support module.
 * - `olmv1/typed-kube-fakes`: no cast to one of the `types` (the Kubernetes client and its
 *   parts): a test double is a complete client (test/support/fake-cluster.ts) or the code under
 *   test takes only the methods it calls (a `Pick<KubeClient, ...>` port), so a small typed
 *   object fits without `as unknown as KubeClient`.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');

/** The path of `file` relative to the repository, with `/` separators. */
function repoPath(file) {
  return path.relative(ROOT, file).split(path.sep).join('/');
}

/**
 * Calls `check(node, specifier, typeOnly)` for each static specifier the file imports from.
 * `typeOnly` is true when the import or re-export names types only, so it is erased.
 */
function importVisitors(check) {
  function fromDeclaration(node, kindKey) {
    if (node.source?.type !== 'Literal' || typeof node.source.value !== 'string') return;
    const specifiers = node.specifiers ?? [];
    const typeOnly = node[kindKey] === 'type' || (specifiers.length > 0 && specifiers.every((s) => s[kindKey] === 'type'));
    check(node.source, node.source.value, typeOnly);
  }
  return {
    ImportDeclaration: (node) => fromDeclaration(node, 'importKind'),
    ExportNamedDeclaration: (node) => fromDeclaration(node, 'exportKind'),
    ExportAllDeclaration: (node) => fromDeclaration(node, 'exportKind'),
    ImportExpression(node) {
      if (node.source.type === 'Literal' && typeof node.source.value === 'string') {
        check(node.source, node.source.value, false);
      }
    },
  };
}

/** The repository path a relative specifier names, or undefined for a package specifier. */
function resolveRelative(filename, specifier) {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  return repoPath(path.resolve(path.dirname(filename), specifier));
}

/** True when `specifier` is package `name` or one of its subpaths (`node:` ignored). */
function namesPackage(specifier, name) {
  const bare = specifier.replace(/^node:/, '');
  const wanted = name.replace(/^node:/, '');
  return bare === wanted || bare.startsWith(`${wanted}/`);
}

const moduleDirCache = new Map();

/** The module directory holding a repository path: the deepest pkg/ directory with index.ts. */
function moduleOf(file) {
  if (!file.startsWith('pkg/')) return undefined;
  let dir = path.posix.dirname(file);
  while (dir.startsWith('pkg/')) {
    let isModule = moduleDirCache.get(dir);
    if (isModule === undefined) {
      isModule = existsSync(path.join(ROOT, dir, 'index.ts'));
      moduleDirCache.set(dir, isModule);
    }
    if (isModule) return dir;
    dir = path.posix.dirname(dir);
  }
  return undefined;
}

const pureCoreImports = {
  meta: {
    type: 'problem',
    docs: { description: 'Pure cores import no I/O and no infrastructure module' },
    schema: [
      {
        type: 'object',
        properties: {
          forbidden: { type: 'array', items: { type: 'string' } },
          forbiddenModules: { type: 'array', items: { type: 'string' } },
        },
        additionalProperties: false,
      },
    ],
    messages: {
      io: "'{{specifier}}' is I/O: a pure core takes data in and gives data out; do the I/O at an edge and pass it in.",
      module: "'{{specifier}}' is in {{module}}: a pure core does not depend on infrastructure modules.",
    },
  },
  create(context) {
    const { forbidden = [], forbiddenModules = [] } = context.options[0] ?? {};
    return importVisitors((node, specifier) => {
      const target = resolveRelative(context.filename, specifier);
      if (target === undefined) {
        if (forbidden.some((name) => namesPackage(specifier, name))) {
          context.report({ node, messageId: 'io', data: { specifier } });
        }
        return;
      }
      const module = forbiddenModules.find((dir) => target === dir || target.startsWith(`${dir}/`));
      if (module !== undefined) context.report({ node, messageId: 'module', data: { specifier, module } });
    });
  },
};

const kubeClientNode = {
  meta: {
    type: 'problem',
    docs: { description: 'Only pkg/shared/kube imports @kubernetes/client-node' },
    schema: [],
    messages: {
      kube: "Only pkg/shared/kube imports '@kubernetes/client-node'; use pkg/shared/kube's index.ts.",
    },
  },
  create(context) {
    return importVisitors((node, specifier) => {
      if (namesPackage(specifier, '@kubernetes/client-node')) context.report({ node, messageId: 'kube' });
    });
  },
};

const moduleIndexImports = {
  meta: {
    type: 'problem',
    docs: { description: 'Another module is imported through its index.ts' },
    schema: [
      {
        type: 'object',
        properties: {
          allow: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                // The importing file, or a directory prefix ending in '/'; '' for every file.
                from: { type: 'string' },
                // The imported file.
                to: { type: 'string' },
                // Only `import type` / `export type` imports are allowed.
                typeOnly: { type: 'boolean' },
                reason: { type: 'string' },
              },
              required: ['from', 'to', 'reason'],
              additionalProperties: false,
            },
          },
        },
        additionalProperties: false,
      },
    ],
    messages: {
      index: "'{{specifier}}' is inside {{module}}: import it through '{{module}}/index.ts'.",
    },
  },
  create(context) {
    const { allow = [] } = context.options[0] ?? {};
    const importer = repoPath(context.filename);
    const importerModule = moduleOf(importer);
    return importVisitors((node, specifier, typeOnly) => {
      const target = resolveRelative(context.filename, specifier);
      if (target === undefined) return;
      const module = moduleOf(target);
      if (module === undefined || module === importerModule || target === `${module}/index.ts`) return;
      const allowed = allow.some(
        (entry) =>
          entry.to === target &&
          (entry.typeOnly !== true || typeOnly) &&
          (entry.from === importer || (entry.from.endsWith('/') || entry.from === '' ? importer.startsWith(entry.from) : false)),
      );
      if (!allowed) context.report({ node, messageId: 'index', data: { specifier, module } });
    });
  },
};

const ownerBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: "One binary's code does not import another's; shared code imports only shared code" },
    schema: [
      {
        type: 'object',
        properties: {
          // Repository directories the file must not import from.
          forbidden: { type: 'array', items: { type: 'string' } },
          // Who owns the linted files, for the message.
          owner: { type: 'string' },
          // Where what both sides need goes instead, for the message (default: the shared trees).
          instead: { type: 'string' },
        },
        required: ['forbidden', 'owner'],
        additionalProperties: false,
      },
    ],
    messages: {
      owner: "'{{specifier}}' is in {{dir}}, which {{owner}} code must not import: move what both need to {{instead}} instead.",
    },
  },
  create(context) {
    const { forbidden, owner, instead = 'pkg/shared (or cmd/shared)' } = context.options[0];
    return importVisitors((node, specifier) => {
      const target = resolveRelative(context.filename, specifier);
      if (target === undefined) return;
      const dir = forbidden.find((d) => target === d || target.startsWith(`${d}/`));
      if (dir !== undefined) context.report({ node, messageId: 'owner', data: { specifier, dir, owner, instead } });
    });
  },
};

const stepPeers = {
  meta: {
    type: 'problem',
    docs: { description: "A pipeline's steps are peers: no file of their directory but index.ts imports a step file" },
    schema: [
      {
        type: 'object',
        properties: {
          // The step files' names (a regular expression matched against the whole file name).
          steps: { type: 'string' },
          // Where what the steps share lives, for the message.
          support: { type: 'string' },
        },
        required: ['steps', 'support'],
        additionalProperties: false,
      },
    ],
    messages: {
      peer: "'{{specifier}}' is a step: steps are peers, and only index.ts imports one; move what both need to {{support}}.",
    },
  },
  create(context) {
    const { steps, support } = context.options[0];
    const isStep = new RegExp(`^(?:${steps})$`);
    const importer = repoPath(context.filename);
    if (path.posix.basename(importer) === 'index.ts') return {};
    const dir = path.posix.dirname(importer);
    return importVisitors((node, specifier) => {
      const target = resolveRelative(context.filename, specifier);
      if (target === undefined || target === importer || path.posix.dirname(target) !== dir) return;
      if (isStep.test(path.posix.basename(target))) context.report({ node, messageId: 'peer', data: { specifier, support } });
    });
  },
};

const typedKubeFakes = {
  meta: {
    type: 'problem',
    docs: { description: 'Test doubles of the Kubernetes client are typed, never cast to it' },
    schema: [
      {
        type: 'object',
        properties: { types: { type: 'array', items: { type: 'string' } } },
        required: ['types'],
        additionalProperties: false,
      },
    ],
    messages: {
      cast: 'A cast to {{type}}: use test/support/fake-cluster.ts (a complete KubeClient, with failure injection) or narrow the port to the methods the code calls (Pick<KubeClient, ...>).',
    },
  },
  create(context) {
    const types = new Set(context.options[0].types);
    const check = (node) => {
      const t = node.typeAnnotation;
      if (t.type === 'TSTypeReference' && t.typeName.type === 'Identifier' && types.has(t.typeName.name)) {
        context.report({ node, messageId: 'cast', data: { type: t.typeName.name } });
      }
    };
    return { TSAsExpression: check, TSTypeAssertion: check };
  },
};

/** The plugin: register as `olmv1` in eslint.config.js. */
export const architecturePlugin = {
  meta: { name: 'olmv1-architecture' },
  rules: {
    'pure-core-imports': pureCoreImports,
    'kube-client-node': kubeClientNode,
    'module-index-imports': moduleIndexImports,
    'owner-boundaries': ownerBoundaries,
    'step-peers': stepPeers,
    'typed-kube-fakes': typedKubeFakes,
  },
};
