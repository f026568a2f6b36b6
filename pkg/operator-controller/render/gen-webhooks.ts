/**
 * Admission webhook generators (upstream `BundleValidatingWebhookResourceGenerator`,
 * `BundleMutatingWebhookResourceGenerator`, `BundleDeploymentServiceResourceGenerator`,
 * `CertProviderResourceGenerator`):
 *
 * - one Validating/MutatingWebhookConfiguration per definition, named after
 *   `generateName` minus one trailing "-", holding one webhook of the same name whose
 *   client config points at the Deployment's webhook Service, and whose
 *   `namespaceSelector` is computed from the target namespaces (none for all namespaces);
 * - one Service per webhook-serving Deployment, ports de-duplicated and sorted;
 * - the certificate provider's extra objects per webhook-serving Deployment.
 */
import type { JsonObject, KubeObject, RegistryV1Bundle, WebhookDescription } from '../bundle/index.ts';
import { certNamesFor, type CertProvider } from './cert-providers.ts';
import { strategyDeployments, webhookDefinitions } from './csv-access.ts';

const ADMISSION_API_VERSION = 'admissionregistration.k8s.io/v1';

/** Webhook configurations for validating and mutating webhook definitions. */
export function generateWebhookConfigurations(
  bundle: RegistryV1Bundle,
  installNamespace: string,
  targets: readonly string[],
  provider: CertProvider | undefined,
): KubeObject[] {
  const out: KubeObject[] = [];
  for (const type of ['ValidatingAdmissionWebhook', 'MutatingAdmissionWebhook'] as const) {
    for (const wh of webhookDefinitions(bundle.csv)) {
      if (wh.type !== type) continue;
      const names = certNamesFor(wh.deploymentName ?? '', installNamespace);
      const name = (wh.generateName ?? '').replace(/-$/, '');
      const webhook: JsonObject = { name, ...copied(wh, type === 'MutatingAdmissionWebhook') };
      const service: JsonObject = { namespace: installNamespace, name: names.serviceName };
      if (wh.webhookPath !== undefined && wh.webhookPath !== null) service['path'] = wh.webhookPath;
      service['port'] = wh.containerPort ?? 0;
      webhook['clientConfig'] = { service };
      const selector = namespaceSelector(targets);
      if (selector !== undefined) webhook['namespaceSelector'] = selector;
      const obj: KubeObject = {
        apiVersion: ADMISSION_API_VERSION,
        kind: type === 'ValidatingAdmissionWebhook' ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration',
        metadata: { name, namespace: installNamespace },
        webhooks: [webhook],
      };
      out.push(provider === undefined ? obj : provider.injectCABundle(obj, names));
    }
  }
  return out;
}

const COPIED_FIELDS = [
  'rules',
  'failurePolicy',
  'matchPolicy',
  'objectSelector',
  'sideEffects',
  'timeoutSeconds',
  'admissionReviewVersions',
] as const;

function copied(wh: WebhookDescription, mutating: boolean): JsonObject {
  const out: JsonObject = {};
  for (const field of COPIED_FIELDS) {
    const value = wh[field];
    if (value !== undefined && value !== null) out[field] = value;
  }
  if (mutating && wh.reinvocationPolicy !== undefined && wh.reinvocationPolicy !== null) {
    out['reinvocationPolicy'] = wh.reinvocationPolicy;
  }
  return out;
}

/** `kubernetes.io/metadata.name In <targets>`, or undefined when targets include all namespaces. */
function namespaceSelector(targets: readonly string[]): JsonObject | undefined {
  if (targets.length === 0 || targets.includes('')) return undefined;
  return { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [...targets] }] };
}

interface ServicePort {
  name: string;
  port: number;
  targetPort: number | string;
}

/** One Service per webhook-serving Deployment (in CSV deployment order). */
export function generateWebhookServices(bundle: RegistryV1Bundle, installNamespace: string, provider: CertProvider | undefined): KubeObject[] {
  const portsByDeployment = new Map<string, ServicePort[]>();
  for (const wh of webhookDefinitions(bundle.csv)) {
    const dep = wh.deploymentName ?? '';
    const ports = portsByDeployment.get(dep) ?? [];
    const port = servicePort(wh);
    if (!ports.some((p) => p.name === port.name && p.port === port.port && p.targetPort === port.targetPort)) ports.push(port);
    portsByDeployment.set(dep, ports);
  }
  const out: KubeObject[] = [];
  for (const strategy of strategyDeployments(bundle.csv)) {
    const ports = portsByDeployment.get(strategy.name ?? '');
    if (ports === undefined) continue;
    const sorted = [...ports].sort((a, b) => a.port - b.port || intValue(a.targetPort) - intValue(b.targetPort));
    const names = certNamesFor(strategy.name ?? '', installNamespace);
    const spec: JsonObject = { ports: sorted };
    const selector = strategy.spec?.selector?.matchLabels;
    if (selector !== undefined && selector !== null) spec['selector'] = selector;
    const service: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: names.serviceName, namespace: installNamespace },
      spec,
    };
    out.push(provider === undefined ? service : provider.injectCABundle(service, names));
  }
  return out;
}

function servicePort(wh: WebhookDescription): ServicePort {
  const port = wh.containerPort !== undefined && wh.containerPort !== null && wh.containerPort > 0 ? wh.containerPort : 443;
  return { name: String(port), port, targetPort: wh.targetPort ?? port };
}

// Go's IntOrString.IntValue(): the number, or a string parsed as an integer (0 if not one).
function intValue(v: number | string): number {
  if (typeof v === 'number') return v;
  return /^[+-]?\d+$/.test(v) ? Number.parseInt(v, 10) : 0;
}

/** The certificate provider's extra objects for each webhook-serving Deployment. */
export function generateCertProviderObjects(bundle: RegistryV1Bundle, installNamespace: string, provider: CertProvider | undefined): KubeObject[] {
  if (provider === undefined) return [];
  const deployments = new Set(webhookDefinitions(bundle.csv).map((wh) => wh.deploymentName ?? ''));
  return [...deployments].flatMap((dep) => provider.additionalObjects(certNamesFor(dep, installNamespace)));
}
