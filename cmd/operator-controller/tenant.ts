/**
 * TenantExtensions (decision 0138): while this replica leads, the tenant controller over its own
 * informers (Extensions in every namespace, ExtensionPolicies) and the process's ClusterExtension
 * and ClusterCatalog informers, resolving through the same catalog content cache and pulling
 * bundles into the same image cache as the ClusterExtension controller. Where the tenant CRDs are
 * not served (the gate on without config/tenant-extensions), it says so and does nothing.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { EXTENSION, EXTENSION_POLICY } from '../../pkg/shared/api/index.ts';
import { stepDurationTimer } from '../../pkg/shared/controller/index.ts';
import type { ImageCache, ImageClient } from '../../pkg/shared/image/index.ts';
import { Informer, clientListWatch, stripManagedFields, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import type { MemoryPort } from '../../pkg/operator-controller/bundlepull/index.ts';
import type { CatalogSource } from '../../pkg/operator-controller/dependencyview/index.ts';
import type { RenderFeatures } from '../../pkg/operator-controller/render/index.ts';
import { TENANT_CONTROLLER_NAME, createTenantController, installerOf, resolveRequest } from '../../pkg/operator-controller/tenant/index.ts';

/** What the tenant controller is composed from. */
interface TenantParts {
  log: Logger;
  registry: Registry;
  kube: KubeContext;
  clusterExtensions: Informer<KubeObject>;
  catalogs: Informer<KubeObject>;
  catalogSource: CatalogSource;
  bundles: { images: Pick<ImageClient, 'pull'>; cache: ImageCache; memory: MemoryPort };
  features: RenderFeatures;
  concurrency: number;
}

/** Runs the tenant controller until `leading` aborts. */
export async function runTenantController(t: TenantParts, leading: AbortSignal): Promise<void> {
  const { kube, log, registry } = t;
  const served = await Promise.all(
    [EXTENSION, EXTENSION_POLICY].map((k) =>
      kube.mapper.resolve({ group: k.group, version: k.version, kind: k.kind }, leading).then(
        () => true,
        () => false,
      ),
    ),
  );
  if (served.includes(false)) {
    log.warn({ kinds: [EXTENSION.crdName, EXTENSION_POLICY.crdName] }, 'TenantExtensions is on but its CRDs are not served: no tenant controller');
    return;
  }
  const informer = (k: { apiVersion: string; kind: string; plural: string }): Informer<KubeObject> =>
    new Informer({
      name: k.plural,
      source: clientListWatch(kube.client, { apiVersion: k.apiVersion, kind: k.kind }),
      log,
      registry,
      transform: stripManagedFields,
    });
  const extensions = informer(EXTENSION);
  const policies = informer(EXTENSION_POLICY);
  for (const i of [extensions, policies]) void i.run(leading);
  const controller = createTenantController({
    ports: {
      client: kube.client,
      resolve: (r, signal) => resolveRequest(t.catalogSource, r, signal),
      installer: (req, signal) => installerOf(t.bundles, req, signal),
      renderFeatures: t.features,
      log,
    },
    informers: { extensions, policies, clusterExtensions: t.clusterExtensions, catalogs: t.catalogs },
    log,
    registry,
    concurrency: t.concurrency,
    stepTimer: stepDurationTimer(registry, TENANT_CONTROLLER_NAME),
  });
  await controller.run(leading);
}
