/**
 * Which static verdicts the stored-object check may overrule (decision 0120): only tightenings
 * of one version's schema that a stored object either meets or not (a bound, an enum, a
 * pattern, a required field, nullable removed, or an `unhandled` change made only of CEL rules,
 * a format, multipleOf or uniqueItems). Anything else (a removed field, a type or scope change,
 * a default, a removed stored version, differences between served versions) keeps upstream's
 * refusal whatever the stored objects hold. Pure.
 */
import type { KubeObject } from '../../shared/unstructured/index.ts';
import { readCrd } from './crd.ts';
import { withoutChildren, sameJson, SCHEMA_FIELDS, type Schema } from './schema.ts';
import type { CrdViolation } from './violation.ts';
import { flattenSchema } from './walk.ts';

const TIGHTENING_RULES = new Set([
  'maximum',
  'maxItems',
  'maxLength',
  'maxProperties',
  'minimum',
  'minItems',
  'minLength',
  'enum',
  'required',
  'pattern',
  'nullable',
]);

// Schema keys whose change only narrows which values validate (plus documentation).
const NARROWING_KEYS = new Set([
  'enum',
  'maximum',
  'minimum',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'maxItems',
  'minItems',
  'maxProperties',
  'minProperties',
  'required',
  'pattern',
  'nullable',
  'x-kubernetes-validations',
  'format',
  'multipleOf',
  'uniqueItems',
  'description',
  'title',
  'example',
  'externalDocs',
]);

/** The versions whose stored objects decide, or undefined when some violation is not a tightening. */
export function coverableVersions(installed: KubeObject, proposed: KubeObject, violations: readonly CrdViolation[]): string[] | undefined {
  const versions = new Set<string>();
  const older = readCrd(installed);
  const newer = readCrd(proposed);
  for (const v of violations) {
    if (v.version === undefined || v.version.includes('->') || v.property === undefined) return undefined;
    if (v.rule === 'unhandled') {
      const a = flattenSchema(older.versions.find((x) => x.name === v.version)?.schema).get(v.property);
      const b = flattenSchema(newer.versions.find((x) => x.name === v.version)?.schema).get(v.property);
      if (a === undefined || b === undefined || !onlyNarrowing(withoutChildren(a), withoutChildren(b))) return undefined;
    } else if (!TIGHTENING_RULES.has(v.rule)) return undefined;
    versions.add(v.version);
  }
  return [...versions];
}

function onlyNarrowing(a: Schema, b: Schema): boolean {
  return SCHEMA_FIELDS.every((f) => NARROWING_KEYS.has(f.key) || sameJson(a[f.key], b[f.key]));
}
