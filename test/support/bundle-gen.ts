/**
 * Generated registry+v1 bundles for end-to-end suites and benchmarks: a CSV with one Deployment
 * and cluster permissions, owned CRDs under a group of the package's own, optional ConfigMaps
 * and deliberately broken parts. Pure (no vitest, no I/O), so bench/ can use it too.
 */
import type { BundleText } from './bundle-flow.ts';

/** What one generated bundle version contains. */
export interface BundleSpec {
  pkg: string;
  version: string;
  /** CRD plurals under `<pkg>.e2e.test` (default ['widgets']). */
  crds?: string[];
  /** The versions of every CRD (default: v1, served and stored, with `spec.size` an integer). */
  crdVersions?: CrdVersionSpec[];
  /** Extra ConfigMaps `<pkg>-<name>` in the install namespace ("others"). */
  configMaps?: string[];
  /** CSV `spec.installModes` supported types (default AllNamespaces). */
  installModes?: string[];
  /** The Deployment leaves `spec.replicas` unset (scaling left to an autoscaler); default 1 replica. */
  omitReplicas?: boolean;
  /** `olm.skipRange` annotation of the CSV. */
  skipRange?: string;
  /** Fields no schema declares, as old published bundles have: `spec.x` in the Deployment and `junk` in each ConfigMap. */
  strayFields?: boolean;
  /** A Service `<pkg>-metrics` whose port the API server refuses (70000). */
  invalidService?: boolean;
  /** The CSV's `olm.properties` annotation: an array (JSON-encoded) or the annotation text as is. */
  properties?: unknown[] | string;
  /**
   * About this many bytes of incompressible text in ConfigMaps `<pkg>-pad-<i>` (at most 512 KiB
   * each), so that the release record is split across several Secrets. Same spec, same bytes.
   */
  padBytes?: number;
  /** Manifests added as they are ("others"), e.g. a ClusterRole named like a built-in one. */
  extraObjects?: object[];
  /** One validating webhook on the first CRD, served by the Deployment (needs a certificate provider). */
  webhook?: boolean;
}

const PAD_PER_CONFIGMAP = 512 * 1024;

/** `n` base64 characters from a xorshift generator seeded with `seed`: incompressible, reproducible. */
function noise(seed: string, n: number): string {
  let x = 2166136261;
  for (const c of seed) x = Math.imul(x ^ c.charCodeAt(0), 16777619) >>> 0;
  const bytes = Buffer.alloc(Math.ceil((n * 3) / 4));
  for (let i = 0; i < bytes.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    bytes[i] = x & 0xff;
  }
  return bytes.toString('base64').slice(0, n);
}

/** One version of the generated CRDs. */
export interface CrdVersionSpec {
  name: string;
  served?: boolean;
  /** Default: the first version. */
  storage?: boolean;
  /** The properties of `spec` in the version's schema. */
  spec: Record<string, unknown>;
}

const DEFAULT_CRD_VERSIONS: CrdVersionSpec[] = [{ name: 'v1', spec: { size: { type: 'integer' } } }];

const CSV_API = 'operators.coreos.com/v1alpha1';

/** The CRD group of a generated package. */
export function groupOf(pkg: string): string {
  return `${pkg}.e2e.test`;
}

