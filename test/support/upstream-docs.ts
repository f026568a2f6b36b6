/**
 * The ClusterExtension examples of upstream's documentation (test/fixtures/upstream-docs, one
 * file per YAML block, byte for byte), decoded as kubectl decodes a file (sigs.k8s.io/yaml over
 * go-yaml v2: pkg/gocompat/goyaml), for the admission and install suites.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { decodeDocuments } from '../../pkg/gocompat/goyaml/index.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';

/** The upstream operator-framework/operator-controller commit the fixtures were taken from. */
export const UPSTREAM_DOCS_COMMIT = 'df2c201d70e83d02eae23597d604269fa1baf20a';

export const UPSTREAM_DOCS_DIR = fileURLToPath(new URL('../fixtures/upstream-docs/', import.meta.url));

/** upstream's own experimental ClusterExtension CRD, its group renamed to this one (see the fixtures' README). */
export const UPSTREAM_CRD_PATH = join(UPSTREAM_DOCS_DIR, 'upstream-crd/clusterextensions-experimental.yaml');
export const UPSTREAM_CRD_GROUP = 'upstream.olm.test';

/** One example: a fixture file. */
export interface DocExample {
  /** The fixture's path under test/fixtures/upstream-docs without `.yaml`, e.g. `docs/howto/how-to-pin-version-1`. */
  id: string;
  /** The block as upstream's page shows it. */
  text: string;
  /** Every document of the block (a Namespace comes first in some). */
  objects: KubeObject[];
  /** The block's ClusterExtension (each block has exactly one). */
  extension: KubeObject;
}

/** Decodes a block as `kubectl apply -f` does; throws when it is not one ClusterExtension plus other objects. */
export function decodeExample(id: string, text: string): DocExample {
  const decoded = decodeDocuments(text);
  if (!decoded.ok) throw new Error(`${id}: ${decoded.error}`);
  const objects = decoded.value as KubeObject[];
  const extensions = objects.filter((o) => o.kind === CLUSTER_EXTENSION.kind);
  const [extension] = extensions;
  if (extension === undefined || extensions.length !== 1) throw new Error(`${id}: expected one ClusterExtension, found ${extensions.length}`);
  return { id, text, objects, extension };
}

/** Every fixture, sorted by id. */
export function upstreamDocExamples(): DocExample[] {
  const files = readdirSync(UPSTREAM_DOCS_DIR, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.yaml') && !f.startsWith('upstream-crd'))
    .sort();
  return files.map((f) =>
    decodeExample(relative(UPSTREAM_DOCS_DIR, join(UPSTREAM_DOCS_DIR, f)).replace(/\.yaml$/, ''), readFileSync(join(UPSTREAM_DOCS_DIR, f), 'utf8')),
  );
}

/** The example `id`. */
export function upstreamDocExample(id: string): DocExample {
  const example = upstreamDocExamples().find((e) => e.id === id);
  if (example === undefined) throw new Error(`no fixture ${id}`);
  return example;
}

/**
 * Values for the `<placeholders>` of upstream's template examples: those the pages' own prose gives
 * as examples (upstream's install-extension tutorial: `my-camel-k`, `camel-k`, `stable` or `fast`,
 * `1.3.1` or `"<2"`), and where it gives none, `camel-k` as the namespace and `0.2.0` (the upgrade
 * tutorial's first version) as the downgrade target.
 */
export const PLACEHOLDER_VALUES: Readonly<Record<string, string>> = {
  extension_name: 'my-camel-k',
  package_name: 'camel-k',
  namespace_name: 'camel-k',
  namespace: 'camel-k',
  channel1: 'stable',
  channel2: 'fast',
  version: '1.3.1',
  version_or_version_range: '<2',
  target_version: '0.2.0',
};

const PLACEHOLDER = /<([a-z0-9_]+)>/g;

/** True when the example is a template with `<placeholders>`. */
export function isTemplate(example: DocExample): boolean {
  return new RegExp(PLACEHOLDER.source).test(example.text);
}

/** The template with every placeholder replaced by its value; throws on a placeholder without one. */
export function fillPlaceholders(example: DocExample): DocExample {
  const text = example.text.replace(PLACEHOLDER, (whole, name: string) => {
    const value = PLACEHOLDER_VALUES[name];
    if (value === undefined) throw new Error(`${example.id}: no value for ${whole}`);
    return value;
  });
  return decodeExample(`${example.id} (filled in)`, text);
}
