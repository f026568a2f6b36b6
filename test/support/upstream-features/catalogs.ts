/**
 * Upstream's per-scenario catalogs ("a catalog "test" with packages:" and its table), built as
 * upstream's test/internal/catalog does: each bundle a generated registry+v1 bundle (a CSV with
 * an httpd Deployment whose readiness a step toggles, a CRD, a ConfigMap, properties, install
 * modes) or a directory of upstream's module as is; package names suffixed with the scenario
 * id; one file-based catalog image; all pushed to a registry the cluster pulls from.
 */
import { join } from 'node:path';
import { readBundleDir } from '../../../pkg/operator-controller/bundle/index.ts';
import { buildImage, createImageClient, type BuiltImage } from '../../../pkg/shared/image/index.ts';
import type { CatalogPort } from './context.ts';

/** One row's "contents" column, parsed (upstream's parseContents). */
export interface BundleContents {
  crd: boolean;
  deployment: boolean;
  configMap: boolean;
  badImage: boolean;
  properties: { type: string; value: string }[];
  installModes: string[];
  largeCrdFields: number;
  staticBundleDir?: string;
  clusterRegistry?: string;
}

/** A package of the table: its bundles in row order and its channels' entries. */
export interface TablePackage {
  name: string;
  bundles: { version: string; contents: BundleContents }[];
  channels: { name: string; entries: { version: string; replaces: string }[] }[];
}

export function parseContents(text: string): BundleContents {
  const c: BundleContents = { crd: false, deployment: false, configMap: false, badImage: false, properties: [], installModes: [], largeCrdFields: 0 };
  const trimmed = text.trim();
  if (trimmed === '') return c;
  if (trimmed.toLowerCase() === 'badimage') return { ...c, crd: true, deployment: true, badImage: true };
  for (const raw of trimmed.split(',')) {
    const part = raw.trim();
    const inner = (prefix: string): string | undefined =>
      part.startsWith(`${prefix}(`) && part.endsWith(')') ? part.slice(prefix.length + 1, -1) : undefined;
    if (part === 'CRD') c.crd = true;
    else if (part === 'Deployment') c.deployment = true;
    else if (part === 'ConfigMap') c.configMap = true;
    else if (inner('Property') !== undefined) {
      const kv = inner('Property') ?? '';
      const eq = kv.indexOf('=');
      if (eq >= 0) c.properties.push({ type: kv.slice(0, eq), value: kv.slice(eq + 1) });
    } else if (inner('InstallMode') !== undefined) c.installModes.push(inner('InstallMode') ?? '');
    else if (inner('LargeCRD') !== undefined) {
      const n = Number(inner('LargeCRD'));
      if (!Number.isInteger(n) || n <= 0) throw new Error(`invalid LargeCRD field count "${inner('LargeCRD') ?? ''}": must be a positive integer`);
      c.crd = true;
      c.largeCrdFields = n;
    } else if (inner('ClusterRegistry') !== undefined) c.clusterRegistry = inner('ClusterRegistry') ?? '';
    else if (inner('StaticBundleDir') !== undefined) c.staticBundleDir = inner('StaticBundleDir') ?? '';
  }
  return c;
}

/** The table (package | version | channel | replaces | contents, header first) as packages. */
export function parseCatalogTable(table: readonly (readonly string[])[]): TablePackage[] {
  const packages = new Map<string, TablePackage>();
  for (const row of table.slice(1)) {
    const [pkg = '', version = '', channel = '', replaces = '', contents = ''] = row;
    let p = packages.get(pkg);
    if (p === undefined) {
      p = { name: pkg, bundles: [], channels: [] };
      packages.set(pkg, p);
    }
    if (p.bundles.some((b) => b.version === version)) {
      if (contents.trim() !== '') throw new Error(`duplicate bundle ${pkg}/${version}: contents must be empty for repeated versions`);
    } else p.bundles.push({ version, contents: parseContents(contents) });
    let ch = p.channels.find((c) => c.name === channel);
    if (ch === undefined) {
      ch = { name: channel, entries: [] };
      p.channels.push(ch);
    }
    ch.entries.push({ version, replaces });
  }
  return [...packages.values()];
}

const ALL_INSTALL_MODES = ['AllNamespaces', 'SingleNamespace', 'MultiNamespace', 'OwnNamespace'];

