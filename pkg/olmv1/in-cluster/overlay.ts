/**
 * The kustomize overlay and serving certificates an administrator without cert-manager gives
 * `config/` (docs/operations.md "Serving certificates and TLS"): `config/` unchanged but for the
 * image (by digest), the caBundle of catalogd's webhook, and `--insecure-registry` for a
 * plain-HTTP registry both components pull from (for the console, which reads bundle images for
 * its install form, `OLMV1_INSECURE_REGISTRIES`).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createCertificateAuthority, issueCertificate, type CertificateAuthority } from '../localstack/index.ts';

/** The namespace config/ deploys into. */
export const SYSTEM_NAMESPACE = 'olmv1-system';
/** The two Deployments of config/manager. */
export const DEPLOYMENTS = ['catalogd-controller-manager', 'operator-controller-controller-manager'] as const;

/** What the overlay changes. */
interface OverlayInput {
  /** Path of config/ relative to the overlay's directory (e.g. `../config`). */
  base: string;
  /** `<registry>/<repository>@sha256:<hex>`: the pushed project image. */
  imageRef: string;
  /** Registries (host:port) both components reach over plain HTTP. */
  insecureRegistries: readonly string[];
  /** The webhook's caBundle (catalogd's CA); absent with config/cert-manager (cainjector's). */
  caPem?: string | undefined;
  /** Kustomize components added (relative to the overlay), e.g. `../config/cert-manager`. */
  components?: readonly string[];
  /** The console's Service (config/console) as a NodePort: how `olmv1 up --node --in-cluster` reaches it. */
  consoleNodePort?: boolean;
  /** Resources added beside `base` (relative to the overlay), e.g. `../config/crd/experimental`. */
  resources?: readonly string[];
  /** Container args appended to one Deployment of DEPLOYMENTS (e.g. its `--feature-gates`), after config/'s. */
  deploymentArgs?: Partial<Record<(typeof DEPLOYMENTS)[number], readonly string[]>>;
}

/** catalogd's webhook configuration in config/webhook. */
const WEBHOOK_CONFIGURATION = 'catalogd-mutating-webhook-configuration';

/**
 * The overlay's kustomization.yaml (pure; JSON, which kustomize reads as YAML). Throws when
 * `imageRef` is not a digest reference.
 */
export function renderOverlay(input: OverlayInput): string {
  const at = input.imageRef.lastIndexOf('@');
  const digest = input.imageRef.slice(at + 1);
  if (at < 0 || !/^sha256:[0-9a-f]{64}$/.test(digest)) throw new Error(`not a digest reference: ${input.imageRef}`);
  const appended = (values: readonly string[]) => values.map((value) => ({ op: 'add', path: '/spec/template/spec/containers/0/args/-', value }));
  const argsOf = (name: (typeof DEPLOYMENTS)[number]) =>
    appended([...input.insecureRegistries.map((host) => `--insecure-registry=${host}`), ...(input.deploymentArgs?.[name] ?? [])]);
  const kustomization = {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    resources: [input.base, ...(input.resources ?? [])],
    ...(input.components === undefined || input.components.length === 0 ? {} : { components: input.components }),
    images: [{ name: 'olmv1', newName: input.imageRef.slice(0, at), digest }],
    patches: [
      ...(input.caPem === undefined
        ? []
        : [
            {
              target: { kind: 'MutatingWebhookConfiguration', name: WEBHOOK_CONFIGURATION },
              patch: JSON.stringify([{ op: 'add', path: '/webhooks/0/clientConfig/caBundle', value: Buffer.from(input.caPem).toString('base64') }]),
            },
          ]),
      ...(input.consoleNodePort === true
        ? [{ target: { kind: 'Service', name: CONSOLE_SERVICE }, patch: JSON.stringify([{ op: 'add', path: '/spec/type', value: 'NodePort' }]) }]
        : []),
      ...(input.insecureRegistries.length > 0 && input.components?.some((c) => c.endsWith('config/console')) === true
        ? [
            {
              target: { kind: 'Deployment', name: CONSOLE_SERVICE },
              patch: JSON.stringify([
                {
                  op: 'add',
                  path: '/spec/template/spec/containers/0/env/-',
                  value: { name: 'OLMV1_INSECURE_REGISTRIES', value: input.insecureRegistries.join(',') },
                },
              ]),
            },
          ]
        : []),
      ...DEPLOYMENTS.flatMap((name) => {
        const args = argsOf(name);
        return args.length === 0 ? [] : [{ target: { kind: 'Deployment', name }, patch: JSON.stringify(args) }];
      }),
    ],
  };
  return JSON.stringify(kustomization, null, 2) + '\n';
}

