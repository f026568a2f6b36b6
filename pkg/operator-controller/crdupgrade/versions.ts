/**
 * Property comparisons between two CRD versions (decision 0047): the same version in the
 * installed and the new CRD, and each ordered pair of served versions of the new CRD, less the
 * issues the installed CRD already had between that pair.
 */
import { compareUtf8, goSorted } from '../../gocompat/gotext/index.ts';
import type { CrdVersion, CrdView } from './crd.ts';
import { PROPERTY_RULES } from './property-rules.ts';
import { sameJson, withoutChildren, type Schema } from './schema.ts';
import { unhandledChanges } from './unhandled.ts';
import { flattenSchema } from './walk.ts';
import type { CrdViolation } from './violation.ts';

/**
 * Violations of the property rules going from schema `a` to schema `b`, under `version`.
 * Every path of `a` is compared with the same path of `b` (an empty schema when `b` lacks it),
 * children excluded; paths only `b` has are new fields, which are allowed.
 */
function compareSchemas(version: string, a: Schema | undefined, b: Schema | undefined): CrdViolation[] {
  const older = flattenSchema(a);
  const newer = flattenSchema(b);
  const out: CrdViolation[] = [];
  for (const property of goSorted(older.keys())) {
    const oldSchema = withoutChildren(older.get(property) as Schema);
    const found = newer.get(property);
    const newSchema = found === undefined ? {} : withoutChildren(found);
    if (found !== undefined && sameJson(oldSchema, newSchema)) continue;
    // Rules in name order, then the unhandled rule over what they left (crdify's result order).
    for (const rule of PROPERTY_RULES) {
      const message = rule.compare(oldSchema, newSchema);
      if (message !== undefined && rule.enforced) out.push({ rule: rule.name, version, property, message });
    }
    const unhandled = unhandledChanges(oldSchema, newSchema);
    if (unhandled !== undefined) out.push({ rule: 'unhandled', version, property, message: unhandled });
  }
  return out;
}

/** Same-version rules: each version of the installed CRD that the new CRD still has, in the installed CRD's order. */
export function sameVersionViolations(older: CrdView, newer: CrdView): CrdViolation[] {
  const out: CrdViolation[] = [];
  for (const v of older.versions) {
    const n = newer.versions.find((x) => x.name === v.name);
    if (n !== undefined) out.push(...compareSchemas(v.name, v.schema, n.schema));
  }
  return out;
}

/**
 * Served-version rules: skipped when the new CRD converts with a webhook (OLM's conversion
 * policy Ignore); otherwise only issues the installed CRD did not already have between the same
 * pair of served versions are reported.
 */
export function servedVersionViolations(older: CrdView, newer: CrdView): CrdViolation[] {
  if (newer.webhookConversion) return [];
  const known = new Set(servedPairViolations(older).map(violationKey));
  return servedPairViolations(newer).filter((v) => !known.has(violationKey(v)));
}

function violationKey(v: CrdViolation): string {
  return JSON.stringify([v.version, v.property, v.rule, v.message]);
}

/** Violations between each ordered pair `a -> b` of served versions, lowest priority first. */
function servedPairViolations(crd: CrdView): CrdViolation[] {
  const served = crd.versions.filter((v) => v.served).sort((a, b) => compareKubeAwareVersions(a.name, b.name));
  const pairs: [string, CrdVersion, CrdVersion][] = [];
  for (let i = 0; i < served.length; i++) {
    for (let j = i + 1; j < served.length; j++) {
      const a = served[i] as CrdVersion;
      const b = served[j] as CrdVersion;
      pairs.push([`${a.name} -> ${b.name}`, a, b]);
    }
  }
  pairs.sort(([x], [y]) => compareUtf8(x, y));
  return pairs.flatMap(([name, a, b]) => compareSchemas(name, a.schema, b.schema));
}

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;
const STABILITY: Record<string, number> = { alpha: 0, beta: 1, '': 2 };

/**
 * Kubernetes' version priority (apimachinery's CompareKubeAwareVersionStrings): positive when
 * `a` is the higher priority. GA > beta > alpha, then by major and minor number; names that
 * are not Kubernetes versions rank below all that are, in reverse lexical order.
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const x = KUBE_VERSION.exec(a);
  const y = KUBE_VERSION.exec(b);
  if (x === null && y === null) return compareUtf8(b, a);
  if (x === null) return -1;
  if (y === null) return 1;
  const sx = STABILITY[x[2] ?? ''] as number;
  const sy = STABILITY[y[2] ?? ''] as number;
  if (sx !== sy) return sx - sy;
  if (x[1] !== y[1]) return Number(x[1]) - Number(y[1]);
  return Number(x[3] ?? 0) - Number(y[3] ?? 0);
}
