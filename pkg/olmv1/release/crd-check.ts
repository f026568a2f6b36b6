/**
 * Whether a release's CRDs may replace those on a cluster (pure; decision 0154). A CRD on the
 * cluster *requires* lines of a replacement, and a release's CRD *provides* lines:
 *
 * - `stored <crd> <version>`: the cluster's `status.storedVersions` names the version (objects
 *   may be in etcd in it): the release must serve it, or they cannot be read (the API server
 *   refuses the CRD outright when the version is gone from `spec.versions`);
 * - `served <crd> <version>`: the cluster serves it, so clients and stored references may use
 *   it: the release must serve it too;
 * - `field <crd> <version> <path>`: a field of that served version's schema (`a.b`, `[]` for an
 *   array's items, `{}` for a map's values under `additionalProperties`, `*` for the unknown
 *   fields `x-kubernetes-preserve-unknown-fields: true` keeps): the release's schema of that
 *   version must have it, or the API server prunes its values from every object it reads or
 *   writes (a map's entries, the unknown fields of an object no longer preserving them).
 *
 * A release is safe where every line the cluster requires is provided; each missing line is a
 * reason to refuse. install.sh (install-script.ts) computes the cluster's lines with kubectl's
 * go-template {@link CRD_FACTS_TEMPLATE} and bash, and the release's are baked in by
 * {@link crdProvisions}; {@link crdReplacementVerdict} is the rule and its message, which the
 * script's own text must equal (install-script.test.ts).
 */
import { loadAll } from 'js-yaml';

/** The project's CRDs a release manifest can carry; the check reads these on the cluster. */
const PROJECT_CRDS = [
  'clustercatalogs.olm.operatorframework.io',
  'clusterextensions.olm.operatorframework.io',
  'clusterobjectsets.olm.operatorframework.io',
] as const;