function crdOf(pkg: string, plural: string, versions: CrdVersionSpec[]): object {
  const kind = plural.charAt(0).toUpperCase() + plural.slice(1).replace(/s$/, '');
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${groupOf(pkg)}` },
    spec: {
      group: groupOf(pkg),
      names: { plural, singular: plural.replace(/s$/, ''), kind, listKind: `${kind}List` },
      scope: 'Namespaced',
      versions: versions.map((v, i) => ({
        name: v.name,
        served: v.served ?? true,
        storage: v.storage ?? i === 0,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: v.spec } } } },
      })),
    },
  };
}

/** The files of a bundle (`manifests/`, `metadata/`), JSON documents (valid YAML). */
export function bundleFiles(spec: BundleSpec): BundleText {
  const { pkg, version } = spec;
  const crds = spec.crds ?? ['widgets'];
  const crdVersions = spec.crdVersions ?? DEFAULT_CRD_VERSIONS;
  const storageVersion = crdVersions.find((v, i) => v.storage ?? i === 0)?.name ?? 'v1';
  const modes = spec.installModes ?? ['AllNamespaces'];
  const csv = {
    apiVersion: CSV_API,
    kind: 'ClusterServiceVersion',
    metadata: {
      name: `${pkg}.v${version}`,
      annotations: {
        ...(spec.skipRange === undefined ? {} : { 'olm.skipRange': spec.skipRange }),
        ...(spec.properties === undefined
          ? {}
          : { 'olm.properties': typeof spec.properties === 'string' ? spec.properties : JSON.stringify(spec.properties) }),
      },
    },
    spec: {
      version,
      installModes: ['OwnNamespace', 'SingleNamespace', 'MultiNamespace', 'AllNamespaces'].map((type) => ({ type, supported: modes.includes(type) })),
      customresourcedefinitions: {
        owned: crds.map((plural) => ({
          name: `${plural}.${groupOf(pkg)}`,
          version: storageVersion,
          kind: plural.charAt(0).toUpperCase() + plural.slice(1).replace(/s$/, ''),
        })),
      },
      ...(spec.webhook === true
        ? {
            webhookdefinitions: [
              {
                type: 'ValidatingAdmissionWebhook',
                generateName: `v${crds[0] ?? 'widgets'}.${groupOf(pkg)}`,
                deploymentName: `${pkg}-controller`,
                containerPort: 443,
                targetPort: 9443,
                admissionReviewVersions: ['v1'],
                sideEffects: 'None',
                failurePolicy: 'Fail',
                webhookPath: '/validate',
                rules: [{ operations: ['CREATE'], apiGroups: [groupOf(pkg)], apiVersions: [storageVersion], resources: [crds[0] ?? 'widgets'] }],
              },
            ],
          }
        : {}),
      install: {
        strategy: 'deployment',
        spec: {
          clusterPermissions: [
            {
              serviceAccountName: `${pkg}-controller`,
              // Without CRDs it reads Namespaces (a rule must name a resource).
              rules: [
                crds.length === 0
                  ? { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] }
                  : { apiGroups: [groupOf(pkg)], resources: crds, verbs: ['get', 'list', 'watch'] },
              ],
            },
          ],
          deployments: [
            {
              name: `${pkg}-controller`,
              spec: {
                ...(spec.omitReplicas === true ? {} : { replicas: 1 }),
                ...(spec.strayFields === true ? { x: 'stray' } : {}),
                selector: { matchLabels: { app: `${pkg}-controller` } },
                template: {
                  metadata: { labels: { app: `${pkg}-controller` } },
                  spec: { serviceAccountName: `${pkg}-controller`, containers: [{ name: 'manager', image: `registry.invalid/${pkg}:v${version}` }] },
                },
              },
            },
          ],
        },
      },
    },
  };
  const files: BundleText = new Map();
  files.set(
    'metadata/annotations.yaml',
    `annotations:\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n  operators.operatorframework.io.bundle.package.v1: ${pkg}\n`,
  );
  files.set('manifests/csv.json', JSON.stringify(csv));
  for (const plural of crds) files.set(`manifests/crd-${plural}.json`, JSON.stringify(crdOf(pkg, plural, crdVersions)));
  if (spec.invalidService === true) {
    const svc = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: `${pkg}-metrics` },
      spec: { selector: { app: `${pkg}-controller` }, ports: [{ name: 'metrics', port: 70000, targetPort: 8080 }] },
    };
    files.set('manifests/svc-metrics.json', JSON.stringify(svc));
  }
  for (let i = 0; i * PAD_PER_CONFIGMAP < (spec.padBytes ?? 0); i++) {
    const size = Math.min(PAD_PER_CONFIGMAP, (spec.padBytes ?? 0) - i * PAD_PER_CONFIGMAP);
    const pad = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${pkg}-pad-${i}` },
      data: { noise: noise(`${pkg}/${version}/${i}`, size) },
    };
    files.set(`manifests/cm-pad-${i}.json`, JSON.stringify(pad));
  }
  for (const [i, obj] of (spec.extraObjects ?? []).entries()) files.set(`manifests/extra-${i}.json`, JSON.stringify(obj));
  for (const cm of spec.configMaps ?? []) {
    files.set(
      `manifests/cm-${cm}.json`,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${pkg}-${cm}` },
        data: { version },
        ...(spec.strayFields === true ? { junk: { a: 1 } } : {}),
      }),
    );
  }
  return files;
}