/** The console's Service and Deployment (config/console). */
export const CONSOLE_SERVICE = 'olmv1-console';

/** DNS names of a Service in the system namespace, as the certificates carry them. */
function serviceNames(service: string): string[] {
  return [`${service}.${SYSTEM_NAMESPACE}.svc`, `${service}.${SYSTEM_NAMESPACE}.svc.cluster.local`];
}

/** A CA made here and the Secrets config/ mounts, as one kubectl-applicable List. */
interface ServingCertificates {
  ca: CertificateAuthority;
  /** `v1` List of the Secrets `catalogd-service-cert`, `operator-controller-cert` and `olmv1-console-cert`. */
  secrets: string;
}

/**
 * Makes a CA in `dir` and issues catalogd's, operator-controller's and the console's serving
 * certificates, each in a kubernetes.io/tls Secret with the CA as `ca.crt` (operator-controller
 * and the console verify catalogd); the console's also names localhost and `consoleIps` (where a
 * browser reaches it: a port-forward, a NodePort).
 */
export async function issueServingCertificates(dir: string, consoleIps: readonly string[] = []): Promise<ServingCertificates> {
  await mkdir(dir, { recursive: true });
  const ca = await createCertificateAuthority(dir, 'olmv1-ca', 'olmv1-ca');
  const items = [];
  for (const [secret, service] of [
    ['catalogd-service-cert', 'catalogd-service'],
    ['operator-controller-cert', 'operator-controller-service'],
    ['olmv1-console-cert', CONSOLE_SERVICE],
  ] as const) {
    const names = serviceNames(service);
    const extra =
      service === CONSOLE_SERVICE ? { dnsNames: [...names, 'localhost'], ipAddresses: ['127.0.0.1', ...consoleIps] } : { dnsNames: names };
    const cert = await issueCertificate(ca, dir, { name: secret, commonName: names[0] ?? service, ...extra, usage: 'server' });
    const b64 = (s: string): string => Buffer.from(s).toString('base64');
    items.push({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/tls',
      metadata: { name: secret, namespace: SYSTEM_NAMESPACE },
      data: { 'tls.crt': b64(cert.certPem), 'tls.key': b64(cert.keyPem), 'ca.crt': b64(ca.certPem) },
    });
  }
  return { ca, secrets: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) };
}

/**
 * Writes the overlay into `<root>/overlay` over `<root>/config`; `caPem` is the CA of
 * issueServingCertificates, or undefined for the config/cert-manager component instead.
 */
export async function writeOverlay(
  root: string,
  imageRef: string,
  insecureRegistries: readonly string[],
  caPem: string | undefined,
  extra: Pick<OverlayInput, 'resources' | 'deploymentArgs' | 'components' | 'consoleNodePort'> = {},
): Promise<string> {
  const dir = join(root, 'overlay');
  await mkdir(dir, { recursive: true });
  // With cert-manager, the console's certificate is a component of its own (config/console/cert-manager).
  const consoleCert = caPem === undefined && extra.components?.includes('../config/console') === true ? ['../config/console/cert-manager'] : [];
  const components = [...(caPem === undefined ? ['../config/cert-manager'] : []), ...(extra.components ?? []), ...consoleCert];
  await writeFile(join(dir, 'kustomization.yaml'), renderOverlay({ base: '../config', imageRef, insecureRegistries, caPem, ...extra, components }));
  return dir;
}
