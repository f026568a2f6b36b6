/**
 * Certificate providers for webhook serving certificates (upstream `CertificateProvider`
 * implementations):
 *
 * - `cert-manager`: annotates webhook configurations and converted CRDs with
 *   `cert-manager.io/inject-ca-from: <ns>/<certName>` and adds a self-signed `Issuer` and a
 *   `Certificate` per webhook-serving Deployment;
 * - `openshift-service-ca`: annotates webhook configurations and converted CRDs with
 *   `service.beta.openshift.io/inject-cabundle: "true"` and the webhook Service with
 *   `service.beta.openshift.io/serving-cert-secret-name: <certName>`.
 *
 * Both store the certificate in Secret `<certName>` under keys `tls.crt` / `tls.key`.
 */
import type { KubeObject } from '../bundle/index.ts';
import { objectNameForBaseAndSuffix } from './naming.ts';
import type { CertProviderName } from './types.ts';

/** Names derived from a webhook-serving Deployment (upstream `CertProvisionerFor`). */
interface CertNames {
  /** `ObjectNameForBaseAndSuffix(<deployment with "." -> "-">, "service")`. */
  serviceName: string;
  /** `ObjectNameForBaseAndSuffix(serviceName, "cert")`; also the Secret name. */
  certName: string;
  namespace: string;
}

/** Where the serving certificate lives. */
interface CertSecretInfo {
  secretName: string;
  certificateKey: string;
  privateKeyKey: string;
}

/** A certificate provider: annotation injection, extra objects, secret location. */
export interface CertProvider {
  readonly name: CertProviderName;
  /** A copy of `obj` with the provider's annotations when its kind needs them, else `obj`. */
  injectCABundle(obj: KubeObject, names: CertNames): KubeObject;
  additionalObjects(names: CertNames): KubeObject[];
  secretInfo(names: CertNames): CertSecretInfo;
}

/** The names for a Deployment serving webhooks in `namespace`. */
export function certNamesFor(deploymentName: string, namespace: string): CertNames {
  const serviceName = objectNameForBaseAndSuffix(deploymentName.replaceAll('.', '-'), 'service');
  return { serviceName, certName: objectNameForBaseAndSuffix(serviceName, 'cert'), namespace };
}

/** The provider implementation for `name`. */
export function certProvider(name: CertProviderName): CertProvider {
  return name === 'cert-manager' ? CERT_MANAGER : OPENSHIFT_SERVICE_CA;
}

const CA_INJECTED_KINDS = new Set(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'CustomResourceDefinition']);

function secretInfo(names: CertNames): CertSecretInfo {
  return { secretName: names.certName, certificateKey: 'tls.crt', privateKeyKey: 'tls.key' };
}

/** `obj` with `extra` merged into its annotations (extra wins), as a shallow copy. */
function withAnnotations(obj: KubeObject, extra: Record<string, string>): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, annotations: { ...obj.metadata?.annotations, ...extra } } };
}

const CERT_MANAGER: CertProvider = {
  name: 'cert-manager',
  injectCABundle(obj, names) {
    if (!CA_INJECTED_KINDS.has(obj.kind)) return obj;
    return withAnnotations(obj, { 'cert-manager.io/inject-ca-from': `${names.namespace}/${names.certName}` });
  },
  additionalObjects(names) {
    const issuerName = objectNameForBaseAndSuffix(names.certName, 'selfsigned-issuer');
    const host = `${names.serviceName}.${names.namespace}`;
    return [
      {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Issuer',
        metadata: { name: issuerName, namespace: names.namespace },
        spec: { selfSigned: {} },
      },
      {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Certificate',
        metadata: { name: names.certName, namespace: names.namespace },
        spec: {
          secretName: names.certName,
          commonName: host,
          dnsNames: [host, `${host}.svc`, `${host}.svc.cluster.local`],
          usages: ['server auth'],
          issuerRef: { name: issuerName },
          // Go prints time.Duration as "17520h0m0s" (730 days) and "24h0m0s".
          duration: '17520h0m0s',
          renewBefore: '24h0m0s',
        },
      },
    ];
  },
  secretInfo,
};

const OPENSHIFT_SERVICE_CA: CertProvider = {
  name: 'openshift-service-ca',
  injectCABundle(obj, names) {
    if (CA_INJECTED_KINDS.has(obj.kind)) return withAnnotations(obj, { 'service.beta.openshift.io/inject-cabundle': 'true' });
    if (obj.kind === 'Service') return withAnnotations(obj, { 'service.beta.openshift.io/serving-cert-secret-name': names.certName });
    return obj;
  },
  additionalObjects() {
    return [];
  },
  secretInfo,
};