interface Schema {
  properties?: Record<string, Schema>;
  items?: Schema;
  /** A schema for a map's values, or `true` (any value). */
  additionalProperties?: Schema | boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

interface Crd {
  kind?: string;
  metadata?: { name?: string };
  spec?: { versions?: Array<{ name: string; served?: boolean; schema?: { openAPIV3Schema?: Schema } }> };
  status?: { storedVersions?: string[] };
}

/**
 * Prints a CRD's facts for install.sh to turn into lines (kubectl `-o go-template`, no other
 * tool): `version <name> <served>`, then `+<property>` / `-` around each property (`+[]` for an
 * array's items, `+{}` for `additionalProperties`, whose schema is walked unless it is a bare
 * `true`, `+*` for `x-kubernetes-preserve-unknown-fields: true`) of its schema, then
 * `stored <version>` per stored version.
 */
export const CRD_FACTS_TEMPLATE =
  '{{define "p"}}{{range $k, $v := .properties}}+{{$k}}\n{{template "p" $v}}-\n{{end}}{{with .items}}+[]\n{{template "p" .}}-\n{{end}}' +
  '{{with .additionalProperties}}+{}\n{{if ne (printf "%T" .) "bool"}}{{template "p" .}}{{end}}-\n{{end}}' +
  '{{if index . "x-kubernetes-preserve-unknown-fields"}}+*\n-\n{{end}}{{end}}' +
  '{{range .spec.versions}}version {{.name}} {{.served}}\n{{with .schema}}{{with .openAPIV3Schema}}{{template "p" .}}{{end}}{{end}}{{end}}' +
  '{{with .status}}{{range .storedVersions}}stored {{.}}\n{{end}}{{end}}';

function fieldPaths(schema: Schema | undefined, prefix: string, out: string[]): void {
  if (schema === undefined || schema === null || typeof schema !== 'object') return;
  const child = (name: string, s: Schema | undefined): void => {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    out.push(path);
    fieldPaths(s, path, out);
  };
  for (const [name, s] of Object.entries(schema.properties ?? {})) child(name, s);
  if (schema.items !== undefined && schema.items !== null) child('[]', schema.items);
  const additional = schema.additionalProperties;
  if (additional !== undefined && additional !== null && additional !== false) child('{}', additional === true ? undefined : additional);
  if (schema['x-kubernetes-preserve-unknown-fields'] === true) child('*', undefined);
}

/** The `served` and `field` lines of a CRD's served versions. */
function servedLines(crd: Crd): string[] {
  const name = crd.metadata?.name ?? '';
  const lines: string[] = [];
  for (const v of crd.spec?.versions ?? []) {
    if (v.served !== true) continue;
    lines.push(`served ${name} ${v.name}`);
    const paths: string[] = [];
    fieldPaths(v.schema?.openAPIV3Schema, '', paths);
    for (const p of paths) lines.push(`field ${name} ${v.name} ${p}`);
  }
  return lines;
}

const sorted = (lines: Iterable<string>): string[] => [...new Set(lines)].sort();

/** What a CRD on the cluster requires of its replacement. */
export function crdRequirements(crd: object): string[] {
  const c = crd as Crd;
  const name = c.metadata?.name ?? '';
  return sorted([...servedLines(c), ...(c.status?.storedVersions ?? []).map((v) => `stored ${name} ${v}`)]);
}

/** What a release's CRD provides: every served version may hold stored objects. */
export function crdProvisions(crd: object): string[] {
  const c = crd as Crd;
  const name = c.metadata?.name ?? '';
  const served = (c.spec?.versions ?? []).filter((v) => v.served === true).map((v) => `stored ${name} ${v.name}`);
  return sorted([...servedLines(c), ...served]);
}

/**
 * The provisions of the project's CRDs in a release manifest (YAML, several documents), and in
 * `overlayCrdsYaml`: CRDs of the release's commit an overlay adds (config/boxcutter's
 * ClusterObjectSet CRD), checked on a cluster that has them though the manifest does not carry them.
 */
export function manifestCrdProvisions(manifestYaml: string, overlayCrdsYaml = ''): { crds: string[]; lines: string[] } {
  const crds = [...(loadAll(manifestYaml) as Crd[]), ...(loadAll(overlayCrdsYaml) as Crd[])].filter(
    (d): d is Crd => d?.kind === 'CustomResourceDefinition' && (PROJECT_CRDS as readonly string[]).includes(d.metadata?.name ?? ''),
  );
  return { crds: crds.map((c) => c.metadata?.name ?? '').sort(), lines: sorted(crds.flatMap((c) => crdProvisions(c))) };
}

/** One missing line as the refusal says it (install.sh says it in the same words). */
function reason(line: string, release: string): string {
  const [what, crd, version, ...rest] = line.split(' ');
  if (what === 'stored') return `  ${crd}: objects are stored at ${version} (status.storedVersions), which olmv1 ${release} does not serve`;
  if (what === 'served') return `  ${crd}: ${version} is served now, and olmv1 ${release} would stop serving it`;
  return `  ${crd} ${version}: field ${rest.join(' ')} is not in olmv1 ${release}'s schema (its values would be pruned)`;
}

/** The verdict on replacing CRDs whose requirements are `required` with a release providing `provided`. */
export function crdReplacementVerdict(
  required: readonly string[],
  provided: readonly string[],
  release: string,
): { safe: true } | { safe: false; missing: string[]; message: string } {
  const have = new Set(provided);
  const all = sorted(required.filter((l) => !have.has(l)));
  // A version the release does not serve at all is one reason, not one per field of it.
  const unserved = new Set(all.filter((l) => l.startsWith('served ')).map((l) => l.slice('served '.length)));
  const missing = all.filter((l) => !l.startsWith('field ') || !unserved.has(l.split(' ').slice(1, 3).join(' ')));
  if (missing.length === 0) return { safe: true };
  const message = [
    `olmv1 ${release} would not keep what the cluster's CRDs hold; nothing was applied:`,
    ...missing.map((l) => reason(l, release)),
    `Apply a release whose CRDs keep these (the one installed, or a newer one). To go back to olmv1 ${release}, first migrate the objects ` +
      `to a version it serves and clear the fields it lacks (docs/release.md, "Going back down"); OLMV1_ALLOW_CRD_CHANGE=true applies it anyway.`,
  ].join('\n');
  return { safe: false, missing, message };
}
