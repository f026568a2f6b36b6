/**
 * CRD and passthrough generators (upstream `BundleCRDGenerator`, `BundleAdditionalResourcesGenerator`):
 * objects as written, except that CRDs a conversion webhook names get `spec.conversion` and CA
 * injection, and namespaced kinds go to the install namespace. Changed objects are shallow copies.
 */
import type { KubeObject, RegistryV1Bundle, WebhookDescription } from '../bundle/index.ts';
import { certNamesFor, type CertProvider } from './cert-providers.ts';
import { webhookDefinitions } from './csv-access.ts';
import { err, ok, type Result } from '../../shared/errors/index.ts';
import { isNamespacedKind, isSupportedKind } from './resource-mapping.ts';

/** The bundle's CRDs with conversion webhooks wired in, or upstream's refusal text. */
export function generateCrds(bundle: RegistryV1Bundle, installNamespace: string, provider: CertProvider | undefined): Result<KubeObject[], string> {
  const conversionFor = new Map<string, WebhookDescription>();
  for (const wh of webhookDefinitions(bundle.csv)) {
    if (wh.type !== 'ConversionWebhook') continue;
    for (const crd of wh.conversionCRDs ?? []) {
      if (conversionFor.has(crd)) return err(`custom resource definition '${crd}' is referenced by multiple conversion webhook definitions`);
      conversionFor.set(crd, wh);
    }
  }
  const out: KubeObject[] = [];
  for (const crd of bundle.crds) {
    const wh = conversionFor.get(crd.metadata.name);
    if (wh === undefined) {
      out.push(crd);
      continue;
    }
    const spec = (crd['spec'] ?? {}) as Record<string, unknown>;
    if (spec['preserveUnknownFields'] === true) {
      return err(
        `custom resource definition '${crd.metadata.name}' must have .spec.preserveUnknownFields set to false to let API Server call webhook to do the conversion`,
      );
    }
    const names = certNamesFor(wh.deploymentName ?? '', installNamespace);
    const webhook: Record<string, unknown> = {
      clientConfig: {
        service: { namespace: installNamespace, name: names.serviceName, path: wh.webhookPath ?? '/', port: wh.containerPort ?? 0 },
      },
    };
    if (wh.admissionReviewVersions !== undefined && wh.admissionReviewVersions !== null) {
      webhook['conversionReviewVersions'] = wh.admissionReviewVersions;
    }
    const converted: KubeObject = { ...crd, spec: { ...spec, conversion: { strategy: 'Webhook', webhook } } };
    out.push(provider === undefined ? converted : provider.injectCABundle(converted, names));
  }
  return ok(out);
}

/** The bundle's other objects, namespaced kinds moved to the install namespace. */
export function generateOthers(bundle: RegistryV1Bundle, installNamespace: string): Result<KubeObject[], string> {
  const out: KubeObject[] = [];
  for (const obj of bundle.others) {
    if (!isSupportedKind(obj.kind)) {
      return err(`bundle contains unsupported resource: Name: ${String(obj.metadata?.name ?? '')}, Kind: ${obj.kind}`);
    }
    out.push(isNamespacedKind(obj.kind) ? { ...obj, metadata: { ...obj.metadata, namespace: installNamespace } } : obj);
  }
  return ok(out);
}
