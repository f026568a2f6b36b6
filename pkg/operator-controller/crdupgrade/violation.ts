/**
 * A violation of the CRD upgrade rules and its texts, as upstream OLM formats crdify's
 * results.
 */
import { goQuote } from '../../gocompat/gotext/index.ts';

/** One broken rule. */
export interface CrdViolation {
  /** crdify's validation name: `scope`, `existingFieldRemoval`, `type`, `enum`, `unhandled`, ... */
  rule: string;
  /** Absent for CRD-wide rules; a version (`v1`) or a served-version pair (`v1 -> v2`) otherwise. */
  version?: string;
  /** The property path (`^.spec.foo`, arrays `^.spec.list.items`), with `version`. */
  property?: string;
  /** crdify's text, e.g. `type changed : "string" -> "integer"`. */
  message: string;
}

/** `<rule>: <message>` for CRD-wide rules, `<version>: <property>: <rule>: <message>` otherwise. */
export function formatViolation(v: CrdViolation): string {
  if (v.version === undefined) return `${v.rule}: ${v.message}`;
  return `${v.version}: ${v.property ?? ''}: ${v.rule}: ${v.message}`;
}

/**
 * `validating upgrade for CRD "<name>": <violations, one a line>`: one CRD's block of the
 * preflight error (Go's errors.Join puts each on its own line).
 */
export function formatCrdUpgradeError(crdName: string, violations: readonly CrdViolation[]): string {
  return `validating upgrade for CRD ${goQuote(crdName)}: ${violations.map(formatViolation).join('\n')}`;
}