/** The generated bundle's files (path -> text), upstream's buildBundle for a non-static row. */
export function generatedBundleFiles(scenarioId: string, packageName: string, version: string, c: BundleContents): Map<string, string> {
  const group = `e2e-${scenarioId}.e2e.operatorframework.io`;
  const plural = `e2e-${scenarioId}tests`;
  const crdName = `${plural}.${group}`;
  const deploymentName = `test-operator-${scenarioId}`;
  const saName = `bundle-manager-${scenarioId}`;
  const scriptName = `httpd-script-${scenarioId}`;
  const supported = c.installModes.length === 0 ? ['AllNamespaces', 'SingleNamespace'] : c.installModes;
  const strategy: Record<string, unknown> = {};
  if (c.deployment) {
    const probe = (path: string, extra: Record<string, number>): Record<string, unknown> => ({ httpGet: { path, port: 8080 }, ...extra });
    strategy['deployments'] = [
      {
        name: deploymentName,
        label: { 'app.kubernetes.io/name': deploymentName, 'app.kubernetes.io/version': version, 'app.kubernetes.io/component': 'controller' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: scenarioId } },
          template: {
            metadata: { labels: { app: scenarioId } },
            spec: {
              serviceAccountName: saName,
              terminationGracePeriodSeconds: 0,
              volumes: [{ name: 'scripts', configMap: { name: scriptName, defaultMode: 0o755 } }],
              containers: [
                {
                  name: 'busybox-httpd-container',
                  image: c.badImage ? 'wrong/image' : 'busybox:1.36',
                  command: ['/scripts/httpd.sh'],
                  ports: [{ containerPort: 8080 }],
                  volumeMounts: [{ name: 'scripts', mountPath: '/scripts', readOnly: true }],
                  startupProbe: probe('/started', { failureThreshold: 30, periodSeconds: 10 }),
                  livenessProbe: probe('/live', { failureThreshold: 1, periodSeconds: 2 }),
                  readinessProbe: probe('/ready', { initialDelaySeconds: 1, periodSeconds: 1 }),
                },
              ],
            },
          },
        },
      },
    ];
    const rules = (list: [string, string[], string[]][]): unknown[] => list.map(([g, resources, verbs]) => ({ apiGroups: [g], resources, verbs }));
    const all = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
    strategy['permissions'] = [
      {
        serviceAccountName: saName,
        rules: rules([
          ['', ['configmaps', 'serviceaccounts'], all],
          ['networking.k8s.io', ['networkpolicies'], ['get', 'list', 'create', 'update', 'delete']],
          ['coordination.k8s.io', ['leases'], all],
          ['', ['events'], ['create', 'patch']],
        ]),
      },
    ];
    strategy['clusterPermissions'] = [
      {
        serviceAccountName: saName,
        rules: rules([
          ['authentication.k8s.io', ['tokenreviews'], ['create']],
          ['authorization.k8s.io', ['subjectaccessreviews'], ['create']],
        ]),
      },
    ];
  }
  const csv = {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: { name: `${packageName}.v${version}` },
    spec: {
      installModes: ALL_INSTALL_MODES.map((type) => ({ type, supported: supported.includes(type) })),
      install: { strategy: 'deployment', spec: strategy },
      ...(c.crd
        ? {
            customresourcedefinitions: {
              owned: [{ name: crdName, kind: 'E2ETest', version: 'v1', displayName: 'E2ETest', description: 'E2E Test Resource' }],
            },
          }
        : {}),
    },
  };
  const files = new Map<string, string>([
    ['metadata/annotations.yaml', JSON.stringify({ annotations: { 'operators.operatorframework.io.bundle.package.v1': packageName } })],
    ['manifests/csv.yaml', JSON.stringify(csv)],
  ]);
  if (c.properties.length > 0)
    files.set('metadata/properties.yaml', JSON.stringify({ properties: c.properties.map((p) => ({ type: p.type, value: p.value })) }));
  if (c.deployment) {
    files.set(
      'manifests/script-configmap.yaml',
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: scriptName },
        data: {
          'httpd.sh':
            '#!/bin/sh\nmkdir -p /tmp/www\necho true > /tmp/www/started\necho true > /tmp/www/ready\necho true > /tmp/www/live\nexec httpd -f -h /tmp/www -p 8080\n',
        },
      }),
    );
    files.set(
      'manifests/networkpolicy.yaml',
      JSON.stringify({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name: `${deploymentName}-network-policy` },
        spec: { podSelector: {}, policyTypes: ['Ingress'] },
      }),
    );
  }
  if (c.configMap) {
    const name = `test-configmap-${scenarioId}`;
    files.set(
      'manifests/bundle-configmap.yaml',
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { version, name } }),
    );
  }
  if (c.crd) {
    const properties: Record<string, unknown> = { testField: { type: 'string' } };
    const description =
      'This field provides configuration for the large CRD test operator. It is used to validate that the OLM installation pipeline correctly handles bundles containing large Custom Resource Definitions. '.repeat(
        20,
      );
    for (let i = 0; i < c.largeCrdFields; i++) properties[`field${String(i).padStart(4, '0')}`] = { type: 'string', description };
    files.set(
      'manifests/crd.yaml',
      JSON.stringify({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: crdName },
        spec: {
          group,
          names: { kind: 'E2ETest', listKind: 'E2ETestList', plural, singular: `e2e-${scenarioId}test` },
          scope: 'Cluster',
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } },
            },
          ],
        },
      }),
    );
  }
  return files;
}

