/**
 * Generates docs/api.md, the API reference of the CRDs in config/crd and config/crd/experimental
 * (marked experimental), from their schemas: every field with its type, whether it is required,
 * its description and its validation (OpenAPI constraints and CEL rules with their messages).
 *
 *   node scripts/crd-docs.ts          rewrites docs/api.md
 *   node scripts/crd-docs.ts --check  exits 1 when docs/api.md is stale
 *
 * crd-docs.test.ts fails when the committed docs/api.md differs from what this renders.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';

/** The part of an OpenAPI v3 schema (as CRDs use it) this generator reads. */
export interface Schema {
  type?: string;
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  'x-kubernetes-validations'?: { rule: string; message?: string }[];
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
}

/** The part of a CustomResourceDefinition this generator reads. */
export interface Crd {
  kind?: string;
  spec: {
    group: string;
    scope: string;
    names: { kind: string; plural: string; shortNames?: string[] };
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      schema: { openAPIV3Schema: Schema };
      additionalPrinterColumns?: { name: string; type: string; jsonPath: string }[];
    }[];
  };
}

const HEADER = `# API reference

Generated from the CRD schemas in \`config/crd/\` and \`config/crd/experimental/\` by
\`node scripts/crd-docs.ts\`; do not edit by hand (\`scripts/crd-docs.test.ts\` fails when this
file is stale). For what each condition reason means and what to do about it, see
[operations.md](operations.md#condition-reasons).
`;

const EXPERIMENTAL_NOTE =
  '**Experimental**: not part of `config/`; served once `config/crd/experimental` is applied (upstream ships it only in its experimental manifests).';

/**
 * Renders the reference of `crds` and of the `experimental` ones (each marked so), sorted by
 * kind, as Markdown.
 */
export function renderCrdDocs(crds: readonly Crd[], experimental: readonly Crd[] = []): string {
  const parts = [HEADER];
  const all = [...crds.map((crd) => ({ crd, marked: false })), ...experimental.map((crd) => ({ crd, marked: true }))];
  const sorted = all.sort((a, b) => a.crd.spec.names.kind.localeCompare(b.crd.spec.names.kind));
  parts.push(
    sorted
      .map(({ crd, marked }) => `- [${crd.spec.names.kind}](#${crd.spec.names.kind.toLowerCase()})${marked ? ' (experimental)' : ''}`)
      .join('\n') + '\n',
  );
  for (const { crd, marked } of sorted) parts.push(renderCrd(crd, marked));
  return parts.join('\n');
}

function renderCrd(crd: Crd, experimental: boolean): string {
  const { group, scope, names } = crd.spec;
  const out: string[] = [];
  for (const v of crd.spec.versions) {
    const root = v.schema.openAPIV3Schema;
    out.push(`## ${names.kind}\n`);
    out.push(
      `\`${group}/${v.name}\`, ${scope === 'Cluster' ? 'cluster-scoped' : 'namespaced'}; \`kubectl get ${names.plural}\`${names.shortNames?.length ? ` (short: ${names.shortNames.map((s) => `\`${s}\``).join(', ')})` : ''}.${v.storage ? '' : ' Not the storage version.'}\n`,
    );
    if (experimental) out.push(`${EXPERIMENTAL_NOTE}\n`);
    if (root.description !== undefined) out.push(`${oneLine(root.description)}\n`);
    const columns = v.additionalPrinterColumns ?? [];
    if (columns.length > 0) {
      out.push('Columns of `kubectl get`:\n');
      out.push('| Column | JSONPath |\n| --- | --- |');
      for (const c of columns) out.push(`| ${c.name} | \`${cell(c.jsonPath)}\` |`);
      out.push('');
    }
    out.push('| Field | Type | Description | Validation |\n| --- | --- | --- | --- |');
    const rootRules = validation(root);
    if (rootRules !== '') out.push(`| (object) | object |  | ${rootRules} |`);
    for (const [name, prop] of Object.entries(root.properties ?? {})) {
      if (name === 'apiVersion' || name === 'kind' || name === 'metadata') continue;
      walk(name, prop, (root.required ?? []).includes(name), out);
    }
    out.push('');
  }
  return out.join('\n');
}

