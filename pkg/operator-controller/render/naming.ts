/**
 * Object naming helpers that must match upstream bit for bit, because names of generated
 * objects are observable (and old names must be recognised after an upgrade).
 */
import { createHash } from 'node:crypto';
import { goJsonString } from '../bundle/index.ts';
import type { PolicyRule, StrategyPermission } from '../bundle/index.ts';

const MAX_NAME_LENGTH = 63;

/**
 * `ObjectNameForBaseAndSuffix`: `base-suffix`, with `base` cut to `63 - len(suffix) - 1`
 * characters when the whole would exceed 63. Lengths are counted in bytes as Go does
 * (names are ASCII in practice). The result can still exceed 63 when `suffix` alone does.
 */
export function objectNameForBaseAndSuffix(base: string, suffix: string): string {
  const baseBytes = Buffer.byteLength(base);
  const suffixBytes = Buffer.byteLength(suffix);
  let b = base;
  if (baseBytes + suffixBytes > MAX_NAME_LENGTH) {
    b = Buffer.from(base)
      .subarray(0, Math.max(0, MAX_NAME_LENGTH - suffixBytes - 1))
      .toString();
  }
  return `${b}-${suffix}`;
}

/**
 * Upstream `DeepHashObject`: SHA-224 of the Go `json.Encoder` output of `json` (already
 * Go-encoded JSON text, without the trailing newline the encoder adds), read as a big-endian
 * unsigned integer and written in base 36 (lower case, no padding).
 */
export function deepHashJson(json: string): string {
  const digest = createHash('sha224').update(`${json}\n`).digest('hex');
  return BigInt(`0x${digest}`).toString(36);
}

/**
 * Go JSON of a `StrategyDeploymentPermissions`, field order `serviceAccountName, rules`;
 * each rule `verbs` (always present, `null` when unset), then `apiGroups`, `resources`,
 * `resourceNames`, `nonResourceURLs` (omitted when empty); `rules` is `null` when unset.
 */
export function encodePermission(permission: StrategyPermission): string {
  const sa = goJsonString(permission.serviceAccountName ?? '');
  const rules = permission.rules;
  const rulesJson = rules === undefined || rules === null ? 'null' : `[${rules.map(encodeRule).join(',')}]`;
  return `{"serviceAccountName":${sa},"rules":${rulesJson}}`;
}

function encodeRule(rule: PolicyRule): string {
  const parts = [`"verbs":${encodeList(rule.verbs)}`];
  for (const field of ['apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const) {
    const list = rule[field];
    if (list !== undefined && list !== null && list.length > 0) parts.push(`"${field}":${encodeList(list)}`);
  }
  return `{${parts.join(',')}}`;
}

function encodeList(list: readonly string[] | null | undefined): string {
  if (list === undefined || list === null) return 'null';
  return `[${list.map(goJsonString).join(',')}]`;
}

/**
 * The name of the Role/ClusterRole (and binding) generated for a CSV permission:
 * `ObjectNameForBaseAndSuffix("<csvName>-<saName>", DeepHashObject(permission))`.
 */
export function permissionObjectName(csvName: string, saName: string, permission: StrategyPermission): string {
  return objectNameForBaseAndSuffix(`${csvName}-${saName}`, deepHashJson(encodePermission(permission)));
}