/** The file-based catalog text of the packages (upstream's documents, "---" separated). */
export function catalogFbc(
  packages: readonly TablePackage[],
  scenarioId: string,
  bundleRef: (pkg: string, version: string, contents: BundleContents) => string,
): string {
  const docs: string[] = [];
  for (const p of packages) {
    const name = `${p.name}-${scenarioId}`;
    if (p.channels.length === 0) throw new Error(`package "${p.name}" must define at least one channel`);
    docs.push(`schema: olm.package\nname: ${name}`);
    for (const ch of p.channels) {
      const entries = ch.entries.map((e) => `  - name: ${name}.${e.version}${e.replaces === '' ? '' : `\n    replaces: ${name}.${e.replaces}`}`);
      docs.push(`schema: olm.channel\nname: ${ch.name}\npackage: ${name}\nentries:\n${entries.join('\n')}`);
    }
    for (const b of p.bundles) {
      docs.push(
        `schema: olm.bundle\nname: ${name}.${b.version}\npackage: ${name}\nimage: ${bundleRef(name, b.version, b.contents)}\nproperties:\n  - type: olm.package\n    value:\n      packageName: ${name}\n      version: ${b.version}`,
      );
    }
  }
  return docs.join('\n---\n');
}

/** Where the images go: pushed to `pushRegistry` (plain HTTP), pulled by the cluster as `clusterRegistry`. */
export interface RegistryCatalogOptions {
  pushRegistry: string;
  clusterRegistry: string;
  /** Upstream's module directory (StaticBundleDir(...) paths are relative to it). */
  moduleDir: string;
  /** "an image registry is available"; default: nothing to do. */
  registryIsAvailable?: () => Promise<void>;
}

/** A CatalogPort pushing upstream's catalogs to a registry. */
export function registryCatalogPort(o: RegistryCatalogOptions): CatalogPort {
  const built = new Map<string, BuiltImage>();
  const catalogRepo = (catalog: string, scenarioId: string): string => `e2e/${catalog}-catalog-${scenarioId}`;
  return {
    imageRegistryIsAvailable: async () => o.registryIsAvailable?.(),
    async build({ catalog, scenarioId, version, table }) {
      const packages = parseCatalogTable(table);
      const client = createImageClient({ insecureRegistries: [o.pushRegistry] });
      try {
        const refs = new Map<string, string>();
        for (const p of packages) {
          const name = `${p.name}-${scenarioId}`;
          for (const b of p.bundles) {
            const files = new Map<string, string | Buffer>();
            if (b.contents.staticBundleDir !== undefined) {
              for (const [path, bytes] of await readBundleDir(join(o.moduleDir, b.contents.staticBundleDir)))
                if (!path.endsWith('/')) files.set(path, Buffer.from(bytes));
            } else for (const [path, text] of generatedBundleFiles(scenarioId, name, b.version, b.contents)) files.set(path, text);
            const labels = {
              'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
              'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
              'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
              'operators.operatorframework.io.bundle.package.v1': name,
              'operators.operatorframework.io.bundle.channels.v1': 'default',
            };
            await client.push(`${o.pushRegistry}/bundles/${name}:v${b.version}`, buildImage({ files, labels }));
            refs.set(`${name}@${b.version}`, `${b.contents.clusterRegistry ?? o.clusterRegistry}/bundles/${name}:v${b.version}`);
          }
        }
        const fbc = catalogFbc(packages, scenarioId, (name, v) => refs.get(`${name}@${v}`) ?? '');
        const image = buildImage({
          files: { 'configs/catalog.yaml': fbc },
          labels: { 'operators.operatorframework.io.index.configs.v1': '/configs' },
        });
        await client.push(`${o.pushRegistry}/${catalogRepo(catalog, scenarioId)}:${version}`, image);
        built.set(`${catalogRepo(catalog, scenarioId)}:${version}`, image);
        return {
          catalogName: `${catalog}-catalog-${scenarioId}`,
          catalogImageRef: `${o.clusterRegistry}/${catalogRepo(catalog, scenarioId)}:${version}`,
          packageNames: new Map(packages.map((p) => [p.name, `${p.name}-${scenarioId}`])),
        };
      } finally {
        client.close();
      }
    },
    async tag({ catalog, scenarioId, from, to }) {
      const image = built.get(`${catalogRepo(catalog, scenarioId)}:${from}`);
      if (image === undefined) throw new Error(`catalog "${catalog}" version "${from}" was not built in this run`);
      const client = createImageClient({ insecureRegistries: [o.pushRegistry] });
      try {
        await client.push(`${o.pushRegistry}/${catalogRepo(catalog, scenarioId)}:${to}`, image);
      } finally {
        client.close();
      }
    },
  };
}
