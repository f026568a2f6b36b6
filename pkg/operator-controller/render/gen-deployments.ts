/**
 * Deployment generator (upstream `BundleCSVDeploymentGenerator`): one `apps/v1` Deployment
 * per CSV install-strategy deployment, in the install namespace, labelled with the
 * strategy's `label` map only, with
 *
 * - pod template annotations = CSV annotations overlaid by the template's own, then
 *   `olm.targetNamespaces` (targets joined with ",") and `olm.operatorNamespace` forced;
 * - `revisionHistoryLimit: 1`;
 * - certificate volumes when the Deployment serves webhooks and a provider is configured;
 * - the `deploymentConfig` customisations applied, then the cluster-wide proxy unless they set
 *   it (cluster-proxy.ts).
 *
 * The bundle is never mutated: the Deployment, its spec, template, pod spec and containers
 * are fresh copies; everything below them is shared until replaced.
 */
import type { JsonObject, KubeObject, RegistryV1Bundle } from '../bundle/index.ts';
import { certNamesFor, type CertProvider } from './cert-providers.ts';
import { csvAnnotations, strategyDeployments, webhookDefinitions } from './csv-access.ts';
import type { DeploymentConfig } from './bundle-config.ts';
import { applyDeploymentConfig, type WorkingPod } from './deployment-config.ts';
import { applyClusterProxy, type ClusterProxy } from './cluster-proxy.ts';

const CERT_VOLUMES = [
  { name: 'webhook-cert', path: '/tmp/k8s-webhook-server/serving-certs', certPath: 'tls.crt', keyPath: 'tls.key' },
  { name: 'apiservice-cert', path: '/apiserver.local.config/certificates', certPath: 'apiserver.crt', keyPath: 'apiserver.key' },
] as const;

/** Inputs of `generateDeployments`. */
interface DeploymentOptions {
  installNamespace: string;
  targetNamespaces: readonly string[];
  provider?: CertProvider;
  deploymentConfig?: DeploymentConfig;
  clusterProxy?: ClusterProxy;
}

/** The Deployments of the CSV's install strategy. */
export function generateDeployments(bundle: RegistryV1Bundle, opts: DeploymentOptions): KubeObject[] {
  const webhookDeployments = new Set(webhookDefinitions(bundle.csv).map((wh) => wh.deploymentName ?? ''));
  const out: KubeObject[] = [];
  for (const strategy of strategyDeployments(bundle.csv)) {
    const name = strategy.name ?? '';
    const spec = (strategy.spec ?? {}) as JsonObject;
    const template = (spec['template'] ?? {}) as JsonObject;
    const templateMeta = (template['metadata'] ?? {}) as JsonObject;
    const annotations: Record<string, string> = {
      ...csvAnnotations(bundle.csv),
      ...((templateMeta['annotations'] ?? {}) as Record<string, string>),
      'olm.targetNamespaces': opts.targetNamespaces.join(','),
      'olm.operatorNamespace': opts.installNamespace,
    };
    const podSpec: JsonObject = { ...((template['spec'] ?? {}) as JsonObject) };
    const containers = Array.isArray(podSpec['containers']) ? (podSpec['containers'] as JsonObject[]).map((c) => ({ ...c })) : [];
    if (Array.isArray(podSpec['containers'])) podSpec['containers'] = containers;
    const metadata: JsonObject = { name, namespace: opts.installNamespace };
    if (strategy.label !== undefined && strategy.label !== null) metadata['labels'] = strategy.label;
    const deployment: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata,
      spec: {
        ...spec,
        revisionHistoryLimit: 1,
        template: { ...template, metadata: { ...templateMeta, annotations }, spec: podSpec },
      },
    };
    const pod: WorkingPod = { deploymentMeta: metadata, templateAnnotations: annotations, podSpec, containers };
    if (opts.provider !== undefined && webhookDeployments.has(name)) {
      ensureCertVolumes(pod, opts.provider.secretInfo(certNamesFor(name, opts.installNamespace)).secretName);
    }
    if (opts.deploymentConfig !== undefined) applyDeploymentConfig(pod, opts.deploymentConfig);
    if (opts.clusterProxy !== undefined) applyClusterProxy(containers, opts.clusterProxy, opts.deploymentConfig);
    out.push(deployment);
  }
  return out;
}

/**
 * Replaces the certificate volumes: drops volumes named `webhook-cert`/`apiservice-cert`
 * and any volume mounted at a certificate path, drops their mounts from every container,
 * then adds both volumes (from `secretName`) and mounts them in every container.
 */
function ensureCertVolumes(pod: WorkingPod, secretName: string): void {
  const remove = new Set<string>(CERT_VOLUMES.map((v) => v.name));
  const protectedPaths = new Set<string>(CERT_VOLUMES.map((v) => v.path));
  for (const c of pod.containers) {
    for (const m of (c['volumeMounts'] ?? []) as JsonObject[]) {
      if (protectedPaths.has(m['mountPath'] as string)) remove.add(m['name'] as string);
    }
  }
  const volumes = ((pod.podSpec['volumes'] ?? []) as JsonObject[]).filter((v) => !remove.has(v['name'] as string));
  pod.podSpec['volumes'] = [
    ...volumes,
    ...CERT_VOLUMES.map((v) => ({
      name: v.name,
      secret: {
        secretName,
        items: [
          { key: 'tls.crt', path: v.certPath },
          { key: 'tls.key', path: v.keyPath },
        ],
      },
    })),
  ];
  for (const c of pod.containers) {
    const mounts = ((c['volumeMounts'] ?? []) as JsonObject[]).filter((m) => !remove.has(m['name'] as string));
    c['volumeMounts'] = [...mounts, ...CERT_VOLUMES.map((v) => ({ name: v.name, mountPath: v.path }))];
  }
}
