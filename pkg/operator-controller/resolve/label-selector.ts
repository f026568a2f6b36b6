/**
 * Kubernetes LabelSelector semantics for choosing ClusterCatalogs (upstream's first step of a
 * resolution):
 * conversion with the API machinery's validation messages, and matching.
 */
import { err, ok, type Result } from '../../shared/errors/index.ts';
import { goQuote, utf8Length } from '../../gocompat/gotext/index.ts';

/** One `matchExpressions` entry. `operator` is unchecked input (validated here). */
interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: readonly string[] | null | undefined;
}

/** `metav1.LabelSelector`. null/undefined and `{}` both select everything. */
export interface LabelSelector {
  matchLabels?: Readonly<Record<string, string>> | null | undefined;
  matchExpressions?: readonly LabelSelectorRequirement[] | null | undefined;
}

/** Object labels, as found in `metadata.labels`. */
export type Labels = Readonly<Record<string, string>>;

/** A validated selector: true when the labels satisfy every requirement. */
type LabelMatcher = (labels: Labels | undefined) => boolean;

type Op = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

interface Requirement {
  key: string;
  op: Op;
  values: readonly string[];
}

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_SUBDOMAIN_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

function labelKeyErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = value;
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix === '') errs.push('prefix part must be non-empty');
    else {
      if (utf8Length(prefix) > 253) errs.push('prefix part must be no more than 253 bytes');
      if (!DNS1123_SUBDOMAIN.test(prefix)) {
        errs.push(`prefix part ${regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com')}`);
      }
    }
  } else {
    return [
      `a valid label key ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name === '') errs.push('name part must be non-empty');
  else if (utf8Length(name) > 63) errs.push('name part must be no more than 63 bytes');
  if (!QUALIFIED_NAME.test(name)) {
    errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > 63) errs.push('must be no more than 63 bytes');
  if (value !== '' && !QUALIFIED_NAME.test(value)) {
    errs.push(regexError(LABEL_VALUE_MSG, `(${QUALIFIED_NAME_FMT})?`, 'MyValue', 'my_value', '12345'));
  }
  return errs;
}

// Go's json.Marshal of a []string (HTML-escaping included); a nil slice is `null`.
function goJsonStrings(values: readonly string[]): string {
  if (values.length === 0) return 'null';
  return JSON.stringify(values)
    .replaceAll('<', '\\u003c')
    .replaceAll('>', '\\u003e')
    .replaceAll('&', '\\u0026')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');
}

// Kubernetes' aggregate error text: one message alone, several as `[a, b]`, duplicates dropped.
function aggregate(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? (unique[0] ?? '') : `[${unique.join(', ')}]`;
}

function newRequirement(key: string, op: Op, values: readonly string[]): Result<Requirement, string> {
  const errs: string[] = [];
  const keyErrs = labelKeyErrors(key);
  if (keyErrs.length > 0) errs.push(`key: Invalid value: ${goQuote(key)}: ${keyErrs.join('; ')}`);
  if ((op === 'In' || op === 'NotIn') && values.length === 0) {
    errs.push(`values: Invalid value: ${goJsonStrings(values)}: for 'in', 'notin' operators, values set can't be empty`);
  }
  if ((op === 'Exists' || op === 'DoesNotExist') && values.length !== 0) {
    errs.push(`values: Invalid value: ${goJsonStrings(values)}: values set must be empty for exists and does not exist`);
  }
  for (const [i, v] of values.entries()) {
    const valueErrs = labelValueErrors(v);
    if (valueErrs.length > 0) errs.push(`values[${i}][${key}]: Invalid value: ${goQuote(v)}: ${valueErrs.join('; ')}`);
  }
  return errs.length > 0 ? err(aggregate(errs)) : ok({ key, op, values });
}

function requirementMatches(r: Requirement, labels: Labels): boolean {
  const has = Object.hasOwn(labels, r.key);
  switch (r.op) {
    case 'In':
      return has && r.values.includes(labels[r.key] ?? '');
    case 'NotIn':
      return !has || !r.values.includes(labels[r.key] ?? '');
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
  }
}

/**
 * Converts a LabelSelector into a matcher, validating it like the Kubernetes API machinery:
 * errors are its texts, e.g. `"bad" is not a valid label selector operator`,
 * `key: Invalid value: ...`, `values[0][<key>]: Invalid value: ...`. `matchLabels` are
 * checked first (in key order, for a deterministic first error), then `matchExpressions`
 * in order. nil and empty selectors match everything.
 */
export function parseLabelSelector(selector: LabelSelector | null | undefined): Result<LabelMatcher, string> {
  const reqs: Requirement[] = [];
  const matchLabels = selector?.matchLabels ?? {};
  for (const key of Object.keys(matchLabels).sort()) {
    const r = newRequirement(key, 'In', [matchLabels[key] ?? '']);
    if (!r.ok) return r;
    reqs.push(r.value);
  }
  for (const expr of selector?.matchExpressions ?? []) {
    const op = expr.operator;
    if (op !== 'In' && op !== 'NotIn' && op !== 'Exists' && op !== 'DoesNotExist') {
      return err(`${goQuote(op)} is not a valid label selector operator`);
    }
    const r = newRequirement(expr.key, op, expr.values ?? []);
    if (!r.ok) return r;
    reqs.push(r.value);
  }
  return ok((labels) => reqs.every((r) => requirementMatches(r, labels ?? {})));
}

/** Prefix of every catalog-selector error (E-sel). */
const SELECTOR_ERROR_PREFIX = 'desired catalog selector is invalid: ';

/**
 * The catalogs whose labels match `selector`, in input order (Step 1 and the selection half
 * of Step 3). Errors are E-sel: `desired catalog selector is invalid: <reason>`. Dropping
 * `Unavailable` catalogs is the caller's job. Real ClusterCatalogs always carry the
 * `olm.operatorframework.io/metadata.name` label, so callers pass labels as stored.
 */
export function selectCatalogs<T extends { readonly labels?: Labels | undefined }>(
  catalogs: readonly T[],
  selector: LabelSelector | null | undefined,
): Result<T[], string> {
  const matcher = parseLabelSelector(selector);
  if (!matcher.ok) return err(SELECTOR_ERROR_PREFIX + matcher.error);
  return ok(catalogs.filter((c) => matcher.value(c.labels)));
}