function walk(path: string, s: Schema, required: boolean, out: string[]): void {
  out.push(`| \`${path}\` | ${typeOf(s)}${required ? ', **required**' : ''} | ${cell(oneLine(s.description ?? ''))} | ${validation(s)} |`);
  for (const [name, prop] of Object.entries(s.properties ?? {})) walk(`${path}.${name}`, prop, (s.required ?? []).includes(name), out);
  if (s.items !== undefined) {
    for (const [name, prop] of Object.entries(s.items.properties ?? {}))
      walk(`${path}[].${name}`, prop, (s.items.required ?? []).includes(name), out);
  }
}

function typeOf(s: Schema): string {
  if (s.type === 'array') return `[]${s.items?.type ?? 'any'}`;
  if (s.type === 'object' && typeof s.additionalProperties === 'object') return `map[string]${s.additionalProperties.type ?? 'any'}`;
  if (s.type === undefined && s['x-kubernetes-preserve-unknown-fields'] === true) return 'any';
  return s.type ?? 'any';
}

function validation(s: Schema): string {
  const v: string[] = [];
  const item = s.type === 'array' ? s.items : undefined;
  if (s.enum !== undefined) v.push(`one of ${s.enum.map((e) => `\`${String(e)}\``).join(', ')}`);
  if (item?.enum !== undefined) v.push(`items one of ${item.enum.map((e) => `\`${String(e)}\``).join(', ')}`);
  if (s.default !== undefined) v.push(`default \`${JSON.stringify(s.default)}\``);
  if (s.format !== undefined) v.push(`format ${s.format}`);
  if (s.minimum !== undefined) v.push(`min ${s.minimum}`);
  if (s.maximum !== undefined) v.push(`max ${s.maximum}`);
  if (s.minLength !== undefined) v.push(`min length ${s.minLength}`);
  if (s.maxLength !== undefined) v.push(`max length ${s.maxLength}`);
  if (item?.maxLength !== undefined) v.push(`items max length ${item.maxLength}`);
  if (s.minItems !== undefined) v.push(`min items ${s.minItems}`);
  if (s.maxItems !== undefined) v.push(`max items ${s.maxItems}`);
  if (s.pattern !== undefined) v.push(`pattern \`${cell(s.pattern)}\``);
  if (s['x-kubernetes-list-type'] !== undefined)
    v.push(
      `list type ${s['x-kubernetes-list-type']}${s['x-kubernetes-list-map-keys'] ? ` (keys ${s['x-kubernetes-list-map-keys'].join(', ')})` : ''}`,
    );
  if (s['x-kubernetes-map-type'] !== undefined) v.push(`map type ${s['x-kubernetes-map-type']}`);
  for (const r of [...(s['x-kubernetes-validations'] ?? []), ...(item?.['x-kubernetes-validations'] ?? [])]) {
    v.push(`${r.message === undefined ? 'rule' : `"${cell(oneLine(r.message))}"`}: \`${cell(oneLine(r.rule))}\``);
  }
  return v.join('; ');
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

/** Reads every CRD in `dir` (one document per `.yaml` file; other kinds, such as a kustomization, are skipped). */
export function readCrds(dir: string): Crd[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => load(readFileSync(join(dir, f), 'utf8')) as Crd)
    .filter((doc) => doc.kind === 'CustomResourceDefinition');
}

/** docs/api.md as it should be for the repository at `root`. */
export function renderApiDocs(root: string): string {
  return renderCrdDocs(readCrds(join(root, 'config/crd')), readCrds(join(root, 'config/crd/experimental')));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const text = renderApiDocs(root);
  const target = join(root, 'docs/api.md');
  if (process.argv.includes('--check')) {
    if (readFileSync(target, 'utf8') !== text) {
      process.stderr.write('docs/api.md is stale: run node scripts/crd-docs.ts\n');
      process.exit(1);
    }
  } else {
    writeFileSync(target, text);
  }
}
