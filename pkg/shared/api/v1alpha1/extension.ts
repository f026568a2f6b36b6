/**
 * The Extension kind (v1alpha1, namespaced): a tenant's request to install one package into its
 * own namespace, allowed or refused by the cluster's ExtensionPolicies. Its spec follows
 * ClusterExtension's where it can; the install namespace is its own namespace. Shape only: the
 * API server validates against config/crd/tenant.
 */
import { z } from 'zod';
import type { Result } from '../../errors/index.ts';
import { BundleMetadata, CatalogFilter } from '../v1/cluster-extension.ts';
import { Condition } from '../v1/conditions.ts';
import { ObjectMeta } from '../v1/object-meta.ts';
import { parseObject } from '../v1/parse.ts';
import { EXTENSION, TENANT_API_VERSION } from './names.ts';

/** `spec` of an Extension. */
const ExtensionSpec = z.object({
  source: z.object({ sourceType: z.literal('Catalog'), catalog: CatalogFilter }),
  /**
   * `inline.watchNamespace`: absent or the request's namespace is OwnNamespace, another
   * namespace SingleNamespace, `""` AllNamespaces (each only where the policy allows it).
   */
  config: z.object({ configType: z.literal('Inline'), inline: z.record(z.string(), z.unknown()) }).optional(),
  /** A ServiceAccount of the request's namespace, used only for a bundle whose objects all live in that namespace. */
  serviceAccount: z.object({ name: z.string().min(1) }).optional(),
});

/** `spec` of an Extension; see the `ExtensionSpec` schema. */
type ExtensionSpec = z.infer<typeof ExtensionSpec>;

/** `status` of an Extension, written only by the tenant controller. */
const ExtensionStatus = z.object({
  conditions: z.array(Condition).optional(),
  install: z.object({ bundle: BundleMetadata }).optional(),
  /** The ClusterExtension made for the request, and the policy that allowed it. */
  clusterExtensionName: z.string().optional(),
  policy: z.string().optional(),
});

/** `status` of an Extension; see the `ExtensionStatus` schema. */
type ExtensionStatus = z.infer<typeof ExtensionStatus>;

/** An Extension as our code sees it: `metadata.namespace` is required. */
export const Extension = z.object({
  apiVersion: z.literal(TENANT_API_VERSION).optional(),
  kind: z.literal(EXTENSION.kind).optional(),
  metadata: ObjectMeta.extend({ namespace: z.string().min(1) }),
  spec: ExtensionSpec,
  status: ExtensionStatus.optional(),
});

/** A parsed Extension; see the `Extension` schema. */
export type Extension = z.infer<typeof Extension>;

/** Parses an Extension; fails (never throws) with one line naming every bad field path. */
export function parseExtension(input: unknown): Result<Extension, string> {
  return parseObject(Extension, EXTENSION.kind, input);
}
