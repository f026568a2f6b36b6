/**
 * The ExtensionPolicy kind (v1alpha1, cluster-scoped): which packages, versions, channels,
 * catalogs and install modes the namespaces it selects may install through Extensions, and
 * whether their upgrades wait for the administrator. Writing one, the administrator consents to
 * what those bundles install cluster-wide (their CRDs and cluster roles).
 */
import { z } from 'zod';
import type { Result } from '../../errors/index.ts';
import { LabelSelector, ObjectMeta } from '../v1/object-meta.ts';
import { parseObject } from '../v1/parse.ts';
import { EXTENSION_POLICY, TENANT_API_VERSION } from './names.ts';

/** Install modes a policy may allow (registry+v1's, as OLM v1 supports them). */
export const TenantInstallMode = {
  OwnNamespace: 'OwnNamespace',
  SingleNamespace: 'SingleNamespace',
  AllNamespaces: 'AllNamespaces',
} as const;

/** One of OwnNamespace, SingleNamespace, AllNamespaces. */
export type TenantInstallMode = (typeof TenantInstallMode)[keyof typeof TenantInstallMode];

/** Values of `spec.upgrades`. */
export const TenantUpgrades = {
  /** Upgrades within the allowed range happen as the tenant's request resolves. */
  Automatic: 'Automatic',
  /** An upgrade waits until the administrator approves its bundle on the ClusterExtension. */
  Manual: 'Manual',
} as const;

/** `spec.packages[]`: a package, and optionally the versions and channels allowed. */
const PolicyPackage = z.object({
  name: z.string().min(1),
  versionRange: z.string().optional(),
  channels: z.array(z.string()).optional(),
});

/** `spec.packages[]`; see the `PolicyPackage` schema. */
export type PolicyPackage = z.infer<typeof PolicyPackage>;

/** `spec` of an ExtensionPolicy; absent lists mean their defaults (every catalog, OwnNamespace only). */
const ExtensionPolicySpec = z.object({
  namespaceSelector: LabelSelector,
  packages: z.array(PolicyPackage).min(1),
  /** Names of the ClusterCatalogs requests may install from; absent: every catalog. */
  catalogs: z.array(z.string()).optional(),
  installModes: z
    .array(z.enum([TenantInstallMode.OwnNamespace, TenantInstallMode.SingleNamespace, TenantInstallMode.AllNamespaces]))
    .default([TenantInstallMode.OwnNamespace]),
  upgrades: z.enum([TenantUpgrades.Automatic, TenantUpgrades.Manual]).default(TenantUpgrades.Automatic),
});

/** `spec` of an ExtensionPolicy; see the `ExtensionPolicySpec` schema. */
type ExtensionPolicySpec = z.infer<typeof ExtensionPolicySpec>;

/** An ExtensionPolicy as our code sees it. */
export const ExtensionPolicy = z.object({
  apiVersion: z.literal(TENANT_API_VERSION).optional(),
  kind: z.literal(EXTENSION_POLICY.kind).optional(),
  metadata: ObjectMeta,
  spec: ExtensionPolicySpec,
});

/** A parsed ExtensionPolicy; see the `ExtensionPolicy` schema. */
export type ExtensionPolicy = z.infer<typeof ExtensionPolicy>;

/** Parses an ExtensionPolicy; fails (never throws) with one line naming every bad field path. */
export function parseExtensionPolicy(input: unknown): Result<ExtensionPolicy, string> {
  return parseObject(ExtensionPolicy, EXTENSION_POLICY.kind, input);
}
