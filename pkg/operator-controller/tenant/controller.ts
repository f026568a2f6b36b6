/**
 * The tenant controller (decision 0138): Extensions reconciled by the tenant reconciler, each
 * queued again when its ClusterExtension changes (found by its labels), and all of them when a
 * policy or a catalog changes (a policy may now allow or refuse them; new catalog content may
 * hold an upgrade).
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { EXTENSION, parseExtensionPolicy, type ExtensionPolicy } from '../../shared/api/index.ts';
import { Controller, type StepTimer } from '../../shared/controller/index.ts';
import type { Informer, KubeObject } from '../../shared/kube/index.ts';
import { requestKeyOf } from './naming.ts';
import { createTenantReconciler, type TenantPorts } from './reconciler.ts';

/** The controller's name (metrics, logs). */
export const TENANT_CONTROLLER_NAME = 'controller-operator-extension-controller';

/** What the tenant controller is built from. */
interface TenantControllerOptions {
  ports: Omit<TenantPorts, 'policies' | 'clusterExtensions'>;
  /** Extensions (every namespace), ExtensionPolicies, ClusterExtensions, ClusterCatalogs. */
  informers: {
    extensions: Informer<KubeObject>;
    policies: Informer<KubeObject>;
    clusterExtensions: Informer<KubeObject>;
    catalogs: Informer<KubeObject>;
  };
  log: Logger;
  registry?: Registry;
  concurrency?: number;
  stepTimer?: StepTimer;
}

/** The policies that parse; one that does not is left out (the API server's validation makes that rare). */
function parsedPolicies(informer: Informer<KubeObject>): ExtensionPolicy[] {
  const out: ExtensionPolicy[] = [];
  for (const obj of informer.list()) {
    const parsed = parseExtensionPolicy(obj);
    if (parsed.ok) out.push(parsed.value);
  }
  return out;
}

/** See the module comment. */
export function createTenantController(o: TenantControllerOptions): Controller {
  const { extensions, policies, clusterExtensions, catalogs } = o.informers;
  const reconciler = createTenantReconciler({ ...o.ports, policies: () => parsedPolicies(policies), clusterExtensions }, o.stepTimer);
  const everyRequest = () => extensions.keys();
  return new Controller({
    name: TENANT_CONTROLLER_NAME,
    reconciler,
    log: o.log,
    ...(o.registry === undefined ? {} : { registry: o.registry }),
    concurrency: o.concurrency ?? 1,
    reconciles: { apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind },
    watches: [
      { informer: extensions },
      { informer: clusterExtensions, keys: (_t, obj) => requestKeyOf(obj) },
      { informer: policies, keys: everyRequest },
      { informer: catalogs, keys: everyRequest },
    ],
  });
}
