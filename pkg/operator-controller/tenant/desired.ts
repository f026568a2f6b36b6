/**
 * What the tenant controller writes for an allowed request (decision 0138), pure: the
 * ClusterExtension, pinned to the one bundle version the installer was computed for, and the
 * installer's objects, each labelled with the request.
 */
import { createHash } from 'node:crypto';
import { CLUSTER_EXTENSION, TENANT_BUNDLE_LABEL, TENANT_GENERATION_ANNOTATION, TenantInstallMode, type Extension } from '../../shared/api/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import type { LabelSelector } from '../resolve/index.ts';
import { ownerLabels, type RequestRef } from './naming.ts';

/** What the ClusterExtension is made of. */
interface ClusterExtensionInput {
  ext: Extension;
  req: RequestRef;
  name: string;
  /** The exact version to install: the one the installer was computed for. */
  version: string;
  serviceAccount: string;
  installMode: TenantInstallMode;
  channels: readonly string[];
  selector: LabelSelector | undefined;
}

/** The ClusterExtension for `input`: install namespace and watch namespace the request's, as its install mode says. */
export function desiredClusterExtension(input: ClusterExtensionInput): KubeObject {
  const { ext, req } = input;
  const src = ext.spec.source.catalog;
  const config = requestConfig(ext, input.installMode);
  return {
    apiVersion: CLUSTER_EXTENSION.apiVersion,
    kind: CLUSTER_EXTENSION.kind,
    metadata: {
      name: input.name,
      labels: ownerLabels(req),
      annotations: { [TENANT_GENERATION_ANNOTATION]: String(ext.metadata.generation ?? 0) },
    },
    spec: {
      namespace: req.namespace,
      serviceAccount: { name: input.serviceAccount },
      source: {
        sourceType: 'Catalog',
        catalog: {
          packageName: src.packageName,
          version: input.version,
          ...(input.channels.length === 0 ? {} : { channels: [...input.channels] }),
          ...(input.selector === undefined ? {} : { selector: input.selector }),
          upgradeConstraintPolicy: src.upgradeConstraintPolicy,
        },
      },
      ...(config === undefined ? {} : { config: { configType: 'Inline', inline: config } }),
    },
  };
}

/**
 * The bundle configuration: the request's, with `watchNamespace` its own namespace for
 * OwnNamespace and left out for AllNamespaces; undefined when nothing is left.
 */
export function requestConfig(ext: Extension, mode: TenantInstallMode): Record<string, unknown> | undefined {
  const inline: Record<string, unknown> = { ...(ext.spec.config?.inline ?? {}) };
  if (mode === TenantInstallMode.OwnNamespace) inline['watchNamespace'] = ext.metadata.namespace;
  if (mode === TenantInstallMode.AllNamespaces) delete inline['watchNamespace'];
  return Object.keys(inline).length === 0 ? undefined : inline;
}

/**
 * The installer's objects labelled with the request; the Roles and bindings also with the bundle
 * they were computed for (a hash when its name cannot be a label value), so an upgrade's old
 * grants are found and removed once it is done.
 */
export function labelledInstaller(objects: readonly KubeObject[], req: RequestRef, bundleName: string): KubeObject[] {
  const labels = ownerLabels(req);
  const bundle = bundleLabelValue(bundleName);
  return objects.map((o) => ({
    ...o,
    metadata: {
      ...o.metadata,
      labels: { ...o.metadata.labels, ...labels, ...(o.kind === 'ServiceAccount' ? {} : { [TENANT_BUNDLE_LABEL]: bundle }) },
    },
  }));
}

/** `bundleName` as a label value: itself when it is one, else a hash of it. */
export function bundleLabelValue(bundleName: string): string {
  if (bundleName.length <= 63 && /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(bundleName)) return bundleName;
  return createHash('sha256').update(bundleName).digest('hex').slice(0, 40);
}
